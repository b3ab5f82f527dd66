"""A model's material list: the ``WEAR`` text entry (fparkan docs/specs/materials-texm.md section 8).

Grammar: a count, then ``legacyId name`` rows looked up by position (the id
is read and ignored), then optionally a blank line, ``LIGHTMAPS``, a count
and rows. The text is cp1251. An unchanged list writes back its own bytes;
a changed one is written with the original's line ending, with the blank
line before ``LIGHTMAPS`` that the runtime's buffer parser needs (8.2).

Which WEAR entry belongs to which model is decided here too: the one
sharing the model's name stem, else the only one in the archive.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from ..container.nres import Archive, Entry, fold, game_bytes, game_text
from ..errors import Finding, FormatError, warning

WEAR_TYPE_ID = int.from_bytes(b"WEAR", "little")
WEAR_ATTRS = {"attr1": 0, "attr2": 0, "attr3": 1}  # every retail WEAR entry (section 13.4)
STREAM = "WEAR"
LIGHTMAPS = "LIGHTMAPS"
COUNT_LINE_BYTES = 64  # a count line is digits and a little blank space; a longer one cannot be a count
NO_LIGHTMAP = 0xFF  # batch byte +5 without a lightmap


@dataclass
class Wear:
    materials: list[str] = field(default_factory=list)
    lightmaps: list[str] | None = None
    raw: bytes | None = field(default=None, repr=False)      # as read
    ids: tuple[list[int], list[int]] = field(default=([], []), repr=False)  # legacy ids as read
    newline: str = "\r\n"

    def to_bytes(self) -> bytes:
        if self.raw is not None:
            try:
                if _same_lists(parse_wear(self.raw), self):
                    return self.raw
            except FormatError:
                pass
        nl = self.newline
        lines = [str(len(self.materials)), *(f"{_id(self.ids[0], i)} {n}" for i, n in enumerate(self.materials))]
        if self.lightmaps:
            lines += ["", LIGHTMAPS, str(len(self.lightmaps)),
                      *(f"{_id(self.ids[1], i)} {n}" for i, n in enumerate(self.lightmaps))]
        text = nl.join(lines) + nl
        try:
            return game_bytes(text)
        except UnicodeEncodeError as exc:
            raise FormatError.single(STREAM, None, f"material name {text[exc.start:exc.end]!r} cannot be stored "
                                                   "in code page 1251") from None


def _id(ids: list[int], position: int) -> int:
    return ids[position] if position < len(ids) else position


def _same_lists(a: Wear, b: Wear) -> bool:
    return a.materials == b.materials and (a.lightmaps or []) == (b.lightmaps or [])


# Lines as str.splitlines() cuts cp1251 text, and the bytes str.strip() removes (cp1251 0xA0 is a no-break space).
_LINE = re.compile(rb"([^\n\r\x0b\x0c\x1c-\x1e]*)(\r\n|[\n\r\x0b\x0c\x1c-\x1e])?")
_BREAKS = (b"\n", b"\r", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e")
_NOT_BLANK = re.compile(rb"[^\t\n\x0b\x0c\r\x1c-\x1f \xa0]")


def _decode(raw: bytes) -> str:  # one place every line is decoded (tests/test_cli_hardening.py counts the bytes)
    return game_text(raw)


def _blank_run(buffer, start: int) -> tuple[int, int, int]:
    """From ``start``: where text resumes (or the end), the line breaks before it, and where its line starts
    (relative to ``start``; 0 when the text is on the first line)."""
    found = _NOT_BLANK.search(buffer, start)
    end = len(buffer) if found is None else found.start()
    blank = bytes(buffer[start:end])
    breaks = sum(blank.count(b) for b in _BREAKS) - blank.count(b"\r\n")
    return end, breaks, max(blank.rfind(b) for b in _BREAKS) + 1


class BlankRuns:
    """Blank runs already scanned, by where they start in the bytes an archive was read from. The WEAR checks of
    one archive share one, so that entries whose payloads share bytes scan each run once, not once per entry.
    Holds the bytes it has seen: keep it for one validation."""

    def __init__(self) -> None:
        self._runs: dict[tuple[int, int], tuple[int, int, int]] = {}
        self._buffers: dict[int, bytes] = {}

    def run(self, view: memoryview, start: int) -> tuple[int, int, int]:
        """``_blank_run(view, start)``, from the scan of the underlying bytes when ``view`` is a slice of them."""
        base = view.obj
        if not isinstance(base, bytes) or not len(view):
            return _blank_run(view, start)
        offset = np.frombuffer(view, np.uint8).ctypes.data - np.frombuffer(base, np.uint8).ctypes.data
        if not 0 <= offset <= len(base) - len(view):
            return _blank_run(view, start)
        self._buffers[id(base)] = base  # its id stays its own while it is held
        key = (id(base), offset + start)
        if key not in self._runs:
            self._runs[key] = _blank_run(base, offset + start)
        end, breaks, line_start = self._runs[key]
        if end - offset > len(view):  # the text resumes past this entry: blank to its end
            return len(view), breaks, line_start
        return end - offset, breaks, line_start


class _Lines:
    """The payload's lines, read one at a time where they are needed, and blank runs skipped in one scan: the
    work follows what the grammar reads, not the payload's size (entries may share one large payload)."""

    def __init__(self, data: bytes | memoryview, runs: BlankRuns | None = None) -> None:
        self.view = memoryview(data).cast("B") if isinstance(data, memoryview) else data
        self.runs = runs
        self.position = 0  # the byte where the current line starts
        self.number = 0    # the current line, from 0

    def current(self, limit: int | None = None) -> str | None:
        """The current line (None past the end); with ``limit``, at most that many bytes of it."""
        if self.position >= len(self.view):
            return None
        end = len(self.view) if limit is None else min(len(self.view), self.position + limit)
        return _decode(_LINE.match(self.view, self.position, end).group(1))

    def advance(self) -> None:
        if self.position < len(self.view):
            self.position = _LINE.match(self.view, self.position).end()
            self.number += 1

    def skip_blank(self) -> None:
        """On to the first line holding text (or the end)."""
        if self.runs is not None and isinstance(self.view, memoryview):
            end, breaks, line_start = self.runs.run(self.view, self.position)
        else:
            end, breaks, line_start = _blank_run(self.view, self.position)
        if end >= len(self.view):
            self.position = len(self.view)
        elif line_start:
            self.number += breaks
            self.position += line_start


def parse_wear(data: bytes | memoryview, source: str = "") -> Wear:
    """Read a WEAR text; FormatError naming the line where it breaks the grammar of section 8.1."""
    return _parse(data, source)[0]


def _parse(data: bytes | memoryview, source: str = "", keep: bool = True,
           runs: BlankRuns | None = None) -> tuple[Wear, int | None]:
    """The list, and the number (from 1) of a LIGHTMAPS line without a blank line before it, if any.
    ``keep``: the Wear keeps a copy of the bytes (to write them back unchanged)."""
    lines = _Lines(data, runs)

    def fail(message: str) -> FormatError:
        return FormatError.single(STREAM, lines.number + 1 if lines.current() is not None else None, message, source)

    def count(what: str, least: int = 1) -> int:
        value = (lines.current(COUNT_LINE_BYTES) or "").strip()  # a longer line is no count: not read whole
        if not value.lstrip("-").isdigit() or len(value) > 18 or int(value) < least:  # 18 digits: Python's int()
            raise fail(f"line {lines.number + 1}: {what} {value!r} is not a count of at least {least} "
                       f"(\"Illegal {what}.\")")
        lines.advance()
        return int(value)

    def rows(n: int, what: str) -> tuple[list[int], list[str]]:
        ids, names = [], []
        for _ in range(n):
            line = lines.current()
            # whitespace-delimited, as fparkan reads every retail list (spec/retail-envelope.md 7): a TAB too
            head, name = [*re.split(r"\s+", (line or "").strip(), maxsplit=1), ""][:2]
            if not head.lstrip("-").isdigit() or len(head) > 18 or not name.strip():
                found = [] if line is None else [line]
                raise fail(f"line {lines.number + 1}: expected '<id> <{what} name>', found {found}")
            ids.append(int(head))
            names.append(name.strip())
            lines.advance()
        return ids, names

    ids, materials = rows(count("wear length"), "material")
    after_rows = lines.number
    lines.skip_blank()
    lightmaps, lightmap_ids, unseparated = None, [], None
    if (lines.current() or "").strip().upper() == LIGHTMAPS:
        if lines.number == after_rows:
            unseparated = lines.number + 1
        lines.advance()
        # a lightmap count of 0 is read (no source says whether one ships; the wear length stays >= 1, as on
        # all 534 retail lists: spec/retail-envelope.md 7)
        lightmap_ids, lightmaps = rows(count("lightmaps length", 0), "lightmap")
        lines.skip_blank()
    if lines.current() is not None:
        raise fail(f"line {lines.number + 1}: unexpected text after the lists: {lines.current().strip()!r}")
    raw = bytes(data) if keep else None
    newline = "\r\n" if raw is None or b"\r\n" in raw else "\n"
    return Wear(materials, lightmaps, raw, (ids, lightmap_ids), newline), unseparated


def validate_wear(data: bytes | memoryview, runs: BlankRuns | None = None) -> list[Finding]:
    """Section 12.3: the grammar, and the blank line the buffer parser needs before LIGHTMAPS. ``runs``: shared
    by the checks of one archive's entries (see BlankRuns)."""
    try:
        wear, unseparated = _parse(data, keep=False, runs=runs)
    except FormatError as exc:
        return exc.findings
    out = []
    if unseparated is not None:
        out.append(warning(STREAM, unseparated, "no blank line before LIGHTMAPS: the runtime's buffer parser "
                                                "misreads the lightmap count"))
    if wear.lightmaps == []:
        out.append(warning(STREAM, None, "LIGHTMAPS section with a count of 0 (kept as read)"))
    return out


def _stem(name: bytes) -> bytes:
    return fold(name).rsplit(b".", 1)[0]


def wear_entry(archive: Archive | None, model_name: str) -> Entry | None:
    """The model's WEAR entry (see ``own_list``): of exactly its name stem, else the only one of its stem in
    any case, else the archive's only list; never the list of another model in the archive."""
    if archive is None:
        return None
    wears = archive.of_type(WEAR_TYPE_ID)
    chosen = own_list(model_name.encode("cp1251", "replace"), [e.name for e in wears],
                      [e.name for e in archive.models()], only_one=True)
    return None if chosen is None else wears[chosen]


def own_list(model: bytes, lists: list[bytes], models: list[bytes], only_one: bool = False) -> int | None:
    """Which of the material lists ``lists`` (names) is the model's, among ``models`` (the names of the models
    beside it; the game's lookup ignores case, so ``a.wea`` may be ``A.msh``'s, unless a model ``a.msh`` is
    there): the list of exactly its name stem; else the only one of its stem in any case that is not exactly
    another model's; else, with ``only_one``, the only list when it has no other model's stem in any case.
    None when none qualifies or several do."""
    stem = _exact_stem(model)
    exact = [i for i, name in enumerate(lists) if _exact_stem(name) == stem]
    if exact:
        return exact[0]
    others = {_exact_stem(m) for m in models} - {stem}
    folded = [i for i, name in enumerate(lists) if _stem(name) == _stem(model) and _exact_stem(name) not in others]
    if folded:
        return folded[0] if len(folded) == 1 else None
    if only_one and len(lists) == 1 and _stem(lists[0]) not in {fold(m) for m in others}:
        return 0
    return None


def _exact_stem(name: bytes) -> bytes:
    return bytes(name).rsplit(b".", 1)[0]
