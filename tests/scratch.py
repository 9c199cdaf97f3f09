"""Temporary directories of the test scripts, removed when the script exits (set NKISIM_KEEP_TMP=1 to keep
them for debugging): a suite run leaves nothing behind in /tmp."""
import atexit
import os
import shutil
import tempfile


def scratch_dir(prefix):
    d = tempfile.mkdtemp(prefix=prefix)
    if not os.environ.get("NKISIM_KEEP_TMP"):
        atexit.register(shutil.rmtree, d, True)
    return d
