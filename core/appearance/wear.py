"""A model's material list: the ``WEAR`` text entry (materials-texm.md section 8; digest fact 17).

Grammar: a count, then ``legacyId name`` rows looked up by position (the id
is read and ignored), then optionally a blank line, ``LIGHTMAPS``, a count
and rows. The text is cp1251. An unchanged list writes back its own bytes;
a changed one is written with the original's line ending, with the blank
line before ``LIGHTMAPS`` that the runtime's buffer parser needs (8.2).

Which WEAR entry belongs to which model is decided here too: the one
sharing the model's name stem, else the only one in the archive.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..container.nres import Archive, Entry, fold
from ..errors import Finding, FormatError, error, warning

WEAR_TYPE_ID = int.from_bytes(b"WEAR", "little")
WEAR_ATTRS = {"attr1": 0, "attr2": 0, "attr3": 1}  # every retail WEAR entry (section 13.4)
STREAM = "WEAR"
LIGHTMAPS = "LIGHTMAPS"
NO_LIGHTMAP = 0xFF  # batch byte +5 without a lightmap (digest fact 18)


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
            return text.encode("cp1251")
        except UnicodeEncodeError as exc:
            raise FormatError.single(STREAM, None, f"material name {text[exc.start:exc.end]!r} cannot be stored "
                                                   "in code page 1251") from None


def _id(ids: list[int], position: int) -> int:
    return ids[position] if position < len(ids) else position


def _same_lists(a: Wear, b: Wear) -> bool:
    return a.materials == b.materials and (a.lightmaps or []) == (b.lightmaps or [])


def parse_wear(data: bytes | memoryview, source: str = "") -> Wear:
    """Read a WEAR text; FormatError naming the line where it breaks the grammar of section 8.1."""
    raw = bytes(data)
    text = raw.decode("cp1251", "replace")
    lines = text.splitlines()
    cursor = 0

    def fail(message: str) -> FormatError:
        return FormatError.single(STREAM, cursor + 1 if cursor < len(lines) else None, message, source)

    def count(what: str) -> int:
        nonlocal cursor
        value = lines[cursor].strip() if cursor < len(lines) else ""
        if not value.lstrip("-").isdigit() or int(value) <= 0:
            raise fail(f"line {cursor + 1}: {what} {value!r} is not a count above 0 (\"Illegal {what}.\")")
        cursor += 1
        return int(value)

    def rows(n: int, what: str) -> tuple[list[int], list[str]]:
        nonlocal cursor
        ids, names = [], []
        for _ in range(n):
            head, _, name = (lines[cursor] if cursor < len(lines) else "").strip().partition(" ")
            if not head.lstrip("-").isdigit() or not name.strip():
                raise fail(f"line {cursor + 1}: expected '<id> <{what} name>', found {lines[cursor:cursor + 1]}")
            ids.append(int(head))
            names.append(name.strip())
            cursor += 1
        return ids, names

    ids, materials = rows(count("wear length"), "material")
    while cursor < len(lines) and not lines[cursor].strip():
        cursor += 1
    lightmaps, lightmap_ids = None, []
    if cursor < len(lines) and lines[cursor].strip().upper() == LIGHTMAPS:
        cursor += 1
        lightmap_ids, lightmaps = rows(count("lightmaps length"), "lightmap")
    if any(line.strip() for line in lines[cursor:]):
        raise fail(f"line {cursor + 1}: unexpected text after the lists: {lines[cursor].strip()!r}")
    newline = "\r\n" if "\r\n" in text else "\n"
    return Wear(materials, lightmaps, raw, (ids, lightmap_ids), newline)


def validate_wear(data: bytes | memoryview) -> list[Finding]:
    """Section 12.3: the grammar, and the blank line the buffer parser needs before LIGHTMAPS."""
    try:
        parse_wear(data)
    except FormatError as exc:
        return exc.findings
    lines = bytes(data).decode("cp1251", "replace").splitlines()
    out = []
    for i, line in enumerate(lines):
        if line.strip().upper() == LIGHTMAPS and (i == 0 or lines[i - 1].strip()):
            out.append(warning(STREAM, i + 1, "no blank line before LIGHTMAPS: the runtime's buffer parser "
                                              "misreads the lightmap count"))
    if not out and not lines:
        out.append(error(STREAM, None, "empty material list"))
    return out


def _stem(name: bytes) -> bytes:
    return fold(name).rsplit(b".", 1)[0]


def wear_entry(archive: Archive | None, model_name: str) -> Entry | None:
    """The model's WEAR entry: the one sharing its name stem, else the archive's only one."""
    if archive is None:
        return None
    wears = archive.of_type(WEAR_TYPE_ID)
    stem = _stem(model_name.encode("cp1251", "replace"))
    match = [e for e in wears if _stem(e.name) == stem]
    return match[0] if match else (wears[0] if len(wears) == 1 else None)
