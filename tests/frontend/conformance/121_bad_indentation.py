# feature: malformed source: inconsistent dedent is a located indentation error
# expect-error: {file}:10:3: error: unindent does not match any outer indentation level
import nki


@nki.jit
def bad_indentation():
    if True:
        x = 1
  return x
