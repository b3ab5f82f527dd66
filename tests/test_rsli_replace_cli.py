"""``python -m core replace ARCHIVE MEMBER FILE``: one member of an RsLi archive given new bytes and the archive
repacked: extracting the member gives the new bytes, every other member keeps its packed bytes and record, the
header its seed and unexplained bytes; a method no shipped archive uses is refused (and nothing written); the
archive is written through the write path (in place: refused when it changed since it was read; killed at any
step of its write: the old archive or the new one, never a part)."""

from __future__ import annotations

import struct

import pytest
from fixtures import run_cli as run
from test_writers_killed import Kit, core, killed_at_every_step

from core.authoring.rsli import rsli_files, sprites_archive
from core.rsli import DEFLATE, LZSS, Archive
from core.rsli.archive import HEADER_SIZE, RECORD_SIZE, STORED
from core.rsli.cipher import keystream_xor


def _samples(folder):
    for name, data in rsli_files().items():
        (folder / name).write_bytes(data)
    return folder / "gamefont.rlb", folder / "sprites.lib"


def _records(data: bytes) -> list[bytes]:
    count, seed = struct.unpack_from("<h", data, 4)[0], struct.unpack_from("<I", data, 20)[0]
    table = keystream_xor(data[HEADER_SIZE:HEADER_SIZE + RECORD_SIZE * count], seed)
    return [table[i * RECORD_SIZE:(i + 1) * RECORD_SIZE] for i in range(count)]


@pytest.mark.parametrize("method", [None, "lzss", "deflate"])
def test_a_replaced_member_extracts_as_the_new_bytes_and_the_others_keep_their_packed_bytes(capsys, tmp_path,
                                                                                              method):
    _, sprites = _samples(tmp_path)
    before = sprites.read_bytes()
    new = bytes(range(256)) * 40 + b"a new logo"
    (tmp_path / "logo.bin").write_bytes(new)
    extra = ("--method", method) if method else ()
    code, out, err = run(capsys, "replace", sprites, "logo.tex", tmp_path / "logo.bin", *extra)
    assert code == 0, out + err
    assert f"{sprites}: LOGO.TEX replaced by {tmp_path / 'logo.bin'} ({len(new)} bytes" in out
    after = sprites.read_bytes()
    old, got = Archive.parse(before), Archive.parse(after)
    assert got.find("LOGO.TEX").data() == new
    assert got.find("LOGO.TEX").method == {None: DEFLATE, "lzss": LZSS, "deflate": DEFLATE}[method]
    assert (got.seed, got.reserved, got.sorted_mark, got.tail) == (old.seed, old.reserved, old.sorted_mark, old.tail)
    assert after[:16] == before[:16] and after[20:] != before[20:]  # +0x10 holds the unpacked total
    for a, b, ra, rb in zip(old, got, _records(before), _records(after), strict=True):
        if a.name != b"LOGO.TEX":
            assert bytes(a.packed) == bytes(b.packed) and (a.flags, a.size, a.unread) == (b.flags, b.size, b.unread)
            assert ra[:20] == rb[:20] and ra[28:] == rb[28:]  # name, unread, flags, sort field, size: all but offset
    code, out, _ = run(capsys, "extract", sprites, "LOGO.TEX", "-o", tmp_path / "back.bin")
    assert code == 0 and (tmp_path / "back.bin").read_bytes() == new
    code, out, err = run(capsys, "roundtrip", sprites)
    assert code == 0, out + err
    code, out, err = run(capsys, "validate", sprites)
    assert code == 0 and "0 errors" in out, out + err


def test_replace_to_another_file_leaves_the_archive_and_the_same_bytes_keep_the_packed_ones(capsys, tmp_path):
    font, _ = _samples(tmp_path)
    before = font.read_bytes()
    palette = Archive.parse(before).find("PAL.PAL").data()
    (tmp_path / "same.pal").write_bytes(palette)
    code, out, err = run(capsys, "replace", font, "PAL.PAL", tmp_path / "same.pal", "-o", tmp_path / "copy.rlb")
    assert code == 0, out + err
    assert (tmp_path / "copy.rlb").read_bytes() == before  # the same bytes: its packed bytes kept, not repacked
    (tmp_path / "other.pal").write_bytes(palette[:-1] + b"\x01")
    code, out, err = run(capsys, "replace", font, "#0", tmp_path / "other.pal", "-o", tmp_path / "copy.rlb")
    assert code == 0, out + err
    assert font.read_bytes() == before
    assert Archive.parse((tmp_path / "copy.rlb").read_bytes()).find("PAL.PAL").data() == palette[:-1] + b"\x01"


def test_a_method_no_shipped_archive_uses_is_refused_and_nothing_is_written(capsys, tmp_path):
    data = bytearray(sprites_archive().to_bytes())  # LOGO.TEX (row 1) made a member stored as is, as none ships
    seed = struct.unpack_from("<I", data, 20)[0]
    table = bytearray(keystream_xor(bytes(data[HEADER_SIZE:HEADER_SIZE + 3 * RECORD_SIZE]), seed))
    row = RECORD_SIZE
    flags = struct.unpack_from("<H", table, row + 16)[0]
    packed = struct.unpack_from("<I", table, row + 28)[0]
    struct.pack_into("<H", table, row + 16, flags & ~0x1E0 | STORED)
    struct.pack_into("<I", table, row + 20, packed)  # its size: its packed bytes as they are
    data[HEADER_SIZE:HEADER_SIZE + 3 * RECORD_SIZE] = keystream_xor(bytes(table), seed)
    data = bytes(data)
    path = tmp_path / "odd.lib"
    path.write_bytes(data)
    (tmp_path / "new.bin").write_bytes(b"new bytes")
    code, out, err = run(capsys, "replace", path, "LOGO.TEX", tmp_path / "new.bin")
    assert code == 1 and "stored (0x000) is used by no shipped archive" in err and str(path) in err, out + err
    assert "--method lzss" in err
    code, out, err = run(capsys, "replace", path, "COCKPIT.TEX", tmp_path / "new.bin")  # another member stored
    assert code == 1 and "LOGO.TEX" in err and "used by no shipped archive" in err, out + err
    assert path.read_bytes() == data
    with pytest.raises(SystemExit):
        run(capsys, "replace", path, "LOGO.TEX", tmp_path / "new.bin", "--method", "stored")
    assert "invalid choice: 'stored'" in capsys.readouterr().err
    code, _, err = run(capsys, "replace", path, "NONE.TEX", tmp_path / "new.bin")
    assert code == 2 and "no member named 'NONE.TEX'" in err
    assert path.read_bytes() == data


def test_an_nres_archive_is_refused_naming_it(capsys, tmp_path):
    from core.container.nres import Archive as NRes

    nres = NRes()
    nres.add("a.bin", b"x", 1)
    (tmp_path / "a.rlb").write_bytes(nres.to_bytes())
    (tmp_path / "new.bin").write_bytes(b"y")
    code, _, err = run(capsys, "replace", tmp_path / "a.rlb", "a.bin", tmp_path / "new.bin")
    assert code == 1 and "not an RsLi archive" in err and "a.rlb" in err


@pytest.fixture(scope="module")
def kit(tmp_path_factory):
    return Kit(tmp_path_factory.mktemp("killed"))


def test_replace_killed_at_every_step_of_its_write_leaves_the_old_archive_or_the_new(kit, tmp_path):
    folder = tmp_path / "game"
    folder.mkdir()
    _, sprites = _samples(folder)
    (folder / "logo.bin").write_bytes(b"the new logo " * 100)
    killed_at_every_step(kit, core("replace", sprites, "LOGO.TEX", folder / "logo.bin"), sprites, folder)
