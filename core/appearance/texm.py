"""The Texm texture (fparkan docs/specs/materials-texm.md section 10): read, write, decode, encode.

A texture is a 32-byte header, a 1024-byte palette for format 0, the whole
mip chain, and an optional ``Page`` chunk of atlas rectangles. Every field
is kept as read (flags4, flags5, unk6, the 888 pad byte, the palette's
fourth byte), so that ``parse_texm(data).to_bytes() == data``.

Pixels decode to RGBA8 arrays of shape (height, width, 4), row 0 being the
file's first row (the top of the picture in Direct3D terms, as retail-data readers found).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from functools import cache

import numpy as np

from ..errors import Finding, FormatError, error, warning

TEXM_TYPE_ID = int.from_bytes(b"Texm", "little")
MAGIC = b"Texm"
PAGE_MAGIC = b"Page"
HEADER = struct.Struct("<4s7I")  # magic, width, height, mip_count, flags4, flags5, unk6, format
PALETTE_SIZE = 256 * 4
STREAM = "Texm"
# Bytes per pixel by format (section 10.3); any other format is laid out as 4 bytes but not decodable.
BYTES_PER_PIXEL = {0: 1, 565: 2, 556: 2, 4444: 2, 88: 2, 888: 4, 8888: 4}
FORMATS = tuple(BYTES_PER_PIXEL)
PAGE_RECT = np.dtype([("x", "<i2"), ("w", "<i2"), ("y", "<i2"), ("h", "<i2")])


def level_sizes(width: int, height: int, mip_count: int) -> list[tuple[int, int]]:
    """(width, height) of each mip level: max(1, size >> i)."""
    return [(max(1, width >> i), max(1, height >> i)) for i in range(mip_count)]


def max_mip_count(width: int, height: int) -> int:
    """The longest mip chain of a width x height texture: floor(log2(max(width, height))) + 1 levels, the last
    1x1 (a longer chain would repeat 1x1 levels, which Direct3D does not create)."""
    return max(width, height, 1).bit_length()


def pixel_count(width: int, height: int, mip_count: int) -> int:
    """Pixels of the whole chain, without materialising absurd mip counts (past level 63 every level is 1x1; retail
    textures are at most 256 x 256, 9 levels: retail-envelope 5.1)."""
    head = sum(w * h for w, h in level_sizes(width, height, min(mip_count, 64)))
    return head + max(0, mip_count - 64)


@dataclass(eq=False)
class Texture:
    width: int
    height: int
    mip_count: int
    format: int
    pixels: bytes                # every mip level, as stored
    palette: bytes | None = None  # format 0: 256 x (B, G, R, X)
    rects: np.ndarray | None = None  # the Page chunk's (x, w, y, h) rectangles; None: no chunk
    flags4: int = 0
    flags5: int = 0
    unk6: int = 0

    @property
    def bytes_per_pixel(self) -> int:
        return BYTES_PER_PIXEL.get(self.format, 4)

    def levels(self) -> list[tuple[int, int]]:
        """(width, height) of each level; the 1x1 levels a chain declares past 1x1 are listed as one (the
        pixels of all of them are kept as read)."""
        return level_sizes(self.width, self.height, min(self.mip_count, max_mip_count(self.width, self.height)))

    def level_size(self, level: int) -> tuple[int, int]:
        return max(1, self.width >> min(level, 63)), max(1, self.height >> min(level, 63))

    def level_bytes(self, level: int) -> memoryview:
        if not 0 <= level < self.mip_count:
            raise FormatError.single(STREAM, None, f"mip level {level} does not exist ({self.mip_count} levels)")
        start = pixel_count(self.width, self.height, level) * self.bytes_per_pixel
        w, h = self.level_size(level)
        return memoryview(self.pixels)[start:start + w * h * self.bytes_per_pixel]

    def decode(self, level: int = 0) -> np.ndarray:
        """RGBA8 pixels of one mip level, shape (height, width, 4)."""
        if self.format not in BYTES_PER_PIXEL:
            raise FormatError.single(STREAM, None, f"format {self.format} is not one the game reads")
        w, h = self.level_size(level) if 0 <= level < self.mip_count else (0, 0)
        raw = self.level_bytes(level)
        return _DECODERS[self.format](np.frombuffer(raw, np.uint8), self.palette).reshape(h, w, 4)

    def to_bytes(self) -> bytes:
        out = [HEADER.pack(MAGIC, self.width, self.height, self.mip_count, self.flags4, self.flags5,
                           self.unk6, self.format)]
        if self.format == 0:
            out.append(self.palette or bytes(PALETTE_SIZE))
        out.append(self.pixels)
        if self.rects is not None:
            rects = np.asarray(self.rects, PAGE_RECT) if self.rects.dtype != PAGE_RECT else self.rects
            out.append(PAGE_MAGIC + struct.pack("<I", len(rects)) + rects.tobytes())
        return b"".join(out)

    def summary(self) -> dict:
        return {"width": self.width, "height": self.height, "format": self.format, "mips": self.mip_count,
                "flags4": self.flags4, "flags5": self.flags5, "unk6": self.unk6,
                "rects": None if self.rects is None else np.asarray(self.rects).tolist()}

    def cells(self) -> list[tuple[float, float, float, float]]:
        """The runtime's atlas rectangles as Direct3D UV boxes (u0, v0, du, dv), mipSkip 0 (section 10.4).

        Entry 0 is the whole texture, which the runtime always adds; the Page
        chunk's rectangles follow as entries 1..n.
        """
        boxes = [(0.0, 0.0, 1.0, 1.0)]
        if self.rects is not None:
            for x, w, y, h in np.asarray(self.rects).tolist():
                boxes.append((x / self.width, y / self.height, w / self.width, h / self.height))
        return boxes

    def cell(self, index: int) -> tuple[float, float, float, float]:
        """The UV box a material phase's atlas cell (p[17]) shows.

        Decision (materials-texm.md 6.3, 10.4; docs/formats/materials.md): the cell
        indexes the runtime's rectangle list, entry 0 being the whole texture;
        a negative cell (-1, "no atlas") or one past the list shows the whole texture.
        """
        boxes = self.cells()
        return boxes[index] if 0 <= index < len(boxes) else boxes[0]


# --------------------------------------------------------------------- reading
def parse_texm(data: bytes | memoryview, source: str = "") -> Texture:
    """Read a Texm payload; FormatError for anything the runtime could not load (section 12.2)."""
    data = memoryview(data).cast("B") if isinstance(data, memoryview) else memoryview(data)  # copied: what is kept
    if len(data) < HEADER.size:
        raise FormatError.single(STREAM, None, f"{len(data)} bytes; a Texm header needs {HEADER.size}", source)
    magic, width, height, mips, flags4, flags5, unk6, fmt = HEADER.unpack_from(data, 0)
    problems = []
    if magic != MAGIC:
        problems.append(error(STREAM, None, f"bad magic {magic!r}, expected b'Texm'"))
    if width == 0 or height == 0 or mips == 0:  # all 518 retail textures have each >= 1 (retail-envelope 5.2)
        problems.append(error(STREAM, None, f"width {width}, height {height} and mip count {mips} must be above 0"))
    if problems:
        raise FormatError(problems, source)
    bpp = BYTES_PER_PIXEL.get(fmt, 4)
    palette_size = PALETTE_SIZE if fmt == 0 else 0
    core = HEADER.size + palette_size + bpp * pixel_count(width, height, mips)
    if core > len(data):
        raise FormatError.single(STREAM, None, f"{width}x{height} format {fmt} with {mips} mip levels needs {core} "
                                               f"bytes; the payload has {len(data)}", source)
    rects = None
    if core < len(data):
        tail = data[core:]
        if len(tail) < 8 or bytes(tail[:4]) != PAGE_MAGIC:
            raise FormatError.single(STREAM, None, f"{len(tail)} bytes after the mip chain are not a Page chunk",
                                     source)
        (count,) = struct.unpack_from("<I", tail, 4)
        if 8 + count * PAGE_RECT.itemsize != len(tail):
            raise FormatError.single(STREAM, None, f"Page chunk of {count} rectangles needs "
                                                   f"{8 + count * PAGE_RECT.itemsize} bytes, has {len(tail)}", source)
        rects = np.frombuffer(bytes(tail), PAGE_RECT, count=count, offset=8)
    palette = bytes(data[HEADER.size:HEADER.size + palette_size]) if fmt == 0 else None
    pixels = bytes(data[HEADER.size + palette_size:core])
    return Texture(width, height, mips, fmt, pixels, palette, rects, flags4, flags5, unk6)


def validate_texm(data: bytes | memoryview) -> list[Finding]:
    """Section 12.3 checks: errors where the runtime cannot load it, warnings for what it loads oddly."""
    try:
        texture = parse_texm(data)
    except FormatError as exc:
        return exc.findings
    out = []
    if texture.mip_count > max_mip_count(texture.width, texture.height):  # no source checked (retail-envelope 5.2)
        out.append(warning(STREAM, None, f"mip count {texture.mip_count}: a {texture.width}x{texture.height} chain "
                                         f"halves to 1x1 in {max_mip_count(texture.width, texture.height)} levels; "
                                         "the further 1x1 levels are kept as read"))
    if texture.format not in BYTES_PER_PIXEL:
        out.append(error(STREAM, None, f"format {texture.format} is not one the game reads "
                                       f"({', '.join(map(str, FORMATS))})"))
    if texture.rects is not None:
        for i, (x, w, y, h) in enumerate(texture.rects.tolist()):
            if w <= 0 or h <= 0 or x < 0 or y < 0 or x + w > texture.width or y + h > texture.height:
                out.append(warning(STREAM, i, f"Page rectangle ({x}, {y}, {w}x{h}) is not inside the "
                                              f"{texture.width}x{texture.height} texture"))
    return out


# --------------------------------------------------------------------- decoding
def _expand(value: np.ndarray, bits: int) -> np.ndarray:
    """A ``bits``-wide channel to 8 bits by bit replication."""
    value = value.astype(np.uint16)
    out = value << (8 - bits)
    filled = bits
    while filled < 8:
        out |= (value << (8 - bits)) >> filled
        filled += bits
    return out.astype(np.uint8)


def _rgba(r, g, b, a) -> np.ndarray:
    return np.stack([r, g, b, a], axis=-1).astype(np.uint8)


def _channels_16(fmt: int, v: np.ndarray) -> np.ndarray:
    """RGBA8 of 16-bit words by the channel layouts retail-data readers confirmed."""
    opaque = np.full(len(v), 255)
    if fmt == 565:
        return _rgba(_expand(v >> 11 & 31, 5), _expand(v >> 5 & 63, 6), _expand(v & 31, 5), opaque)
    if fmt == 556:
        return _rgba(_expand(v >> 11 & 31, 5), _expand(v >> 6 & 31, 5), _expand(v & 63, 6), opaque)
    if fmt == 4444:
        return _rgba(_expand(v >> 8 & 15, 4), _expand(v >> 4 & 15, 4), _expand(v & 15, 4), _expand(v >> 12 & 15, 4))
    return _rgba(v & 0xFF, v & 0xFF, v & 0xFF, v >> 8)  # 88: L low byte, A high byte


@cache
def _table_16(fmt: int) -> np.ndarray:
    """Every 16-bit word's RGBA8 as one u32: decoding is then one lookup per pixel."""
    return _channels_16(fmt, np.arange(1 << 16, dtype=np.uint32)).view("<u4").ravel()


def _decode_16(fmt: int):
    return lambda raw, _palette: _table_16(fmt)[raw.view("<u2")].view(np.uint8).reshape(-1, 4)


def _decode_0(raw, palette):
    table = np.frombuffer(palette, np.uint8).reshape(256, 4)  # B, G, R, X
    rgba = table[:, [2, 1, 0, 3]].copy()
    rgba[:, 3] = 255  # the fourth byte is padding, not alpha
    return rgba.view("<u4").ravel()[raw].view(np.uint8).reshape(-1, 4)


def _swap_red_blue(raw: np.ndarray, alpha_mask: int) -> np.ndarray:
    """u32 ARGB little-endian (B, G, R, A in memory) to R, G, B, A bytes."""
    v = raw.view("<u4")
    rgba = (v & 0xFF00FF00) | (v >> 16 & 0xFF) | (v & 0xFF) << 16 | alpha_mask
    return rgba.astype("<u4").view(np.uint8).reshape(-1, 4)


def _decode_8888(raw, _palette):
    return _swap_red_blue(raw, 0)


def _decode_888(raw, _palette):
    return _swap_red_blue(raw, 0xFF000000)  # the fourth byte is padding: opaque


_DECODERS = {0: _decode_0, 8888: _decode_8888, 888: _decode_888,
             **{fmt: _decode_16(fmt) for fmt in (565, 556, 4444, 88)}}


# --------------------------------------------------------------------- encoding
def _narrow(channel: np.ndarray, bits: int) -> np.ndarray:
    """8 bits to ``bits`` by rounding; the inverse of ``_expand`` on every code."""
    return (channel.astype(np.uint32) * ((1 << bits) - 1) + 127) // 255


def _encode_pixels(rgba: np.ndarray, fmt: int, nearest) -> bytes:
    p = rgba.reshape(-1, 4)
    r, g, b, a = (p[:, i] for i in range(4))
    if fmt == 8888:
        return p[:, [2, 1, 0, 3]].tobytes()
    if fmt == 888:
        out = p[:, [2, 1, 0, 3]].copy()
        out[:, 3] = 0xFF
        return out.tobytes()
    if fmt == 88:
        luminance = np.rint(0.299 * r + 0.587 * g + 0.114 * b).astype(np.uint8)
        return np.stack([luminance, a], axis=-1).tobytes()
    if fmt == 0:
        return nearest(p[:, :3]).astype(np.uint8).tobytes()
    if fmt == 565:
        word = _narrow(r, 5) << 11 | _narrow(g, 6) << 5 | _narrow(b, 5)
    elif fmt == 556:
        word = _narrow(r, 5) << 11 | _narrow(g, 5) << 6 | _narrow(b, 6)
    else:  # 4444
        word = _narrow(a, 4) << 12 | _narrow(r, 4) << 8 | _narrow(g, 4) << 4 | _narrow(b, 4)
    return word.astype("<u2").tobytes()


def mip_chain(rgba: np.ndarray) -> list[np.ndarray]:
    """Level 0 and its 2x2 box-filtered reductions down to 1x1 (an odd last row or column is dropped)."""
    levels = [np.asarray(rgba, np.uint8)]
    while max(levels[-1].shape[:2]) > 1:
        img = levels[-1].astype(np.uint32)
        h, w = img.shape[:2]
        if h > 1:
            img = (img[0:h - 1:2] + img[1:h:2] + 1) // 2
        if w > 1:
            img = (img[:, 0:w - 1:2] + img[:, 1:w:2] + 1) // 2
        levels.append(img.astype(np.uint8))
    return levels


def encode_texm(rgba: np.ndarray, fmt: int = 8888, mips: bool = True, rects=None,
                flags4: int = 0, flags5: int = 0, unk6: int = 0) -> Texture:
    """A texture from RGBA8 pixels (height, width, 4), row 0 at the top; with the full mip chain by default."""
    rgba = np.asarray(rgba, np.uint8)
    if rgba.ndim != 3 or rgba.shape[2] != 4 or not rgba.shape[0] or not rgba.shape[1]:
        raise FormatError.single(STREAM, None, f"pixels of shape {rgba.shape} are not a (height, width, 4) picture")
    if fmt not in BYTES_PER_PIXEL:
        raise FormatError.single(STREAM, None, f"format {fmt} is not one the game reads ({FORMATS})")
    levels = mip_chain(rgba) if mips else [rgba]
    palette_rgb = _palette(rgba) if fmt == 0 else None
    nearest = _indexer(palette_rgb) if fmt == 0 else None
    pixels = b"".join(_encode_pixels(level, fmt, nearest) for level in levels)
    palette = None
    if palette_rgb is not None:
        table = np.zeros((256, 4), np.uint8)
        table[:len(palette_rgb), :3] = palette_rgb[:, [2, 1, 0]]
        palette = table.tobytes()
    page = None if rects is None else np.array([tuple(r) for r in rects], PAGE_RECT)
    return Texture(rgba.shape[1], rgba.shape[0], len(levels), fmt, pixels, palette, page, flags4, flags5, unk6)


def _rgb_keys(rgb: np.ndarray, bits: int = 8) -> np.ndarray:
    """Colours packed into one integer each (``bits`` per channel), for fast unique and lookups."""
    c = rgb.astype(np.int64) >> (8 - bits)
    return (c[:, 0] << (2 * bits)) | (c[:, 1] << bits) | c[:, 2]


def _palette(rgba: np.ndarray) -> np.ndarray:
    """At most 256 RGB colours: the exact colours when they fit, else a median cut of the 5-bit colours."""
    keys = np.unique(_rgb_keys(rgba.reshape(-1, 4)[:, :3]))
    if len(keys) <= 256:
        return np.stack([keys >> 16 & 255, keys >> 8 & 255, keys & 255], axis=-1).astype(np.uint8)
    reduced = np.unique(keys >> 3 & 0x1F1F1F)  # 5 bits per channel: at most 32768 colours
    boxes = [np.stack([reduced >> 16, reduced >> 8 & 31, reduced & 31], axis=-1) * 8 + 4]
    while len(boxes) < 256:
        spans = [np.ptp(b, axis=0).max() if len(b) > 1 else -1 for b in boxes]
        widest = int(np.argmax(spans))
        if spans[widest] <= 0:
            break
        box = boxes.pop(widest)
        axis = int(np.argmax(np.ptp(box, axis=0)))
        box = box[np.argsort(box[:, axis], kind="stable")]
        boxes += [box[:len(box) // 2], box[len(box) // 2:]]
    return np.array([np.rint(b.mean(axis=0)) for b in boxes], np.uint8)


def _indexer(palette: np.ndarray):
    """A function giving each colour's nearest palette entry: exact when the palette holds the colour,
    else through a table of every 5-bit colour (built once per palette)."""
    palette_keys = _rgb_keys(palette)
    order = np.argsort(palette_keys)
    table: list[np.ndarray] = []

    def nearest(colours: np.ndarray) -> np.ndarray:
        keys = _rgb_keys(colours)
        found = np.minimum(np.searchsorted(palette_keys[order], keys), len(order) - 1)
        if np.array_equal(palette_keys[order][found], keys):
            return order[found]
        if not table:
            grid = np.stack(np.meshgrid(*[np.arange(32)] * 3, indexing="ij"), axis=-1).reshape(-1, 3) * 8 + 4
            pal = palette.astype(np.int32)
            table.append(np.concatenate([((grid[i:i + 2048, None, :] - pal[None]) ** 2).sum(-1).argmin(axis=1)
                                         for i in range(0, len(grid), 2048)]))
        return table[0][_rgb_keys(colours, 5)]

    return nearest
