# feature: async functions parse (host code) but calling one from a kernel is rejected
# expect-error: {file}:13:18: error: async function fetch() is not supported in NKI kernels
import nki
from conflib import emit


async def fetch():
    return await something()


@nki.jit
def reject_async():
    return emit([fetch()])
