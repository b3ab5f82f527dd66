"""Each stream codec against hand-packed bytes, and the lossless re-encoding of whole models."""

import struct

import numpy as np
import pytest
from fixtures import generated, key_records, labels_payload, node_records, nres, static_model, triangle_model

from core.authoring.build import build_model
from core.authoring.synth import random_model
from core.errors import FormatError
from core.msh import streams as S
from core.msh.labels import decode_labels, encode_labels
from core.msh.model import Model
from core.msh.validate import validate_model


def model_with(type_id, payload, a1=0, a2=0, a3=0):
    return Model.parse(nres([(type_id, "m", payload, a1, a2, a3)]))


def test_res1_node_fields():
    slots = list(range(15))
    model = model_with(1, node_records([(0x12, 0xFFFF, 7, 9, slots), (3, 0, 0xFFFF, 10)]), 2, 0, 38)
    nodes = model.nodes
    assert nodes[0]["flags"] == 0x12 and nodes[0]["parent"] == 0xFFFF
    assert (nodes[0]["map_start"], nodes[0]["fallback_key"]) == (7, 9)
    assert nodes[0]["slots"].tolist() == slots
    assert nodes[1]["parent"] == 0 and nodes[1]["slots"].tolist() == [0xFFFF] * 15


def test_res1_legacy_stride_24_is_kept_as_words():
    payload = struct.pack("<24H", *range(24))
    model = model_with(1, payload, 2, 0, 24)
    assert model.is_legacy and model.node_count == 2 and len(model.nodes) == 0
    assert model.legacy_nodes["words"][1].tolist() == list(range(12, 24))
    assert model.reencoded().to_bytes() == model.to_bytes()


def test_res2_header_and_slots_with_unknown_tail():
    header = struct.pack("<35f", *range(35))
    slot = struct.pack("<4H10f5I", 1, 2, 3, 4, *range(10), 0xDEADBEEF, 1, 2, 3, 0xFFFFFFFF)
    model = model_with(2, header + slot, 1, 0, 68)
    assert model.header["hull"][1].tolist() == [3, 4, 5]
    assert model.header["sphere"].tolist() == [24, 25, 26, 27]
    assert model.header["segment"].tolist() == list(range(28, 35))
    s = model.slots[0]
    assert (s["tri_start"], s["tri_count"], s["batch_start"], s["batch_count"]) == (1, 2, 3, 4)
    assert s["aabb_min"].tolist() == [0, 1, 2] and s["sphere_radius"] == 9
    assert s["unknown"].tolist() == [0xDEADBEEF, 1, 2, 3, 0xFFFFFFFF]


def test_vertex_streams_decode_by_the_spec_formulas():
    normals = model_with(4, bytes([127, 0x80, 0, 5])).normals_raw
    assert S.decode_normals(normals).tolist() == [[1.0, -1.0, 0.0]]  # -128/127 is clamped
    uvs = model_with(5, struct.pack("<2H", 1024, 0xFE00)).uvs_raw
    assert S.decode_uvs(uvs).tolist() == [[1.0, 63.5]]  # unsigned (digest fact 19): 0xFE00 is not -0.5
    positions = model_with(3, struct.pack("<3f", 1.5, -2, 3)).positions
    assert positions.tolist() == [[1.5, -2, 3]]


def test_slot_positions_and_names_follow_stage_and_lod():
    assert S.slot_position(0, 0) == 0 and S.slot_position(1, 4) == 9 and S.slot_position(2, 3) == 13
    assert [S.slot_label(p) for p in (0, 3, 4, 7, 14)] == [
        "intact LOD 0", "intact LOD 3", "intact first-person", "damage 1 LOD 2", "damage 2 first-person"]


def test_quantisation_formulas():
    assert S.encode_normals(np.array([[1.0, -1.0, 0.004]])).tolist() == [[127, -127, 1]]
    assert S.encode_uvs(np.array([[40.0, -0.5], [64.0, 0.25]])).tolist() == [[40960, 0], [65535, 256]]
    assert S.encode_rotations(np.array([[1.0, -1.0, 0.5, 2.0]])).tolist() == [[32767, -32767, 16384, 32767]]
    assert S.decode_rotations(np.array([[32767, -32767, 0, 16384]], np.int16))[0, 0] == np.float32(1.0)


def test_res7_triangles_and_selectors():
    payload = struct.pack("<4H3hH", 0x22, 1, 0xFFFF, 2, 0, -32767, 32767, 0b110110)
    tri = model_with(7, payload).triangles[0]
    assert tri["flags"] == 0x22 and tri["links"].tolist() == [1, 0xFFFF, 2]
    assert S.decode_triangle_normals(tri["normal"]).tolist() == [0.0, -1.0, 1.0]
    assert S.selectors(np.array([tri["selectors"]]))[0].tolist() == [2, 1, 0xFFFF]


def test_res13_batch_fields_at_unaligned_offsets():
    payload = struct.pack("<5HIHI", 1, 2, 0xFF03, 4, 5, 0x01020304, 7, 0x0A0B0C0D)
    b = model_with(13, payload).batches[0]
    assert (b["flags"], b["material_index"], b["material"], b["unk6"]) == (1, 2, 0xFF03, 4)
    assert (b["index_count"], b["index_start"], b["unk14"], b["base_vertex"]) == (5, 0x01020304, 7, 0x0A0B0C0D)


def test_res8_keys_and_res19_words():
    model = Model.parse(nres([
        (8, "m", key_records([(1, 2, 3, 4.5, 32767, -1, 2, -32768)]), 1, 0, 4),
        (19, "m", struct.pack("<3H", 0, 5, 0xFFFF), 3, 17, 2),
    ]))
    k = model.keys[0]
    assert k["pos"].tolist() == [1, 2, 3] and k["time"] == 4.5 and k["rot"].tolist() == [32767, -1, 2, -32768]
    assert model.map_words.tolist() == [0, 5, 0xFFFF] and model.frame_count == 17


def test_res9_names_and_res10_labels():
    names = b"Base_TL".ljust(32, b"\0") + b"o01_0_m1o1".ljust(32, b"\0") + bytes(32)
    labels = labels_payload([b"", "часть".encode("cp1251"), b"lbl"])
    model = Model.parse(nres([(9, "m", names, 3, 0, 0), (10, "m", labels, 3, 0, 0)]))
    assert model.labels == [None, "часть".encode("cp1251"), b"lbl"]
    assert [model.node_name(i) for i in range(3)] == ["Base_TL", "o01_0_m1o1", "lbl"]
    assert encode_labels(model.labels) == labels


def test_a_res10_label_holding_a_nul_is_read_as_stored_and_warned_about():
    """No source measured a NUL inside a label: it is kept (written back as read) and shown up to the NUL."""
    payload = struct.pack("<I", 3) + b"a\0b\0"
    assert decode_labels(payload) == [b"a\0b"] and encode_labels(decode_labels(payload)) == payload
    model = model_with(10, payload)
    assert model.labels == [b"a\0b"] and model.reencoded().to_bytes() == model.to_bytes()
    found = [f for f in validate_model(model) if f.stream == "Res10" and "NUL before" in f.message]
    assert [(f.severity, f.index) for f in found] == [("warning", 0)]


@pytest.mark.parametrize("payload, index, message", [
    (b"\x01\0", 0, "truncated"),
    (struct.pack("<I", 5) + b"abc", 0, "runs past the end"),
    (struct.pack("<I", 0) + struct.pack("<I", 2) + b"abc", 1, "not NUL-terminated"),
])
def test_res10_damage_is_reported_with_its_record(payload, index, message):
    model = model_with(10, payload)
    with pytest.raises(FormatError) as info:
        decode = model.labels  # noqa: F841
    finding = info.value.findings[0]
    assert (finding.stream, finding.index) == ("Res10", index) and message in finding.message
    assert model.reencoded().to_bytes() == model.to_bytes()  # kept raw
    with pytest.raises(ValueError):
        decode_labels(payload)


def test_ragged_streams_read_whole_records_only():
    model = model_with(3, struct.pack("<4f", 1, 2, 3, 4))
    assert model.positions.tolist() == [[1, 2, 3]]
    assert model.reencoded().to_bytes() == model.to_bytes()


def reencodes_identically(data: bytes) -> bool:
    model = Model.parse(data)
    return model.reencoded().to_bytes() == data and model.to_bytes() == data


def test_lossless_generated_model_with_many_nodes():
    assert reencodes_identically(generated(3, node_count=60, frame_count=200))


def test_lossless_streams_18_and_20_and_unknown_streams():
    extra = [(18, struct.pack("<6H", 1, 2, 3, 4, 5, 6), 3, 0, 4),
             (20, b"\x01\x02\x03\x04\x05", 5, 0, 0),
             (17, b"graph", 1, 0, 0),
             (99, b"unknown payload", 7, 8, 9)]
    data = triangle_model([(0, 0xFFFF, 0xFFFF, 0)], [(0, 0, 0, 0, 32767, 0, 0, 0)], [], 1, extra=extra)
    model = Model.parse(data)
    assert model.lightmap_uvs_raw.tolist() == [[1, 2], [3, 4], [5, 6]]
    assert bytes(model.data(20)) == b"\x01\x02\x03\x04\x05"
    assert model.stream(99).attr3 == 9
    assert reencodes_identically(data)


def test_lossless_shuffled_type_order():
    spec = random_model(5, node_count=5)
    model = build_model(spec)
    entries = list(model.archive.entries)
    shuffled = [entries[i] for i in (7, 2, 0, 11, 5, 9, 1, 3, 10, 4, 6, 8)]
    data = nres([(e.type_id, e.name_str, bytes(e.data), e.attr1, e.attr2, e.attr3) for e in shuffled])
    assert reencodes_identically(data)
    assert Model.parse(data).nodes.tobytes() == model.nodes.tobytes()


def test_lossless_legacy_and_static_models():
    legacy = triangle_model(struct.pack("<12H", *range(12)), [(0, 0, 0, 0, 32767, 0, 0, 0)], [], 1, node_stride=24)
    assert reencodes_identically(legacy)
    assert reencodes_identically(static_model(4))


def test_set_stream_replaces_payload_and_attrs():
    model = Model.parse(static_model(2))
    model.set_stream(3, struct.pack("<6f", *range(6)), attr1=2)
    out = Model.parse(model.to_bytes())
    assert out.positions.tolist() == [[0, 1, 2], [3, 4, 5]] and out.stream(3).attr1 == 2
    model.set_stream(42, b"new", attr1=1, attr3=0)
    assert bytes(Model.parse(model.to_bytes()).data(42)) == b"new"
