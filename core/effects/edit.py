"""Explosion edits spliced into the archive that holds them: only the fields edited change, every other byte of
the member and every other entry is kept (the write path then writes the archive, or nothing when the bytes are
the ones read)."""

from __future__ import annotations

import numbers

from ..container.nres import Archive
from ..errors import FormatError
from .exp import EXP_TYPE_ID, parse_exp

STREAM = "exp"
INTEGER_FIELDS = ("kind", "placement")
FLOAT_FIELDS = ("damage", "radius")
EDITABLE = INTEGER_FIELDS + FLOAT_FIELDS


def edit_explosion(archive: Archive, member: str, fields: dict, source: str = "") -> bool:
    """Set ``fields`` (kind, placement: integers; damage, radius: numbers) of the explosion ``member``; whether its
    bytes changed. FormatError naming the member for one that is not there or not an explosion, a field that is
    not editable or a value of the wrong type (nothing is changed then)."""
    entry = archive.find(member)
    if entry is None:
        raise FormatError.single(STREAM, None, f"explosion {member!r} is not in the archive", source)
    if entry.type_id != EXP_TYPE_ID:
        raise FormatError.single(STREAM, None, f"entry {member!r} is not an explosion (EXPL)", source)
    for name, value in fields.items():
        if name not in EDITABLE:
            raise FormatError.single(STREAM, None, f"{member}: {name!r} is not an editable field of an explosion "
                                                   f"({', '.join(EDITABLE)})", source)
        wanted = numbers.Integral if name in INTEGER_FIELDS else numbers.Real
        if isinstance(value, bool) or not isinstance(value, wanted):
            raise FormatError.single(STREAM, None, f"{member}: {name} must be "
                                                   f"{'a whole number' if name in INTEGER_FIELDS else 'a number'}, "
                                                   f"not {value!r}", source)
        if name in INTEGER_FIELDS and not -2 ** 31 <= value < 2 ** 31:
            raise FormatError.single(STREAM, None, f"{member}: {name} {value} does not fit an i32", source)
    explosion = parse_exp(entry.data, f"{source}:{member}")
    for name, value in fields.items():
        explosion.set(name, value)
    data = explosion.to_bytes()
    if data == bytes(entry.data):
        return False
    entry.data = data
    return True
