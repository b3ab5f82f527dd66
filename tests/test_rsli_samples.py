"""samples/rsli holds what core.authoring.rsli makes (scripts/make_sample.py writes it; tests/test_main_job.py
checks samples/ as a whole): a font archive and a sprite archive that read strictly, validate cleanly, write back
byte for byte, and whose font draws through the palette beside it."""

from pathlib import Path

from core.authoring import rsli as R
from core.fonts import parse_font, parse_palette, validate_font
from core.fonts.pictures import picture_rgba, pictures_in
from core.rsli import DEFLATE, LZSS, Archive, validate_rsli

SAMPLES = Path(__file__).resolve().parent.parent / "samples" / "rsli"


def test_the_rsli_samples_are_what_the_generator_makes():
    assert sorted(p.name for p in SAMPLES.iterdir()) == sorted(R.rsli_files())
    for name, data in R.rsli_files().items():
        assert (SAMPLES / name).read_bytes() == data, name


def test_the_rsli_samples_read_validate_and_write_back():
    font_archive = Archive.parse((SAMPLES / "gamefont.rlb").read_bytes(), "gamefont.rlb")
    sprites = Archive.parse((SAMPLES / "sprites.lib").read_bytes(), "sprites.lib")
    assert {m.method for m in font_archive} == {LZSS} and {m.method for m in sprites} == {DEFLATE}
    for archive, name in ((font_archive, "gamefont.rlb"), (sprites, "sprites.lib")):
        assert validate_rsli(archive) == []
        assert archive.to_bytes() == (SAMPLES / name).read_bytes()
    font = parse_font(font_archive.find("ARIALTEX.TFT").data())
    palette = parse_palette(font_archive.find("PAL.PAL").data())
    assert validate_font(font) == [] and font.to_bytes() == font_archive.find("ARIALTEX.TFT").data()
    assert palette.to_bytes() == font_archive.find("PAL.PAL").data()
    data = (SAMPLES / "gamefont.rlb").read_bytes()
    assert [(p.name, p.font) for p in pictures_in(data)] == [("ARIALTEX.TFT", True)]
    atlas = picture_rgba(data, 1)
    assert atlas.shape == (128, 128, 4) and {0, 255} == set(atlas[..., 3].ravel().tolist())
    assert [p.name for p in pictures_in((SAMPLES / "sprites.lib").read_bytes())] == ["COCKPIT.TEX", "LOGO.TEX",
                                                                                     "INTERF1.TEX"]
