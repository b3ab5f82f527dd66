"""``PAL.PAL`` (world-digest W85): 256 colours as B, G, R, 0; the tag ``Ipol``; a 256 x 256 table naming the
index of the mixture of two indices, which nothing in the shipped game uses (kept as read)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import FormatError

COLOURS_SIZE = 256 * 4
TAG = b"Ipol"
BLEND_SIZE = 256 * 256
PAL_SIZE = COLOURS_SIZE + len(TAG) + BLEND_SIZE  # 66 564 (W20)
STREAM = "PAL"


def is_palette(data: bytes | memoryview) -> bool:
    return len(data) == PAL_SIZE and bytes(data[COLOURS_SIZE:COLOURS_SIZE + 4]) == TAG


@dataclass(eq=False)
class Palette:
    colours: np.ndarray  # (256, 4) uint8: B, G, R and the fourth byte, as stored
    blend: np.ndarray    # (256, 256) uint8
    tag: bytes = TAG

    def rgba(self) -> np.ndarray:
        """(256, 4) RGBA8, opaque."""
        out = np.full((256, 4), 255, np.uint8)
        out[:, :3] = self.colours[:, [2, 1, 0]]
        return out

    def to_bytes(self) -> bytes:
        colours = np.asarray(self.colours, np.uint8)
        blend = np.asarray(self.blend, np.uint8)
        if colours.shape != (256, 4) or blend.shape != (256, 256) or len(self.tag) != 4:
            raise FormatError.single(STREAM, None, f"a palette holds 256 x 4 colour bytes, a 4-byte tag and a 256 x "
                                                   f"256 table, not {colours.shape}, {len(self.tag)}, {blend.shape}")
        return colours.tobytes() + bytes(self.tag) + blend.tobytes()


def parse_palette(data: bytes | memoryview, source: str = "") -> Palette:
    """Read ``PAL.PAL``; FormatError for any other size (every shipped copy is 66 564 bytes: W20)."""
    data = bytes(data)
    if len(data) != PAL_SIZE:
        raise FormatError.single(STREAM, None, f"{len(data)} bytes; a palette is {PAL_SIZE}", source)
    colours = np.frombuffer(data, np.uint8, COLOURS_SIZE).reshape(256, 4).copy()
    blend = np.frombuffer(data, np.uint8, BLEND_SIZE, COLOURS_SIZE + 4).reshape(256, 256).copy()
    return Palette(colours, blend, data[COLOURS_SIZE:COLOURS_SIZE + 4])
