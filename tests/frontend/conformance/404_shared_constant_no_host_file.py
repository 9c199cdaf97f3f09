# feature: rejected: nl.shared_constant of a name no np.save wrote during the compile (kernel code reads no host files)
# expect-error: {file}:10:9: error: shared_constant: '/etc/hostname' is not a file np.save wrote during this compile (nki-sim reads no host files from kernel code)
# input: a = rng.standard_normal((4, 4)).astype(np.float32)
import nki
import nki.language as nl


@nki.jit
def shared_constant_host_file(a):
    c = nl.shared_constant("/etc/hostname")
    return a
