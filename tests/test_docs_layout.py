"""The documentation's shape: two short front pages (README.md, README.ru.md) that lead to the manual
(docs/manual/, its Russian mirror docs/manual/ru/) and the format notes (docs/formats/); every relative link
of them reaches a file (and its heading, where one is named); and no file of the project names a tracker's
issue numbers where it should say what a thing is for."""

import os
import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parent.parent
FRONT_PAGES = (ROOT / "README.md", ROOT / "README.ru.md")
MANUAL = ROOT / "docs" / "manual"
MAX_FRONT_LINES = 300
DOCS = [*FRONT_PAGES, *sorted((ROOT / "docs").rglob("*.md"))]
LINK = re.compile(r"\]\(([^()\s]+)\)|<img [^>]*src=\"([^\"]+)\"")
HEADING = re.compile(r"^#{1,6} (.+?)\s*$", re.MULTILINE)


def heading_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.replace("`", "").lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
    return {heading_anchor(h) for h in HEADING.findall(text)}


def relative_links(path: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
    found = [a or b for a, b in LINK.findall(text)]
    return [link for link in found if not re.match(r"[a-z][a-z0-9+.-]*:", link)]


@pytest.mark.parametrize("path", FRONT_PAGES, ids=lambda p: p.name)
def test_front_pages_are_short(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= MAX_FRONT_LINES


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(path):
    broken = []
    for link in relative_links(path):
        target, _, anchor = link.partition("#")
        file = (path.parent / unquote(target)).resolve() if target else path
        if not file.exists() or (anchor and file.suffix == ".md" and unquote(anchor).lower() not in anchors(file)):
            broken.append(link)
    assert not broken, broken


def test_the_front_pages_lead_to_every_manual_page():
    pages = sorted(p.name for p in MANUAL.glob("*.md"))
    assert "index.md" in pages and len(pages) > 10
    english, russian = (path.read_text(encoding="utf-8") for path in FRONT_PAGES)
    for name in pages:
        if name != "index.md":
            assert f"(docs/manual/{name})" in english, name
            assert f"(docs/manual/ru/{name})" in russian, name
            assert f"({name})" in (MANUAL / "index.md").read_text(encoding="utf-8"), name


def test_every_manual_page_has_its_russian_mirror():
    english = sorted(p.name for p in MANUAL.glob("*.md"))
    russian = sorted(p.name for p in (MANUAL / "ru").glob("*.md"))
    assert english == russian
    for name in english:  # each links the other
        assert f"(ru/{name})" in (MANUAL / name).read_text(encoding="utf-8"), name
        assert f"(../{name})" in (MANUAL / "ru" / name).read_text(encoding="utf-8"), name


def test_the_anchor_rule_is_githubs():
    assert heading_anchor("MSH fields the game reads") == "msh-fields-the-game-reads"
    assert heading_anchor("Land.msh — `core/map/landmsh.py`") == "landmsh--coremaplandmshpy"
    assert heading_anchor("Правка анимации") == "правка-анимации"


# --------------------------------------------------------------------- no issue numbers

ISSUE_NUMBER = re.compile(
    r"\bissues?\s*#?\d+"                                       # "issue 32", "issues 10 and 19", "Issue #7"
    r"|(?:[(\-]\s*|\"\"\"|#\s)items?\s+\d+"                       # "(item 19)", "# ---- item 15", a docstring's start
    r"|\bitems?\s+\d+(?:\s*(?:-|–|to|and|,)\s*\d+)*(?:'s)?\s*[:;,)]"  # "item 5:", "items 3-7)", "item 7's)"
    r"|#\d+,?\s+items?\b"                                      # "#30 item 3"
    r"|\((?:see\s+)?#\d+\)",                                   # "(#17)"
    re.IGNORECASE)
SKIPPED_DIRS = {".git", "out", "dist", "build", "node_modules", "__pycache__", ".pytest_cache", ".ruff_cache",
                ".hypothesis"}
TEXT_SUFFIXES = {".py", ".md", ".sh", ".toml", ".txt", ".cfg", ".ini", ".yml", ".yaml", ".json", ".js", ""}


def project_text_files() -> list[Path]:
    found = []
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS and not d.startswith(".venv")]
        for name in files:
            path = Path(folder) / name
            if path.suffix in TEXT_SUFFIXES and path.name != "package-lock.json":
                found.append(path)
    return sorted(found)


def issue_numbers(text: str) -> list[str]:
    return [m.group(0) for m in ISSUE_NUMBER.finditer(text)]


def test_the_issue_number_pattern():
    for named in ("issue 32 item 5", "(issue 17)", "#30 item 3", "Issue 19, items 2 and 15", "(item 18)",
                  "issues 10 and 19", "see (#17)", "# ------------ item 15", '"""Item 7: leg_l lifted',
                  "keys (item 18)", "items 15 and 13: the contact sheet"):
        assert issue_numbers(named), named
    for fine in ("#include <stdio.h>", "colour '#ff0000'", "stream #3", "--entry '#3'", "`#N` names entry N",
                 "an item of the list", "the issue is the float32 rounding", "# ------- names",
                 "the list's item 3 of 5", "items 2 and 3 of the table", "x = items[3]"):
        assert not issue_numbers(fine), fine


def test_no_file_names_an_issue_number():
    found = []
    for path in project_text_files():
        if path == Path(__file__).resolve():  # its examples of what is not allowed
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            for hit in issue_numbers(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {hit}")
    assert not found, "say what the thing is for instead:\n" + "\n".join(found)


# --------------------------------------------------------------------- docs named in code and comments

OUR_DOC = re.compile(r"(?<![\w/])docs/(?!specs/|tomes/|reference/|\d)[\w./-]*\w\.md")  # not the sources' docs/


def test_every_doc_a_file_names_exists():
    """A comment, docstring or message naming one of our pages (docs/formats/units.md, ...) names a page that is
    there: a page moved is followed everywhere."""
    missing = []
    for path in project_text_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        missing += [f"{path.relative_to(ROOT)}: {name}" for name in OUR_DOC.findall(text)
                    if not (ROOT / name).is_file()]
    assert not missing, missing
