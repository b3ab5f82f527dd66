"""Every input the fuzzer ever saved, and hand-made edge inputs, replayed through the fuzz targets."""

import struct
from pathlib import Path

import pytest
from fixtures import generated, nres
from fuzz_targets import TARGETS

CORPUS = Path(__file__).resolve().parent / "fuzz_corpus"


def test_every_saved_fuzz_input():
    assert sorted(p.name for p in CORPUS.iterdir() if p.is_dir()) == sorted(TARGETS)
    for target in TARGETS:
        for path in sorted((CORPUS / target).iterdir()):
            if not path.name.startswith("."):
                TARGETS[target](path.read_bytes())


def edge_inputs():
    good = generated(5, node_count=3, frame_count=6)
    directory = len(good) - 64 * struct.unpack_from("<i", good, 8)[0]
    out = [b"", b"NRes", good[:16], nres([]), nres([(1, "a", b"", 0, 0, 0)])]
    for value in (0, 1, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFF):
        for field in (8, 12):
            data = bytearray(good)
            struct.pack_into("<I", data, field, value)
            out.append(bytes(data))
        for record_field in (4, 8, 12, 16, 56, 60):  # attr1, attr2, size, attr3, data_offset, sort_index
            data = bytearray(good)
            struct.pack_into("<I", data, directory + record_field, value)
            out.append(bytes(data))
    return out


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_edge_values_in_every_count_and_offset_field(target):
    for data in edge_inputs():
        TARGETS[target](b"\0" * 16 + data if target == "sampler" else data)
