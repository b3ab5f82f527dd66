"""Synthetic fonts and palettes (world-digest section 6): a ``PAL.PAL`` and ``Tfnt`` fonts whose atlases hold
letters and digits drawn from a 3 x 5 pattern, doubled, with the dark-grey shadow the game's fonts have."""

from __future__ import annotations

import numpy as np

from ..fonts.palette import Palette
from ..fonts.tfnt import ALPHA_SURFACE, EXTERNAL_PALETTE, GLYPH, GLYPHS, font_bytes, texm_header

WHITE, SHADOW = 254, 51  # the indices the shipped atlases draw with (W85)
ATLAS = 128
CELL_W, CELL_H = 8, 12
FIRST = 0x20

_PATTERNS = {  # five rows of three
    "A": ".#. #.# ### #.# #.#", "B": "##. #.# ##. #.# ##.", "C": ".## #.. #.. #.. .##", "D": "##. #.# #.# #.# ##.",
    "E": "### #.. ##. #.. ###", "F": "### #.. ##. #.. #..", "G": ".## #.. #.# #.# .##", "H": "#.# #.# ### #.# #.#",
    "I": "### .#. .#. .#. ###", "J": "..# ..# ..# #.# .#.", "K": "#.# #.# ##. #.# #.#", "L": "#.. #.. #.. #.. ###",
    "M": "#.# ### ### #.# #.#", "N": "##. #.# #.# #.# #.#", "O": ".#. #.# #.# #.# .#.", "P": "##. #.# ##. #.. #..",
    "Q": ".#. #.# #.# ##. .##", "R": "##. #.# ##. #.# #.#", "S": ".## #.. .#. ..# ##.", "T": "### .#. .#. .#. .#.",
    "U": "#.# #.# #.# #.# ###", "V": "#.# #.# #.# #.# .#.", "W": "#.# #.# ### ### #.#", "X": "#.# #.# .#. #.# #.#",
    "Y": "#.# #.# .#. .#. .#.", "Z": "### ..# .#. #.. ###", "0": "### #.# #.# #.# ###", "1": ".#. ##. .#. .#. ###",
    "2": "##. ..# .#. #.. ###", "3": "##. ..# .#. ..# ##.", "4": "#.# #.# ### ..# ..#", "5": "### #.. ##. ..# ##.",
    "6": ".## #.. ### #.# ###", "7": "### ..# .#. .#. .#.", "8": "### #.# ### #.# ###", "9": "### #.# ### ..# ##.",
    ".": "... ... ... ... .#.", ",": "... ... ... .#. #..", "!": ".#. .#. .#. ... .#.", "?": "##. ..# .#. ... .#.",
    "-": "... ... ### ... ...", ":": "... .#. ... .#. ...", "'": ".#. .#. ... ... ...", "/": "..# ..# .#. #.. #..",
}


def sample_palette() -> Palette:
    """A palette: a grey ramp with a few colours, and a blend table naming the index between two (symmetric,
    the diagonal the identity)."""
    colours = np.zeros((256, 4), np.uint8)
    ramp = np.arange(256, dtype=np.uint8)
    colours[:, 0] = colours[:, 1] = colours[:, 2] = ramp
    colours[1:16, :3] = [[(i * 53) % 256, (i * 97) % 256, (i * 151) % 256] for i in range(1, 16)]
    colours[WHITE, :3] = 255
    colours[SHADOW, :3] = 48
    i, j = np.meshgrid(ramp.astype(np.int32), ramp.astype(np.int32), indexing="ij")
    return Palette(colours, ((i + j) // 2).astype(np.uint8))


def glyph_pattern(char: str) -> np.ndarray | None:
    """The 5 x 3 pattern of ``char`` (lowercase drawn as uppercase), or None for one without."""
    pattern = _PATTERNS.get(char.upper())
    if pattern is None:
        return None
    return np.array([[c == "#" for c in row] for row in pattern.split()])


def _atlas_indices() -> tuple[np.ndarray, np.ndarray]:
    """The atlas's indices and the glyph records: bytes 0x20-0x7F in cells of 8 x 12, sixteen to a row."""
    pixels = np.zeros((ATLAS, ATLAS), np.uint8)
    glyphs = np.zeros(GLYPHS, GLYPH)
    glyphs["advance"] = CELL_W  # placeholders, as gamefont's (W83)
    for code in range(FIRST, 0x80):
        x, y = (code - FIRST) % 16 * CELL_W, (code - FIRST) // 16 * CELL_H
        glyphs[code] = (x / ATLAS, (x + CELL_W) / ATLAS, y / ATLAS, CELL_W - 1)
        pattern = glyph_pattern(chr(code))
        if pattern is None:
            continue
        big = np.kron(pattern, np.ones((2, 2), bool))  # 10 x 6
        cell = pixels[y:y + CELL_H, x:x + CELL_W]
        cell[2:12, 2:8][big] = SHADOW
        cell[1:11, 1:7][big] = WHITE
    return pixels, glyphs


def sample_font(fmt: int = EXTERNAL_PALETTE) -> bytes:
    """A ``Tfnt`` of 96 drawn glyphs over a 128 x 128 atlas: format 2 (PAL.PAL's colours, as gamefont.rlb's)
    or format 0 (its own palette, as sys.lib's)."""
    pixels, glyphs = _atlas_indices()
    atlas = texm_header(ATLAS, ATLAS, fmt, ALPHA_SURFACE)
    if fmt == 0:
        atlas += sample_palette().colours.tobytes()
    elif fmt != EXTERNAL_PALETTE:
        raise ValueError(f"fonts are drawn in formats 0 and 2, not {fmt}")
    atlas += pixels.tobytes()
    return font_bytes((CELL_W, CELL_H - 1, CELL_H / ATLAS, 1), glyphs, atlas)
