"""Fonts (world-digest section 6): Tfnt glyph tables and PAL.PAL read and write back byte for byte, an edited
glyph changes only its record, the atlas draws through its own palette (format 0) or PAL.PAL's (format 2) with
index 0 transparent, and the pictures of an NRes library or an RsLi archive include each font's atlas."""

import struct

import numpy as np
import pytest

from core.authoring.fonts import SHADOW, WHITE, sample_font, sample_palette
from core.authoring.rsli import gamefont_archive
from core.container.nres import Archive as NResArchive
from core.errors import FormatError
from core.fonts import PAL_SIZE, parse_font, parse_palette, validate_font
from core.fonts.pictures import picture_rgba, pictures_in
from core.fonts.tfnt import ATLAS_AT

FONT_TYPE = int.from_bytes(b"Tfnt", "little")  # any type id: fonts are told by their bytes


@pytest.mark.parametrize("fmt", [0, 2])
def test_a_font_reads_and_writes_back_byte_for_byte(fmt):
    data = sample_font(fmt)
    font = parse_font(data, "ARIALTEX.TFT")
    assert font.to_bytes() == data and validate_font(font) == []
    assert (int(font.header["cell_width"]), int(font.header["glyph_height"]), int(font.header["pen_extra"])) == \
        (8, 11, 1)
    assert int(font.glyphs["advance"][ord("A")]) == 7 and int(font.glyphs["advance"][0]) == 8  # a placeholder
    assert len(data) == {0: 21556, 2: 20532}[fmt]  # the shipped sys.lib and gamefont.rlb sizes (W82)


def test_an_edited_glyph_changes_only_its_record_and_odd_words_are_carried():
    data = bytearray(sample_font())
    data[4 + 16 * 0 + 8:4 + 16 * 0 + 12] = b"\x00\x00\xc0\x7f"  # a NaN in a placeholder's v0, kept as it is
    font = parse_font(bytes(data))
    assert font.to_bytes() == bytes(data)
    font.glyphs["advance"][ord("B")] = 5
    written = font.to_bytes()
    changed = [i for i in range(len(data)) if written[i] != data[i]]
    record = 20 + 16 * ord("B") + 12
    assert changed and all(record <= i < record + 4 for i in changed)
    findings = validate_font(parse_font(written))
    assert [(f.stream, f.index) for f in findings] == [("glyph", ord("B"))] and "advance 5 + 1" in findings[0].message


def test_the_atlas_draws_through_its_palette_with_index_zero_transparent():
    palette = sample_palette()
    rgba = parse_font(sample_font(2)).rgba(palette)
    indices = parse_font(sample_font(2)).indices()
    assert set(np.unique(indices).tolist()) == {0, SHADOW, WHITE}
    assert (rgba[indices == 0, 3] == 0).all() and (rgba[indices == WHITE] == (255, 255, 255, 255)).all()
    assert (parse_font(sample_font(0)).rgba() == rgba).all()  # the own palette is the same colours
    with pytest.raises(FormatError, match=r"no PAL\.PAL was found"):
        parse_font(sample_font(2)).rgba()


def test_a_palette_reads_and_writes_back_and_refuses_another_size():
    data = sample_palette().to_bytes()
    assert len(data) == PAL_SIZE and data[1024:1028] == b"Ipol"
    palette = parse_palette(data)
    assert palette.to_bytes() == data and (palette.blend == palette.blend.T).all()
    assert (np.diag(palette.blend) == np.arange(256)).all()
    with pytest.raises(FormatError) as caught:
        parse_palette(data[:-1], "PAL.PAL")
    assert caught.value.describe() == "PAL.PAL: PAL: error: 66563 bytes; a palette is 66564"


@pytest.mark.parametrize("mutate, words", [
    (lambda d: d[:100], "need 4148"),
    (lambda d: b"Tfnx" + d[4:], "bad magic"),
    (lambda d: d[:ATLAS_AT + 4] + struct.pack("<I", 4096) + d[ATLAS_AT + 8:], "needs"),
])
def test_a_broken_font_is_named(mutate, words):
    data = mutate(sample_font(2))
    try:
        font = parse_font(data, "ARIALTEX.TFT")
    except FormatError as exc:
        assert words in exc.describe() and "ARIALTEX.TFT: Tfnt: error" in exc.describe()
        return
    findings = validate_font(font)
    assert any(f.is_error and words in f.message for f in findings)
    with pytest.raises(FormatError):
        font.rgba(sample_palette())


def test_the_pictures_of_an_nres_library_and_an_rsli_archive_include_each_fonts_atlas():
    library = NResArchive()
    library.add("PAL.PAL", sample_palette().to_bytes(), 0x4C4150)
    library.add("ARIALTEX.TFT", sample_font(0), FONT_TYPE)
    library.add("GF_640.TFT", sample_font(2), FONT_TYPE)
    data = library.to_bytes()
    assert [(p.index, p.name, p.font) for p in pictures_in(data)] == [(1, "ARIALTEX.TFT", True),
                                                                      (2, "GF_640.TFT", True)]
    assert (picture_rgba(data, 1) == picture_rgba(data, 2)).all()
    packed = gamefont_archive().to_bytes()
    assert (picture_rgba(packed, 1) == picture_rgba(data, 2)).all()
    alone = NResArchive()
    alone.add("GF_640.TFT", sample_font(2), FONT_TYPE)
    with pytest.raises(FormatError) as caught:
        picture_rgba(alone.to_bytes(), 0, "font.lib")
    assert caught.value.describe().startswith("font.lib:GF_640.TFT: Tfnt: error: the atlas (format 2)")
