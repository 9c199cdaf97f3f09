"""The docs stand on their own: every relative link in README.md and docs/ (guide included) names a file of the
repository, and nothing cites a file outside it (the reference notes the project was built from are not
shipped: docs/hardware-facts.md carries their facts with public URLs)."""
import functools
import os
import re
import subprocess
import sys

ROOT = os.environ.get("NKISIM_SOURCE_DIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# Files users do not have: the development machine's notes and paths.
OUTSIDE = re.compile(r"\.\./shared|/work/|shared/spec|(?<![\w-])(?:nki-isa|nki-language|machine)\.md\b")
LINK = re.compile(r"\]\(([^)\s]+)\)")
TICKED_PARENT = re.compile(r"`(\.\./[^`\s]+)`")


def markdown_files():
    yield os.path.join(ROOT, "README.md")
    for d, _, files in os.walk(os.path.join(ROOT, "docs")):
        for f in sorted(files):
            if f.endswith(".md"):
                yield os.path.join(d, f)


def inside(path):
    return os.path.realpath(path).startswith(os.path.realpath(ROOT) + os.sep)


@functools.lru_cache(maxsize=None)
def html_available():
    """Whether this build's nki-sim has --html (the timeline screenshots of the guide need it)."""
    exe = os.environ.get("NKISIM") or os.path.join(ROOT, "build", "nki-sim")
    try:
        r = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=60)
    except OSError:
        return False
    return "--html" in r.stdout + r.stderr


def pending_picture(file):
    """A guide screenshot scripts/guide_pictures.sh makes with --html, while this nki-sim has no --html: the
    script skips it, and so does this test."""
    name = os.path.basename(file)
    if os.path.dirname(file) != os.path.join(ROOT, "docs", "guide", "img") or not name.endswith(".png"):
        return False
    script = open(os.path.join(ROOT, "scripts", "guide_pictures.sh"), encoding="utf-8").read()
    return name[:-4] in script and not html_available()


def problems(path):
    text = open(path, encoding="utf-8").read()
    rel = os.path.relpath(path, ROOT)
    for n, line in enumerate(text.splitlines(), 1):
        m = OUTSIDE.search(line)
        if m:
            yield f"{rel}:{n}: cites a file outside the repository: {m.group(0)!r}"
        for target in LINK.findall(line) + TICKED_PARENT.findall(line):
            if re.match(r"[a-z]+:", target) or target.startswith("#") or target == "...":  # kernel[2](...)
                continue
            file = os.path.normpath(os.path.join(os.path.dirname(path), target.split("#")[0]))
            if not inside(file):
                yield f"{rel}:{n}: link leaves the repository: {target}"
            elif not os.path.exists(file) and not pending_picture(file):
                yield f"{rel}:{n}: link to a missing file: {target}" + (
                    " (bash scripts/guide_pictures.sh makes it)" if "/guide/img/" in file else "")


def main():
    found = [p for f in markdown_files() for p in problems(f)]
    for p in found:
        print(p)
    if found:
        sys.exit(1)
    print("docs links: ok")


if __name__ == "__main__":
    main()
