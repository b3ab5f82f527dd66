"""Hostile RsLi archives and fonts: mutated bytes (words that lie about counts, sizes and offsets, cut files)
give a FormatError naming the file, or findings naming the member and its row, never another exception, and
reading stays within bounded memory whatever the sizes claim. RSLI_SWEEP_EXAMPLES soaks more."""

import contextlib
import os
import struct
import tracemalloc

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.authoring.fonts import sample_font, sample_palette
from core.errors import FormatError
from core.fonts import parse_font, parse_palette, validate_font
from core.fonts.pictures import picture_rgba, pictures_in
from core.rsli import DEFLATE, LZSS, Archive, validate_rsli

EXAMPLES = int(os.environ.get("RSLI_SWEEP_EXAMPLES", "120"))
WORDS = [0, 1, 0x7FFF, 0x8000, 0xFFFF, 0x10000, 0x7FFFFFFF, 0xFFFFFFFF]
MB = 2**20


def small_archive() -> bytes:
    archive = Archive(seed=0x2468)
    archive.add("PAL.PAL", bytes(range(256)) * 3 + b"Ipol" * 20, LZSS)
    archive.add("FONT.TFT", sample_font()[:600], DEFLATE)
    archive.add("LOGO.TEX", b"Texm" + bytes(range(64)) * 6, DEFLATE)
    return archive.to_bytes()


ARCHIVE = small_archive()
FONT = sample_font(0)
PALETTE = sample_palette().to_bytes()


def mutated(data, blob: bytes) -> bytes:
    blob = bytearray(blob)
    for _ in range(data.draw(st.integers(1, 6))):
        at = data.draw(st.integers(0, len(blob) - 4))
        if data.draw(st.booleans()):
            blob[at] = data.draw(st.integers(0, 255))
        else:
            blob[at:at + 4] = struct.pack("<I", data.draw(st.sampled_from(WORDS)))
    if data.draw(st.integers(0, 3)) == 0:
        blob = blob[:data.draw(st.integers(0, len(blob)))]
    return bytes(blob)


def read_everything(blob: bytes) -> None:
    """Every reading of an archive: strict, tolerant, validated, unpacked, written back, its pictures."""
    try:
        Archive.parse(blob, "hostile.lib")
    except FormatError as exc:
        assert "hostile.lib" in exc.describe()
    try:
        archive = Archive.parse(blob, "hostile.lib", tolerant=True)
    except FormatError as exc:
        assert "hostile.lib" in exc.describe()
        return
    for finding in validate_rsli(archive):
        if finding.stream == "member":
            assert finding.index is not None and finding.index < len(archive)
    for member in archive:
        try:
            data = member.data("hostile.lib")
            assert len(data) == member.size
        except FormatError as exc:
            assert "hostile.lib" in exc.describe() and "member[" in exc.describe()
    with contextlib.suppress(FormatError):
        assert Archive.parse(archive.to_bytes(), tolerant=True) is not None
    try:
        for picture in pictures_in(blob, "hostile.lib"):
            picture_rgba(blob, picture.index, "hostile.lib")
    except FormatError as exc:
        assert "hostile.lib" in exc.describe()


@settings(derandomize=True, max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_mutated_archives_give_only_format_errors_in_bounded_memory(data):
    blob = mutated(data, ARCHIVE)
    tracemalloc.start()
    try:
        read_everything(blob)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * MB, peak


@settings(derandomize=True, max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_mutated_fonts_and_palettes_give_only_format_errors(data):
    blob = mutated(data, data.draw(st.sampled_from([FONT, PALETTE])))
    for call in (lambda: validate_font(parse_font(blob, "f.tft")), lambda: parse_font(blob, "f.tft").rgba(
            parse_palette(PALETTE)), lambda: parse_font(blob, "f.tft").to_bytes(),
            lambda: parse_palette(blob, "pal.pal").to_bytes()):
        try:
            call()
        except FormatError as exc:
            assert exc.describe("f.tft")


def test_the_sweeps_inputs_read_cleanly():
    archive = Archive.parse(ARCHIVE)
    assert validate_rsli(archive) == [] and archive.to_bytes() == ARCHIVE
    font = parse_font(FONT)
    assert validate_font(font) == [] and font.to_bytes() == FONT
    assert font.rgba().shape == (128, 128, 4)
