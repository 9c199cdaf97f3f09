# feature: malformed source: tabs and spaces mixed inconsistently in indentation
# expect-error: {file}:10:2: error: inconsistent use of tabs and spaces in indentation
import nki


@nki.jit
def mixed_tabs():
    if True:
        x = 1
	y = 2
    return None
