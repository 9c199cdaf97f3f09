# feature: rejected: a syntax error before a tokeniser error is the one reported, as CPython tokenises while it parses (here an unexpected indent above an unterminated string)
# expect-error: {file}:10:1: error: unexpected indent
import nki


@nki.jit
def indent_before_unterminated():
    """Docstring."""

        stray = 1

    """
