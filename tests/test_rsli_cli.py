"""``python -m core`` knows RsLi archives and fonts: info, list, extract (the member unpacked, through the write
path), validate (each member unpacked, each font checked) and roundtrip (byte-identical, or where it differs);
a hostile archive is an error naming the file, the member and its row, and nothing is written."""

import json
import struct
import zlib

import numpy as np
from fixtures import run_cli as run

from core.authoring.fonts import sample_font, sample_palette
from core.authoring.rsli import rsli_files
from core.container.nres import Archive as NResArchive
from core.rsli import Archive
from core.rsli.cipher import keystream_xor


def write_samples(folder):
    for name, data in rsli_files().items():
        (folder / name).write_bytes(data)
    return folder / "gamefont.rlb", folder / "sprites.lib"


def test_info_list_and_extract_an_rsli_archive(capsys, tmp_path):
    font, sprites = write_samples(tmp_path)
    code, out, _ = run(capsys, "info", font)
    assert code == 0
    assert f"{font}: RsLi archive, 2 members, seed 0x5a3c" in out and "ARIALTEX.TFT: font, cell 8 x 11" in out
    assert "PAL.PAL: palette" in out and "atlas 128x128 format 2 (PAL.PAL's colours)" in out
    code, out, _ = run(capsys, "info", sprites, "--json")
    payload = json.loads(out)
    assert code == 0 and [m["name"] for m in payload["members"]] == ["COCKPIT.TEX", "LOGO.TEX", "INTERF1.TEX"]
    assert {m["method"] for m in payload["members"]} == {"Deflate"}
    code, out, _ = run(capsys, "list", sprites)
    assert code == 0 and "Deflate" in out and "LOGO.TEX" in out
    target = tmp_path / "pal.pal"
    code, out, _ = run(capsys, "extract", font, "pal.pal", "-o", target)
    assert code == 0 and target.read_bytes() == sample_palette().to_bytes() and "unpacked from LZSS" in out
    code, _, _ = run(capsys, "extract", font, "#1", "-o", tmp_path / "font.tft")
    assert code == 0 and (tmp_path / "font.tft").read_bytes() == sample_font()
    code, _, err = run(capsys, "extract", font, "NONE.TEX", "-o", tmp_path / "none")
    assert code == 2 and "no member named 'NONE.TEX'" in err and not (tmp_path / "none").exists()
    code, out, _ = run(capsys, "info", tmp_path / "font.tft")
    assert code == 0 and "font, cell 8 x 11 (+1), pen extra 1, 96 drawn glyphs" in out


def test_validate_and_roundtrip_archives_fonts_and_a_font_library(capsys, tmp_path):
    font, sprites = write_samples(tmp_path)
    (tmp_path / "ARIALTEX.TFT").write_bytes(sample_font(0))
    (tmp_path / "PAL.PAL").write_bytes(sample_palette().to_bytes())
    library = NResArchive()
    library.add("PAL.PAL", sample_palette().to_bytes(), 0x4C4150)
    library.add("ARIALTEX.TFT", sample_font(0), int.from_bytes(b"Tfnt", "little"))
    (tmp_path / "sys.lib").write_bytes(library.to_bytes())
    files = [font, sprites, tmp_path / "ARIALTEX.TFT", tmp_path / "PAL.PAL", tmp_path / "sys.lib"]
    code, out, err = run(capsys, "validate", *files)
    assert code == 0, out + err
    assert all(f"{path}: valid: 0 errors, 0 warnings" in out for path in files)
    code, out, err = run(capsys, "roundtrip", *files)
    assert code == 0, out + err
    assert all(f"{path}: identical" in out for path in files)


def test_a_glyph_record_the_game_draws_oddly_is_a_warning_located_in_its_archive(capsys, tmp_path):
    data = bytearray(sample_font())
    struct.pack_into("<i", data, 20 + 16 * ord("A") + 12, 3)  # 'A' spans 8 texels, advance 3
    archive = Archive(seed=7)
    archive.add("ARIALTEX.TFT", bytes(data), 0x040)
    path = tmp_path / "gamefont.rlb"
    path.write_bytes(archive.to_bytes())
    code, out, _ = run(capsys, "validate", path)
    assert code == 0 and f"{path}:ARIALTEX.TFT: glyph[65]: warning: spans 8 texels, advance 3 + 1 expected" in out
    code, _, _ = run(capsys, "validate", "--strict", path)
    assert code == 1


def test_a_hostile_archive_is_an_error_naming_file_member_and_row_and_nothing_is_written(capsys, tmp_path):
    font, _ = write_samples(tmp_path)
    data = bytearray(font.read_bytes())
    table = bytearray(keystream_xor(data[32:96], 0x5A3C))
    struct.pack_into("<I", table, 32 + 0x14, 0xFFFFFFF0)  # row 1's unpacked size
    data[32:96] = keystream_xor(table, 0x5A3C)
    font.write_bytes(bytes(data))
    before = {p: p.read_bytes() for p in tmp_path.iterdir()}
    for command in ("validate", "roundtrip", "info", "list"):
        code, out, err = run(capsys, command, font)
        assert code == 1, (command, out, err)
        assert f"{font}:ARIALTEX.TFT: member[1]: error: declares 4294967280 unpacked bytes" in out + err, command
    code, _, err = run(capsys, "extract", font, "ARIALTEX.TFT", "-o", tmp_path / "out.tft")
    assert code == 1 and "member[1]" in err
    assert {p: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_roundtrip_says_where_an_archive_it_cannot_write_back_differs(capsys, tmp_path):
    """A stored member reads, validates with a note, and is not written back (no shipped file uses the method)."""
    plain = b"Texm" + bytes(40)
    header = struct.pack("<4shh6sHII8s", b"NL\0\1", 1, 1, bytes(6), 0xABBA, len(plain), 9, bytes(8))
    record = struct.pack("<12s4sHHIII", b"A.TEX", bytes(4), 0, 0, len(plain), 64, len(plain))
    path = tmp_path / "odd.lib"
    path.write_bytes(header + keystream_xor(record, 9) + plain)
    code, out, _ = run(capsys, "validate", path)
    assert code == 0 and "stored is used by no shipped archive" in out
    code, _, err = run(capsys, "roundtrip", path)
    assert code == 1 and f"{path}:A.TEX: member[0]: error: stored (0x000) is used by no shipped archive" in err
    assert zlib.crc32(path.read_bytes()) == zlib.crc32(header + keystream_xor(record, 9) + plain)


def test_texture_writes_an_rsli_members_picture_and_a_fonts_atlas(capsys, tmp_path):
    from PIL import Image

    from core.fonts.pictures import picture_rgba

    font, sprites = write_samples(tmp_path)
    code, out, _ = run(capsys, "texture", font, "arialtex.tft", "-o", tmp_path / "atlas.png")
    assert code == 0 and "wrote ARIALTEX.TFT (128x128)" in out
    shown = np.asarray(Image.open(tmp_path / "atlas.png").convert("RGBA"))
    assert np.array_equal(shown, picture_rgba(font.read_bytes(), 1))
    code, _, _ = run(capsys, "texture", sprites, "#1", "-o", tmp_path / "logo.png")
    assert code == 0 and np.array_equal(np.asarray(Image.open(tmp_path / "logo.png").convert("RGBA")),
                                        picture_rgba(sprites.read_bytes(), 1))
    code, _, err = run(capsys, "texture", font, "PAL.PAL", "-o", tmp_path / "pal.png")
    assert code == 2 and "PAL.PAL is neither a texture (Texm) nor a font (Tfnt)" in err
    code, _, err = run(capsys, "texture", font, "ARIALTEX.TFT", "--mip", "1", "-o", tmp_path / "m.png")
    assert code == 2 and "a font's atlas has one level" in err
    library = NResArchive()
    library.add("PAL.PAL", sample_palette().to_bytes(), 0x4C4150)
    library.add("GF_640.TFT", sample_font(2), int.from_bytes(b"Tfnt", "little"))
    (tmp_path / "font.lib").write_bytes(library.to_bytes())
    code, _, _ = run(capsys, "texture", tmp_path / "font.lib", "gf_640.tft", "-o", tmp_path / "gf.png")
    assert code == 0 and np.array_equal(np.asarray(Image.open(tmp_path / "gf.png").convert("RGBA")), shown)
    assert not (tmp_path / "pal.png").exists() and not (tmp_path / "m.png").exists()
