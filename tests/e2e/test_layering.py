"""Layering (../shared/DESIGN.md): each layer includes only the layers it may depend on, and the CMake
libraries link accordingly (sim links isa only)."""
import glob
import os
import re

from common import SRC, check, finish

ALLOWED = {
    "isa": {"isa"},
    "sim": {"isa", "sim"},
    "ir": {"isa", "ir"},
    "frontend": {"isa", "ir", "frontend"},
    "api": {"isa", "sim", "ir", "frontend", "api"},
}
LAYERS = {"isa", "sim", "ir", "frontend", "api", "tools"}
include = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/')

for layer, allowed in ALLOWED.items():
    for path in sorted(glob.glob(os.path.join(SRC, layer, "*.*"))):
        with open(path, encoding="utf-8", errors="replace") as f:
            for n, line in enumerate(f, 1):
                m = include.match(line)
                if m and m.group(1) in LAYERS:
                    check(m.group(1) in allowed,
                          f"{os.path.relpath(path, SRC)}:{n} includes {m.group(1)}/ but {layer} may use only {sorted(allowed)}")

cmake = open(os.path.join(SRC, "CMakeLists.txt")).read()
m = re.search(r"target_link_libraries\(nkisim_sim ([^)]*)\)", cmake)
check(m is not None, "nkisim_sim has a target_link_libraries line")
if m:
    ours = set(re.findall(r"nkisim_\w+", m.group(1)))
    check(ours == {"nkisim_isa"}, f"nkisim_sim links only nkisim_isa, found {sorted(ours)}")
finish()
