"""The ``Tfnt`` font (world-digest W83-W86): four header words, 256 glyph records (u0, u1, v0 as f32, the
advance in pixels), then the atlas, a Texm whose texels are palette indices (format 0: the Texm's own palette;
format 2: ``PAL.PAL``'s). Every byte is kept: the records as read (placeholders too) and the atlas as stored."""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from ..appearance.texm import HEADER as TEXM_HEADER
from ..appearance.texm import MAGIC as TEXM_MAGIC
from ..appearance.texm import PALETTE_SIZE, parse_texm, pixel_count
from ..errors import Finding, FormatError, error, warning
from .palette import Palette

MAGIC = b"Tfnt"
STREAM = "Tfnt"
HEADER = np.dtype([("cell_width", "<i4"), ("glyph_height", "<i4"), ("cell_height", "<f4"), ("pen_extra", "<i4")])
GLYPH = np.dtype([("u0", "<f4"), ("u1", "<f4"), ("v0", "<f4"), ("advance", "<i4")])
GLYPHS = 256
ATLAS_AT = 4 + HEADER.itemsize + GLYPHS * GLYPH.itemsize  # 4116
EXTERNAL_PALETTE = 2  # atlas format 2: indices into PAL.PAL (W85)
ALPHA_SURFACE = 0x1000000  # Texm +0x14: index 0 drawn transparent


def is_font(data: bytes | memoryview) -> bool:
    return bytes(data[:4]) == MAGIC


@dataclass(eq=False)
class Font:
    header: np.ndarray   # one HEADER record: cell width, glyph height, cell height (texture units), pen extra
    glyphs: np.ndarray   # 256 GLYPH records, indexed by the string's byte (W84)
    atlas: bytes         # the Texm, as stored

    def atlas_info(self) -> tuple[int, int, int, int, int]:
        """The atlas's width, height, mip count, +0x14 flags and format."""
        if len(self.atlas) < TEXM_HEADER.size or self.atlas[:4] != TEXM_MAGIC:
            raise FormatError.single(STREAM, None, "the atlas is not a Texm")
        _, width, height, mips, _, flags5, _, fmt = TEXM_HEADER.unpack_from(self.atlas)
        return width, height, mips, flags5, fmt

    def indices(self) -> np.ndarray:
        """The atlas's first level as palette indices, (height, width); formats 0 and 2 only."""
        width, height, mips, _, fmt = self.atlas_info()
        if fmt not in (0, EXTERNAL_PALETTE):
            raise FormatError.single(STREAM, None, f"atlas format {fmt} holds colours, not palette indices")
        start = TEXM_HEADER.size + (PALETTE_SIZE if fmt == 0 else 0)
        if not width or not height or start + pixel_count(width, height, max(mips, 1)) > len(self.atlas):
            raise FormatError.single(STREAM, None, f"the {width}x{height} atlas needs more bytes than the font has")
        return np.frombuffer(self.atlas, np.uint8, width * height, start).reshape(height, width)

    def rgba(self, palette: Palette | None = None) -> np.ndarray:
        """The atlas as RGBA8 (height, width, 4); index 0 transparent on an alpha surface. Format 2 needs
        ``palette`` (PAL.PAL); format 0 has its own."""
        *_, flags5, fmt = self.atlas_info()
        if fmt not in (0, EXTERNAL_PALETTE):
            return parse_texm(self.atlas).decode()
        if fmt == EXTERNAL_PALETTE and palette is None:
            raise FormatError.single(STREAM, None, "the atlas (format 2) draws with PAL.PAL's colours; no PAL.PAL "
                                                   "was found beside it")
        indices = self.indices()
        if fmt == 0:
            colours = np.frombuffer(self.atlas, np.uint8, PALETTE_SIZE, TEXM_HEADER.size).reshape(256, 4)
            table = np.full((256, 4), 255, np.uint8)
            table[:, :3] = colours[:, [2, 1, 0]]
        else:
            table = palette.rgba()
        out = table[indices]
        if flags5 & ALPHA_SURFACE:
            out[indices == 0, 3] = 0
        return out

    def to_bytes(self) -> bytes:
        header = np.asarray(self.header, HEADER).reshape(1)
        glyphs = np.asarray(self.glyphs, GLYPH)
        if len(glyphs) != GLYPHS:
            raise FormatError.single(STREAM, None, f"{len(glyphs)} glyph records; a font has {GLYPHS}")
        return MAGIC + header.tobytes() + glyphs.tobytes() + bytes(self.atlas)


def parse_font(data: bytes | memoryview, source: str = "") -> Font:
    """Read a ``Tfnt``; FormatError when the header, the records or the atlas header are not all there."""
    data = bytes(data)
    if data[:4] != MAGIC:
        raise FormatError.single(STREAM, None, f"bad magic {data[:4]!r}, expected {MAGIC!r}", source)
    if len(data) < ATLAS_AT + TEXM_HEADER.size:
        raise FormatError.single(STREAM, None, f"{len(data)} bytes; a font's header, {GLYPHS} glyph records and "
                                               f"its atlas's header need {ATLAS_AT + TEXM_HEADER.size}", source)
    header = np.frombuffer(data, HEADER, 1, 4).copy()[0]
    glyphs = np.frombuffer(data, GLYPH, GLYPHS, 4 + HEADER.itemsize).copy()
    return Font(header, glyphs, data[ATLAS_AT:])


def validate_font(font: Font) -> list[Finding]:
    """The atlas's size against the font's bytes (an error: the game reads past it), then what the game draws
    oddly: a drawn glyph whose texel span is not its advance + 1, a cell height that is not (glyph height + 1) /
    atlas height (true of all eleven shipped fonts: W83)."""
    try:
        width, height, mips, _, fmt = font.atlas_info()
    except FormatError as exc:
        return exc.findings
    findings: list[Finding] = []
    bpp = {0: 1, EXTERNAL_PALETTE: 1}.get(fmt)
    if bpp is None:
        try:
            parse_texm(font.atlas)
        except FormatError as exc:
            return [error(STREAM, None, f"atlas: {f.message}") for f in exc.findings]
    elif not width or not height or not mips:
        return [error(STREAM, None, f"atlas of {width}x{height} with {mips} levels")]
    else:
        need = TEXM_HEADER.size + (PALETTE_SIZE if fmt == 0 else 0) + pixel_count(width, height, mips)
        if need > len(font.atlas):
            return [error(STREAM, None, f"the {width}x{height} atlas (format {fmt}, {mips} levels) needs {need} bytes;"
                                        f" the font holds {len(font.atlas)}")]
        if need < len(font.atlas):
            findings.append(warning(STREAM, None, f"{len(font.atlas) - need} bytes after the atlas (kept)"))
    expected = (int(font.header["glyph_height"]) + 1) / height
    if abs(float(font.header["cell_height"]) - expected) > 1e-6:
        findings.append(warning(STREAM, None, f"cell height {float(font.header['cell_height']):g} is not (glyph height"
                                              f" + 1) / atlas height = {expected:g}"))
    glyphs = font.glyphs
    with np.errstate(all="ignore"):
        span = (glyphs["u1"].astype(np.float64) - glyphs["u0"]) * width
    odd = np.flatnonzero(np.isfinite(span) & (np.abs(span - glyphs["advance"] - 1) > 0.01) & (span > 0))
    for index in odd[:10]:
        findings.append(warning("glyph", int(index), f"spans {span[index]:g} texels, advance {glyphs['advance'][index]}"
                                                     " + 1 expected"))
    if len(odd) > 10:
        findings.append(warning("glyph", None, f"{len(odd)} glyphs span other than advance + 1 texels (10 listed)"))
    return findings


def font_bytes(header: tuple[int, int, float, int], glyphs: np.ndarray, atlas: bytes) -> bytes:
    """A font's bytes from its parts (the generator's and an editor's way in)."""
    record = np.array([header], HEADER)
    return Font(record[0], np.asarray(glyphs, GLYPH), atlas).to_bytes()


def texm_header(width: int, height: int, fmt: int, flags5: int = ALPHA_SURFACE) -> bytes:
    """A one-level atlas's 32-byte Texm header."""
    return struct.pack("<4s7I", TEXM_MAGIC, width, height, 1, 0, flags5, 0, fmt)
