"""The pictures an archive holds, for ``batch textures``: each Texm entry, and each font's atlas (drawn with the
``PAL.PAL`` beside it when its format needs one), of an NRes library or an RsLi archive (sprites.lib,
gamefont.rlb: world-digest W19-W20)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..appearance.texm import MAGIC as TEXM_MAGIC
from ..appearance.texm import TEXM_TYPE_ID, parse_texm
from ..container.nres import Archive as NResArchive
from ..errors import FormatError
from ..rsli import Archive as RsLiArchive
from ..rsli import is_rsli
from .palette import is_palette, parse_palette
from .tfnt import is_font, parse_font


@dataclass(frozen=True)
class Picture:
    index: int  # the entry's (member's) row
    name: str
    font: bool  # a font's atlas, not a texture


def _payloads(data: bytes, source: str) -> list[tuple[str, bytes | None, int]]:
    """(name, payload or None when it does not unpack, NRes type id or 0) per row."""
    if is_rsli(data):
        rows = []
        for member in RsLiArchive.parse(data, source).members:
            unpacked, findings = member.unpack()
            rows.append((member.name_str, None if any(f.is_error for f in findings) else unpacked, 0))
        return rows
    return [(e.name_str, e.data, e.type_id) for e in NResArchive.parse(data, source).entries]


def pictures_in(data: bytes, source: str = "") -> list[Picture]:
    """The pictures of an archive's bytes, in row order; FormatError when the archive does not read."""
    out = []
    for index, (name, payload, type_id) in enumerate(_payloads(data, source)):
        if payload is None:
            continue
        if type_id == TEXM_TYPE_ID or (type_id == 0 and bytes(payload[:4]) == TEXM_MAGIC):
            out.append(Picture(index, name, False))
        elif is_font(payload):
            out.append(Picture(index, name, True))
    return out


def picture_rgba(data: bytes, index: int, source: str = "") -> np.ndarray:
    """Row ``index``'s picture as RGBA8 (height, width, 4); FormatError naming the entry when it does not
    decode (a format-2 atlas without a PAL.PAL in the same archive, ...)."""
    rows = _payloads(data, source)
    name, payload, _ = rows[index]
    try:
        if payload is None:
            raise FormatError.single("entry", index, "does not unpack")
        if not is_font(payload):
            return parse_texm(payload).decode()
        palette = next((parse_palette(p) for _, p, _ in rows if p is not None and is_palette(p)), None)
        return parse_font(payload).rgba(palette)
    except FormatError as exc:
        raise FormatError([f.located(name) for f in exc.findings], source) from None
