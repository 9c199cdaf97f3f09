"""nkisim.simulate(..., html=PATH): the --html timeline page (docs/html.md) from the Python package."""
import json
import re

import numpy as np
import pytest

import nkisim
from kernels import current


def rand(*shape, seed=0):
    return np.random.default_rng(seed).random(shape, dtype=np.float32)


def page_data(path):
    m = re.search(r'<script type="application/json" id="nkisim-data">(.*?)</script>', path.read_text(), re.S)
    return json.loads(m.group(1))


def test_html_page(tmp_path):
    a, b = rand(128, 64), rand(128, 64, seed=1)
    page = tmp_path / "t.html"
    r = nkisim.simulate(current.tile_add, a, b, html=page)
    np.testing.assert_array_equal(r.outputs[0], a + b)
    data = page_data(page)
    assert data["format"] == "nki-sim-timeline-1" and data["title"] == "tile_add" and data["target"] == "trn2"
    core = data["cores"][0]
    assert [t["label"] for t in core["tracks"][:5]] == ["Tensor", "Vector", "Scalar", "GpSimd", "Sync"]
    assert len(core["instr"]["op"]) == r.instructions
    locs = data["locations"]
    lines = {(data["strings"][f].rsplit("/", 1)[-1], n, data["strings"][t].strip())
             for f, n, t in zip(locs["file"], locs["line"], locs["text"])}
    assert ("current.py", 19, "nisa.tensor_tensor(dst=tc, data1=ta, data2=tb, op=nl.add)") in lines


def test_html_two_cores(tmp_path):
    a = rand(256, 64)
    page = tmp_path / "lnc.html"
    nkisim.simulate(current.lnc_rows, a, lnc=2, html=page)
    assert len(page_data(page)["cores"]) == 2


def test_html_needs_timing(tmp_path):
    a, b = rand(128, 64), rand(128, 64, seed=1)
    with pytest.raises(ValueError, match="html= needs a timed run"):
        nkisim.simulate(current.tile_add, a, b, timing=False, html=tmp_path / "t.html")
