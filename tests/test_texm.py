"""Texm (materials-texm.md section 10, digest fact 14): hand-built bytes for every format, palette, mip, Page."""

import struct

import numpy as np
import pytest

from core.appearance.texm import FORMATS, PAGE_RECT, encode_texm, parse_texm, pixel_count, validate_texm
from core.authoring.synth import gradient
from core.errors import FormatError


def texm(width, height, fmt, pixels: bytes, mips=1, palette=b"", tail=b"", flags=(0, 0, 0)) -> bytes:
    return struct.pack("<4s7I", b"Texm", width, height, mips, *flags, fmt) + palette + pixels + tail


def page(*rects) -> bytes:
    return b"Page" + struct.pack("<I", len(rects)) + b"".join(struct.pack("<4h", *r) for r in rects)


# Each format's hand-built pixels and the RGBA the game shows (bit replication for short channels).
HAND_BUILT = {
    8888: (struct.pack("<2I", 0x80FF2010, 0x00000000), [(0xFF, 0x20, 0x10, 0x80), (0, 0, 0, 0)]),
    888: (bytes([0x10, 0x20, 0xFF, 0x77, 1, 2, 3, 0]), [(0xFF, 0x20, 0x10, 255), (3, 2, 1, 255)]),
    565: (struct.pack("<2H", 0xF800, 0x8410), [(255, 0, 0, 255), (132, 130, 132, 255)]),
    556: (struct.pack("<2H", 0x07C0, 0x003F), [(0, 255, 0, 255), (0, 0, 255, 255)]),
    4444: (struct.pack("<2H", 0x8F10, 0xF0F0), [(0xFF, 0x11, 0x00, 0x88), (0, 0xFF, 0, 0xFF)]),
    88: (struct.pack("<2H", 0x4080, 0xFF00), [(0x80, 0x80, 0x80, 0x40), (0, 0, 0, 0xFF)]),
}


@pytest.mark.parametrize("fmt", sorted(HAND_BUILT))
def test_hand_built_pixels_decode_exactly(fmt):
    pixels, expected = HAND_BUILT[fmt]
    data = texm(2, 1, fmt, pixels)
    texture = parse_texm(data)
    assert texture.decode().tolist() == [[list(p) for p in expected]]
    assert texture.to_bytes() == data


def test_palette_is_bgrx_and_its_fourth_byte_is_not_alpha():
    palette = bytearray(1024)
    palette[0:4] = bytes([0x10, 0x20, 0x30, 0x00])    # entry 0: B, G, R, X
    palette[4 * 7:4 * 8] = bytes([0xFF, 0x00, 0x80, 0x55])
    data = texm(3, 1, 0, bytes([0, 7, 0]), palette=bytes(palette))
    texture = parse_texm(data)
    assert texture.decode().tolist() == [[[0x30, 0x20, 0x10, 255], [0x80, 0x00, 0xFF, 255], [0x30, 0x20, 0x10, 255]]]
    assert texture.to_bytes() == data


def test_short_channels_expand_by_bit_replication_and_narrow_back_exactly():
    for fmt, count in ((565, 1 << 16), (556, 1 << 16), (4444, 1 << 16)):
        words = np.arange(count, dtype="<u2")
        texture = parse_texm(texm(count, 1, fmt, words.tobytes()))
        again = encode_texm(texture.decode(), fmt, mips=False)
        assert again.pixels == words.tobytes(), fmt


def test_full_mip_chain_of_a_non_square_texture_with_page_and_odd_header_fields_round_trips():
    sizes = [(8, 2), (4, 1), (2, 1), (1, 1)]
    pixels = b"".join(bytes([level]) * (w * h * 4) for level, (w, h) in enumerate(sizes))
    data = texm(8, 2, 8888, pixels, mips=4, tail=page((0, 4, 0, 2), (4, 4, 0, 2)), flags=(32, 0x04000000, 7))
    texture = parse_texm(data)
    assert texture.levels() == sizes and (texture.flags4, texture.flags5, texture.unk6) == (32, 0x04000000, 7)
    assert [texture.decode(i).shape for i in range(4)] == [(2, 8, 4), (1, 4, 4), (1, 2, 4), (1, 1, 4)]
    assert [int(texture.decode(i)[0, 0, 0]) for i in range(4)] == [0, 1, 2, 3]
    assert texture.rects.tolist() == [(0, 4, 0, 2), (4, 4, 0, 2)]
    assert texture.to_bytes() == data


def test_page_cells_are_uv_boxes_after_the_whole_texture():
    texture = parse_texm(texm(8, 4, 565, bytes(64), tail=page((2, 4, 1, 2))))
    assert texture.cells() == [(0, 0, 1, 1), (0.25, 0.25, 0.5, 0.5)]
    assert texture.cell(1) == (0.25, 0.25, 0.5, 0.5)
    assert texture.cell(-1) == texture.cell(0) == texture.cell(9) == (0, 0, 1, 1)


@pytest.mark.parametrize("fmt", FORMATS)
def test_encoder_writes_every_format_with_mips_and_reads_back(fmt):
    picture = gradient(6, 5)
    texture = encode_texm(picture, fmt, rects=[(0, 3, 0, 5)])
    data = texture.to_bytes()
    again = parse_texm(data)
    assert again.levels() == [(6, 5), (3, 2), (1, 1)] and again.to_bytes() == data
    decoded = again.decode().astype(int)
    tolerance = {8888: 0, 888: 0, 565: 8, 556: 8, 4444: 17, 88: 255, 0: 0}[fmt]
    assert np.abs(decoded[..., :3] - picture[..., :3]).max() <= tolerance
    if fmt in (8888, 4444, 88):
        assert np.abs(decoded[..., 3] - picture[..., 3]).max() <= (17 if fmt == 4444 else 0)


def test_palette_encoder_quantises_many_colours_to_256():
    picture = np.random.default_rng(3).integers(0, 256, (40, 40, 4), dtype=np.uint8)
    texture = encode_texm(picture, 0, mips=False)
    assert len(texture.palette) == 1024
    assert np.abs(texture.decode().astype(int)[..., :3] - picture[..., :3]).mean() < 24


@pytest.mark.parametrize(("data", "message"), [
    (b"Texm" + bytes(10), "header needs 32"),
    (texm(2, 2, 565, bytes(8)).replace(b"Texm", b"Tex!"), "bad magic"),
    (texm(0, 2, 565, b""), "must be above 0"),
    (texm(4, 4, 8888, bytes(60)), "needs 96 bytes"),
    (texm(1, 1, 565, bytes(2), tail=b"junk"), "not a Page chunk"),
    (texm(1, 1, 565, bytes(2), tail=page((0, 1, 0, 1)) + b"x"), "needs 16 bytes, has 17"),
    (texm(0xFFFFFFFF, 0xFFFFFFFF, 8888, b"", mips=0xFFFFFFFF), "needs"),
])
def test_bad_textures_are_refused_with_the_reason(data, message):
    with pytest.raises(FormatError) as caught:
        parse_texm(data)
    assert message in str(caught.value)
    assert validate_texm(data)[0].is_error


def test_absurd_mip_counts_are_counted_without_a_loop_over_them():
    assert pixel_count(4, 4, 0xFFFFFFFF) == 16 + 4 + 1 + (0xFFFFFFFF - 3)


def test_validation_flags_unknown_formats_and_rects_outside_the_texture():
    findings = validate_texm(texm(1, 1, 1555, bytes(4)))
    assert findings[0].is_error and "format 1555" in findings[0].message
    with pytest.raises(FormatError):
        parse_texm(texm(1, 1, 1555, bytes(4))).decode()
    outside = validate_texm(texm(4, 4, 565, bytes(32), tail=page((2, 4, 0, 4))))
    assert [f.severity for f in outside] == ["warning"] and "not inside" in outside[0].message
    assert PAGE_RECT.itemsize == 8
