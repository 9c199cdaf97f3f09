"""nki.jit, nki.simulate, nki.simulate_kernel, nki.baremetal, nki.benchmark, nki.profile, nki.trace on the host,
for the current API (`import nki`) and the legacy one (`import neuronxcc.nki`): every one runs the kernel in
nki-sim. jit / simulate / baremetal run the numerics only (no timing); benchmark and profile run timed."""
from ._kernel import CURRENT, LEGACY, Kernel, as_kernel


def decorators(api):
    """The decorator functions of one API (CURRENT or LEGACY)."""

    def jit(func=None, mode=None, platform_target=None, additional_compile_opt=None, **kwargs):
        """@jit, @jit(mode=..., platform_target=..., additional_compile_opt=..., ...): kernel objects that
        run in nki-sim when called with numpy arrays (any mode)."""
        def wrap(f):
            return Kernel(f, api, mode=mode, platform_target=platform_target,
                          options={"additional_compile_opt": additional_compile_opt, **kwargs})
        return wrap(func) if func is not None else wrap

    def trace(func=None, **kwargs):
        return jit(func, mode="trace", **kwargs)

    def _runner(kind):
        def deco(kernel=None, **options):
            def wrap(k):
                return as_kernel(k, api)._with(kind, **options)
            return wrap(kernel) if kernel is not None else wrap
        deco.__name__ = kind
        return deco

    simulate = _runner("simulate")
    baremetal = _runner("baremetal")
    benchmark = _runner("benchmark")
    profile = _runner("profile")

    def simulate_kernel(kernel, *args, **kwargs):
        """simulate_kernel(kernel[grid], *args): runs the kernel at once and returns its outputs."""
        return as_kernel(kernel, api)._with("simulate")(*args, **kwargs)

    return dict(jit=jit, trace=trace, simulate=simulate, baremetal=baremetal, benchmark=benchmark,
                profile=profile, simulate_kernel=simulate_kernel)


CURRENT_DECORATORS = decorators(CURRENT)
LEGACY_DECORATORS = decorators(LEGACY)
