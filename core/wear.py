"""A model's material list: the ``WEAR`` archive entry (digest fact 8).

The entry is text in code page 1251. Its exact grammar is not documented;
this reader takes, line by line, an optional leading count line and then
either ``INDEX NAME`` or ``NAME``. Which WEAR entry belongs to which model
is decided here too: the one sharing the model's name stem, else the only
one in the archive.
"""

from __future__ import annotations

from .nres import Archive, fold

WEAR_TYPE_ID = int.from_bytes(b"WEAR", "little")


def parse_wear(data: bytes) -> list[str]:
    lines = [line.strip() for line in bytes(data).decode("cp1251", "replace").splitlines() if line.strip()]
    if lines and lines[0].isdigit() and (len(lines) == 1 or " " in lines[1] or len(lines) - 1 == int(lines[0])):
        lines = lines[1:]
    names: dict[int, str] = {}
    for position, line in enumerate(lines):
        head, _, rest = line.partition(" ")
        if head.isdigit() and rest.strip():
            names[int(head)] = rest.strip()
        else:
            names[position] = line
    return [names.get(i, "") for i in range(max(names) + 1)] if names else []


def _stem(name: bytes) -> bytes:
    return fold(name).rsplit(b".", 1)[0]


def material_names(archive: Archive | None, model_name: str) -> list[str]:
    """The model's material names by WEAR index, or [] when the archive holds no matching list."""
    if archive is None:
        return []
    wears = archive.of_type(WEAR_TYPE_ID)
    stem = _stem(model_name.encode("cp1251", "replace"))
    match = [e for e in wears if _stem(e.name) == stem]
    entry = match[0] if match else (wears[0] if len(wears) == 1 else None)
    return parse_wear(entry.data) if entry is not None else []
