"""RsLi archives (world-digest section 1): the table cipher's known vectors, LZSS as the game's loader reads it,
Deflate, reading strictly and tolerantly, unpacking bounded by the declared size, lossless repacking that keeps
every unedited member's packed bytes, and the writer refusing the methods no shipped file uses."""

import struct
import tracemalloc
import zlib

import pytest

from core.authoring.rsli import gamefont_archive, rsli_files, sprites_archive
from core.errors import FormatError
from core.rsli import DEFLATE, LZSS, STORED, Archive, lzss, validate_rsli
from core.rsli.archive import HEADER_SIZE, RECORD_SIZE, SORTED_MARK, TRANSFORM, sort_fields
from core.rsli.cipher import keystream_xor


def raw_archive(members: list[tuple[bytes, int, int, bytes]], seed: int = 0x1234, overshoot: int = 0,
                mark: int = SORTED_MARK) -> bytes:
    """An archive's bytes from (name, flags, unpacked size, packed bytes) rows, laid out after the table; the last
    row may declare ``overshoot`` packed bytes more than the file holds."""
    names = [m[0] for m in members]
    order = sorted(range(len(names)), key=lambda i: names[i])
    offset = HEADER_SIZE + RECORD_SIZE * len(members)
    table, body = b"", b""
    for i, (name, flags, size, packed) in enumerate(members):
        extra = overshoot if i == len(members) - 1 else 0
        table += struct.pack("<12s4sHHIII", name, bytes(4), flags, order[i], size, offset + len(body),
                             len(packed) + extra)
        body += packed
    total = sum(m[2] for m in members) & 0xFFFFFFFF
    header = struct.pack("<4shh6sHII8s", b"NL\0\1", len(members), len(members), bytes(6), mark, total, seed,
                         bytes(8))
    return header + keystream_xor(table, seed) + body


# --------------------------------------------------------------------- the cipher and LZSS
def test_the_table_cipher_gives_both_sources_known_vectors():
    assert keystream_xor(bytes([0, 1, 2, 3]), 0x1234) == bytes.fromhex("7a86b28c")
    assert keystream_xor(bytes(4), 0x12345678) == bytes.fromhex("a6c1054c")  # only the low 16 bits count
    assert keystream_xor(keystream_xor(b"any table bytes", 0xBEEF), 0xBEEF) == b"any table bytes"


def test_lzss_reads_absolute_ring_positions_over_a_ring_of_spaces():
    """A match names a ring position, not a distance: position 0 at the start reads the spaces the ring is
    filled with; a match on the write position's own bytes repeats them (an overlapping copy)."""
    # flags 0b10: a match of 3 (ring 0: spaces), then literal 'a'; then a match at 0xFF2 (the 'a' plus what
    # the copy writes after it): 'aaaa'
    packed = bytes([0b0000_0010, 0x00, 0x00, ord("a"), 0xF1, 0xF1])
    assert lzss.unpack(packed, 8)[0] == b"   aaaaa"
    assert lzss.unpack(packed, 5)[0] == b"   aa"  # cut at the declared size, in the middle of a match


@pytest.mark.parametrize("data", [b"", b"x", b"abc" * 700, bytes(range(256)) * 40, b"ab" * 5000 + bytes(9000)])
def test_lzss_packs_what_it_unpacks(data):
    packed = lzss.pack(data)
    assert lzss.unpack(packed, len(data))[0] == data
    assert len(data) <= lzss.most_unpacked(len(packed))


def test_lzss_output_never_passes_the_declared_size():
    packed = lzss.pack(b"z" * 10000)
    data, _ = lzss.unpack(packed, 100)
    assert data == b"z" * 100


# --------------------------------------------------------------------- reading
def test_the_synthetic_archives_read_list_and_unpack():
    files = rsli_files()
    font = Archive.parse(files["gamefont.rlb"], "gamefont.rlb")
    assert [(m.name, m.method, m.size) for m in font] == [(b"PAL.PAL", LZSS, 66564), (b"ARIALTEX.TFT", LZSS, 20532)]
    assert font.find("pal.pal").data()[1024:1028] == b"Ipol" and font.find("ARIALTEX.TFT").data()[:4] == b"Tfnt"
    sprites = Archive.parse(files["sprites.lib"], "sprites.lib")
    assert {m.method for m in sprites} == {DEFLATE}
    assert all(m.data()[:4] == b"Texm" for m in sprites)
    assert validate_rsli(font) == [] and validate_rsli(sprites) == []
    assert [m.sort_field for m in font] == sort_fields(font.members) == [1, 0]   # row of the i-th name (W8)


def test_stored_and_transform_members_read_but_are_not_written():
    plain = b"a stored member"
    # the transform is keyed by the record's own +0x12: row 1's is 1 (B sorts second)
    data = raw_archive([(b"A.RAW", STORED, len(plain), plain), (b"B.XOR", TRANSFORM, len(plain),
                                                                 keystream_xor(plain, 1))])
    archive = Archive.parse(data, "odd.lib")
    assert archive.members[0].data() == plain and archive.members[1].data() == plain
    notes = validate_rsli(archive)
    assert [f.index for f in notes] == [0, 1] and all(not f.is_error and "not written back" in f.message
                                                      for f in notes)
    with pytest.raises(FormatError) as caught:
        archive.to_bytes()
    text = caught.value.describe("odd.lib")
    assert "odd.lib:A.RAW: member[0]: error: stored (0x000) is used by no shipped archive" in text
    assert "B.XOR: member[1]" in text
    with pytest.raises(FormatError, match="used by no shipped archive"):
        Archive().add("NEW.RAW", b"x", STORED)
    archive.replace("A.RAW", plain, LZSS)
    archive.replace("B.XOR", plain, DEFLATE)
    again = Archive.parse(archive.to_bytes())
    assert [m.data() for m in again] == [plain, plain] and [m.method for m in again] == [LZSS, DEFLATE]


def test_a_deflate_member_declaring_a_byte_past_the_end_is_read_as_the_shipped_one_is():
    """sprites.lib's INTERF8.TEX declares its packed size one byte past the end of the file (W17): read to the
    end with a warning, and written back with the same declared size."""
    picture = b"Texm" + bytes(range(200)) * 10
    packed = zlib.compress(picture, 9)[2:-4]
    data = raw_archive([(b"INTERF7.TEX", DEFLATE, len(picture), packed), (b"INTERF8.TEX", DEFLATE, len(picture),
                                                                          packed)], overshoot=1)
    archive = Archive.parse(data, "sprites.lib")
    assert [f.severity for f in archive.findings] == ["warning"]
    assert "1 bytes past the end" in archive.findings[0].message
    assert archive.members[1].data() == picture
    assert archive.to_bytes() == data
    archive.replace("INTERF7.TEX", picture[::-1])
    again = Archive.parse(archive.to_bytes())
    assert again.members[1].packed_size == len(packed) + 1 and bytes(again.members[1].packed) == packed


def test_a_huge_declared_size_is_refused_before_anything_is_allocated():
    data = raw_archive([(b"BIG.TEX", DEFLATE, 0xFFFFFFFF, zlib.compress(b"x")[2:-4]),
                        (b"BIG2.TEX", LZSS, 10_000_000, lzss.pack(b"y" * 100))])
    tracemalloc.start()
    try:
        with pytest.raises(FormatError) as caught:
            Archive.parse(data, "big.lib")
        archive = Archive.parse(data, "big.lib", tolerant=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2**20
    text = caught.value.describe()
    assert "big.lib:BIG.TEX: member[0]: error: declares 4294967295 unpacked bytes" in text
    assert "big.lib:BIG2.TEX: member[1]: error: declares 10000000 unpacked bytes" in text
    assert [m.unreadable is not None for m in archive] == [True, True]
    with pytest.raises(FormatError, match="could not be read"):
        archive.to_bytes()


@pytest.mark.parametrize("mutate, words", [
    (lambda d: d[:20], "truncated header: 20 bytes"),
    (lambda d: b"NRes" + d[4:], "bad magic"),
    (lambda d: d[:4] + struct.pack("<h", 3) + d[6:], "entry count 3 at +4 but 2 at +6"),
    (lambda d: d[:4] + struct.pack("<hh", 900, 900) + d[8:], "entry count 900 needs a 28800-byte table"),
    (lambda d: d[:4] + struct.pack("<hh", -1, -1) + d[8:], "negative entry count -1"),
])
def test_a_bad_header_names_the_file_and_what_is_wrong(mutate, words):
    with pytest.raises(FormatError) as caught:
        Archive.parse(mutate(rsli_files()["gamefont.rlb"]), "gamefont.rlb")
    assert words in caught.value.describe() and "gamefont.rlb: RsLi: error" in caught.value.describe()


def test_a_short_lzss_stream_is_an_error_naming_the_member():
    data = raw_archive([(b"PAL.PAL", LZSS, 50, lzss.pack(b"q" * 10))])
    archive = Archive.parse(data, "gamefont.rlb")
    findings = validate_rsli(archive)
    assert [f.format("gamefont.rlb") for f in findings] == [
        "gamefont.rlb:PAL.PAL: member[0]: error: LZSS stream gives 10 bytes, 50 declared"]
    with pytest.raises(FormatError, match=r"PAL\.PAL: member"):
        archive.members[0].data("gamefont.rlb")


def test_a_broken_sort_table_is_a_warning():
    data = bytearray(rsli_files()["gamefont.rlb"])
    table = bytearray(keystream_xor(data[32:96], 0x5A3C))
    table[0x12:0x14] = struct.pack("<H", 0)  # both rows name row 0 as first
    data[32:96] = keystream_xor(table, 0x5A3C)
    archive = Archive.parse(bytes(data))
    assert [f.severity for f in archive.findings] == ["warning"] and "0xABBA" in archive.findings[0].message
    assert archive.to_bytes() == bytes(data)


# --------------------------------------------------------------------- writing
def test_an_unedited_archive_is_written_back_byte_for_byte():
    for name, data in rsli_files().items():
        assert Archive.parse(data, name).to_bytes() == data
    odd = raw_archive([(b"B.TEX", DEFLATE, 3, zlib.compress(b"abc")[2:-4])], mark=0, seed=0xFFFF)
    assert Archive.parse(odd + b"tail").to_bytes() == odd + b"tail"  # bytes past the members kept too


def test_an_edit_keeps_every_other_members_packed_bytes_and_the_headers_unexplained_bytes():
    data = bytearray(sprites_archive().to_bytes())
    data[8:14] = b"\x01\x02\x03\x04\x05\x06"  # header +0x08, which no source explains
    archive = Archive.parse(bytes(data))
    before = [bytes(m.packed) for m in archive]
    archive.replace("LOGO.TEX", b"Texm" + bytes(60))
    archive.add("new.tex", b"Texm" + bytes(30), LZSS)
    written = archive.to_bytes()
    again = Archive.parse(written)
    assert written[8:14] == b"\x01\x02\x03\x04\x05\x06" and struct.unpack_from("<I", written, 20)[0] == 0x1234
    assert [bytes(m.packed) for m in again][0::2] == [before[0], before[2]]
    assert [m.name for m in again] == [b"COCKPIT.TEX", b"LOGO.TEX", b"INTERF1.TEX", b"NEW.TEX"]
    assert again.find("logo.tex").data() == b"Texm" + bytes(60) and again.find("NEW.TEX").method == LZSS
    assert struct.unpack_from("<I", written, 16)[0] == sum(m.size for m in again)
    assert [m.sort_field for m in again] == sort_fields(again.members) and validate_rsli(again) == []
    again.remove("COCKPIT.TEX")
    again.rename("NEW.TEX", "NEWER.TEX")
    last = Archive.parse(again.to_bytes())
    assert [m.name for m in last] == [b"LOGO.TEX", b"INTERF1.TEX", b"NEWER.TEX"] and validate_rsli(last) == []


def test_names_are_refused_when_the_table_cannot_hold_them():
    archive = gamefont_archive()
    for bad in ("", "THIRTEEN.CHAR", "A B", "ПАЛ"):
        with pytest.raises(FormatError, match="member name"):
            archive.add(bad, b"x")
    with pytest.raises(FormatError, match="exists"):
        archive.add("pal.pal", b"x")
    with pytest.raises(FormatError, match="no member named"):
        archive.replace("NONE", b"x")


@pytest.mark.parametrize("method", [0x080, 0x0A0])
def test_an_adaptive_huffman_member_is_named_not_unpacked_and_not_written(method):
    data = raw_archive([(b"HUFF.TEX", method, 10, bytes(8)), (b"OK.TEX", DEFLATE, 3, zlib.compress(b"abc")[2:-4])])
    archive = Archive.parse(data, "odd.lib")
    assert archive.members[1].data() == b"abc"
    errors = [f for f in validate_rsli(archive) if f.is_error]
    name = {0x080: "adaptive Huffman + LZSS", 0x0A0: "transform + adaptive Huffman + LZSS"}[method]
    assert [f.format("odd.lib") for f in errors] == [
        f"odd.lib:HUFF.TEX: member[0]: error: {name} ({method:#05x}) is not unpacked by this reader"]
    with pytest.raises(FormatError, match="member\\[0\\]"):
        archive.to_bytes()
    unknown = raw_archive([(b"ODD.TEX", 0x1E0, 1, b"x")])
    with pytest.raises(FormatError, match="unknown storage method 0x1e0"):
        Archive.parse(unknown, "odd.lib")


def test_a_deflate_stream_longer_than_its_declared_size_is_a_warning():
    picture = bytes(range(256)) * 20
    packed = zlib.compress(picture, 9)[2:-4]
    exact = Archive.parse(raw_archive([(b"A.TEX", DEFLATE, len(picture), packed)]))
    assert validate_rsli(exact) == []
    for cut in (len(picture) - 1, 100):
        longer = Archive.parse(raw_archive([(b"A.TEX", DEFLATE, cut, packed)]))
        assert longer.members[0].data() == picture[:cut]
        assert [(f.severity, f.message) for f in validate_rsli(longer)] == [
            ("warning", "the Deflate stream goes on past the declared size")]
