"""Files the Python package writes (trace=, html=, Program.save) are staged like the CLI's outputs (issue 15,
docs/hardening.md "Output files"): written to a temporary file beside them and renamed into place only when
the whole call succeeded, so a failed call leaves no new or changed file and no temporary file."""
import os

import numpy as np
import pytest

import nkisim
from kernels import current


def listing(folder):
    return sorted(os.listdir(folder))


def test_run_time_error_leaves_no_trace_or_html(tmp_path):
    table = np.zeros((128, 512), np.float32)
    idx = (3 * np.arange(64, dtype=np.int32))[:, None]  # row 129 of 128: a run-time IndexError
    old = tmp_path / "old.json"
    old.write_text("earlier trace")
    with pytest.raises(IndexError):
        nkisim.simulate(current.gather_rows, table, idx, trace=tmp_path / "t.json", html=tmp_path / "t.html")
    with pytest.raises(IndexError):
        nkisim.simulate(current.gather_rows, table, idx, trace=old)
    assert listing(tmp_path) == ["old.json"]
    assert old.read_text() == "earlier trace"


def test_unwritable_html_leaves_no_trace(tmp_path):
    a = np.ones((128, 512), np.float32)
    html = tmp_path / "missing" / "t.html"
    with pytest.raises(nkisim.KernelError) as e:
        nkisim.simulate(current.tile_add, a, a, trace=tmp_path / "t.json", html=html)
    assert str(e.value) == f"{html}: error: cannot write file: No such file or directory\n"
    assert listing(tmp_path) == []
    r = nkisim.simulate(current.tile_add, a, a, trace=tmp_path / "t.json", html=tmp_path / "t.html")
    assert listing(tmp_path) == ["t.html", "t.json"] and r.trace_path == str(tmp_path / "t.json")
    assert (tmp_path / "t.json").read_text().startswith("{")


def test_program_save_is_staged(tmp_path):
    a = np.ones((128, 512), np.float32)
    prog = nkisim.compile(current.tile_add, a, a)
    real = tmp_path / "real.nkibin"
    real.write_bytes(b"old")
    link = tmp_path / "k.nkibin"
    link.symlink_to("real.nkibin")
    prog.save(link)  # written through the symlink the user put there; the link stays
    assert link.is_symlink() and real.read_bytes() == prog._prog.encode()
    missing = tmp_path / "missing" / "k.nkibin"
    with pytest.raises(nkisim.KernelError, match=f"^{missing}: error: cannot write file: No such file or directory$"):
        prog.save(missing)
    with pytest.raises(nkisim.KernelError, match="cannot write file: the file name is empty"):
        prog.save("")
    assert listing(tmp_path) == ["k.nkibin", "real.nkibin"]
