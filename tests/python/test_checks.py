"""nkisim.simulate(..., check=...) (docs/checks.md): findings as CheckWarning, as CheckError, or none."""
import os
import warnings

import numpy as np
import pytest

import nkisim
from kernels import checked

PATH = os.path.join(os.path.dirname(__file__), "kernels", "checked.py")
FIRST = (f"{PATH}:13:5: warning: initcheck: tensor_copy (vector #0) reads never-written t[0:128, 448:512] "
         "(8192 elements of operand 'src')")


def test_check_warns_with_the_line_and_the_tensor():
    a = np.ones((128, 512), np.float32)
    with pytest.warns(nkisim.CheckWarning) as w:
        r = nkisim.simulate(checked.read_before_write, a, check=True)
    assert len(w) == 1 and str(w[0].message).splitlines()[0] == FIRST
    assert [(f["kind"], f["line"], f["tensor"]) for f in r.findings] == [("initcheck", 13, "t[0:128, 448:512]")]
    assert np.isnan(r.outputs[0][:, 448:]).all() and (r.outputs[0][:, :448] == 1).all()


def test_check_error_raises():
    a = np.ones((128, 512), np.float32)
    with pytest.raises(nkisim.CheckError) as e:
        nkisim.simulate(checked.read_before_write, a, check="error", timing=False)
    assert str(e.value).splitlines()[0] == FIRST.replace(": warning: ", ": error: ")
    assert e.value.findings[0]["opcode"] == "tensor_copy"


def test_no_check_by_default():
    a = np.ones((128, 512), np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = nkisim.simulate(checked.read_before_write, a)
    assert r.findings == []
    # racecheck and synccheck only: the back end orders every access and waits for every signal.
    r = nkisim.simulate(checked.read_before_write, a, check="race,sync")
    assert r.findings == []
