"""Synthetic RsLi archives (world-digest section 1) shaped as the two the game ships: a font archive
(``PAL.PAL`` and a format-2 ``Tfnt``, LZSS, as gamefont.rlb) and a sprite archive (ARGB4444 Texm pictures,
Deflate, as sprites.lib)."""

from __future__ import annotations

import numpy as np

from ..appearance.texm import encode_texm
from ..rsli import DEFLATE, LZSS, Archive
from .fonts import sample_font, sample_palette

FONT_SEED = 0x5A3C
SPRITE_SEED = 0x1234


def gamefont_archive() -> Archive:
    archive = Archive(seed=FONT_SEED)
    archive.add("PAL.PAL", sample_palette().to_bytes(), LZSS)
    archive.add("ARIALTEX.TFT", sample_font(), LZSS)
    return archive


def sprite_picture(size: int, hue: int) -> np.ndarray:
    """A size x size cockpit-like picture: a dark frame, a ring and cross hairs in one colour, a clear middle."""
    y, x = np.mgrid[0:size, 0:size]
    centre = (size - 1) / 2
    radius = np.hypot(x - centre, y - centre)
    colour = np.array([(hue * 67) % 256, (hue * 131 + 90) % 256, (hue * 29 + 160) % 256, 255], np.uint8)
    out = np.zeros((size, size, 4), np.uint8)
    frame = (np.minimum(x, y) < 3) | (np.maximum(x, y) > size - 4)
    out[frame] = (40, 44, 48, 255)
    ring = np.abs(radius - size * 0.35) < 1.5
    hairs = ((np.abs(x - centre) < 1) | (np.abs(y - centre) < 1)) & (radius > size * 0.1) & (radius < size * 0.3)
    out[ring | hairs] = colour
    return out


def sprites_archive() -> Archive:
    archive = Archive(seed=SPRITE_SEED)
    for hue, (name, size) in enumerate((("COCKPIT.TEX", 64), ("LOGO.TEX", 32), ("INTERF1.TEX", 64))):
        archive.add(name, encode_texm(sprite_picture(size, hue), 4444, mips=False).to_bytes(), DEFLATE)
    return archive


def rsli_files() -> dict[str, bytes]:
    """The samples' RsLi archives, by their names in samples/."""
    return {"gamefont.rlb": gamefont_archive().to_bytes(), "sprites.lib": sprites_archive().to_bytes()}
