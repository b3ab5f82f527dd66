"""One failing fixture per validation rule (msh-core.md 7, msh-animation.md 9)."""

import struct

import pytest
from fixtures import key_records, labels_payload, node_records, nres, static_model, triangle_model

from core.errors import FormatError
from core.files import read_model
from core.msh.model import Model
from core.msh.validate import validate_model

I = (32767, 0, 0, 0)  # noqa: E741 -- identity rotation, file order
NODES = [(0, 0xFFFF, 0xFFFF, 0), (0, 0, 0, 3)]
KEYS = [(0, 0, 0, 0, *I), (0, 0, 0, 0, *I), (1, 0, 0, 2, *I), (2, 0, 0, 4, *I)]
WORDS = [1, 1, 2, 2, 3]


def animated(nodes=NODES, keys=KEYS, words=WORDS, frame_count=5, **kw) -> bytes:
    return triangle_model(nodes, keys, words, frame_count, **kw)


def streams_of(data: bytes) -> list[list]:
    model = Model.parse(data)
    return [[e.type_id, e.name_str, bytes(e.data), e.attr1, e.attr2, e.attr3] for e in model.archive]


def edited(data: bytes, type_id: int, payload=None, **attrs) -> bytes:
    """The model with one stream's payload or attrs changed (payload=False removes it)."""
    out = []
    for s in streams_of(data):
        if s[0] == type_id:
            if payload is False:
                continue
            if payload is not None:
                s[2] = payload
            for key, value in attrs.items():
                s[{"attr1": 3, "attr2": 4, "attr3": 5}[key]] = value
        out.append(tuple(s))
    return nres(out)


def findings(data: bytes):
    return validate_model(Model.parse(data))


def only(data: bytes, severity: str, stream: str, index, text: str):
    found = [f for f in findings(data) if f.severity == severity and f.stream == stream and text in f.message]
    assert found, f"no {severity} {stream} {text!r} in {[f.format() for f in findings(data)]}"
    assert found[0].index == index
    return found[0]


def test_the_base_fixtures_are_valid_without_warnings():
    assert findings(animated()) == []
    assert findings(static_model(3)) == []


def test_strict_read_raises_with_every_record_and_tolerant_read_returns_them():
    bad = animated(keys=[*KEYS[:1], KEYS[2], (1, 0, 0, float("nan"), *I), KEYS[3]])
    model, found = read_model(bad)
    assert isinstance(model, Model) and any(f.is_error for f in found)
    with pytest.raises(FormatError) as info:
        read_model(bad, name="bad.msh", strict=True)
    assert info.value.findings == found
    assert str(info.value).startswith("bad.msh: Res8[2]: error:")


@pytest.mark.parametrize("type_id", [1, 2, 3, 6, 13])
def test_missing_required_stream(type_id):
    only(edited(animated(), type_id, False), "error", f"Res{type_id}", None, "required stream")


def test_duplicate_and_unknown_streams_are_warnings():
    data = animated(extra=[(3, b"", 0, 0, 12), (77, b"?", 1, 0, 0)])
    only(data, "warning", "Res3", None, "duplicate stream")
    only(data, "warning", "Res77", None, "unknown stream type 77")
    assert not any(f.is_error for f in findings(data))


def test_node_stride_must_be_38_or_24():
    only(edited(animated(), 1, attr3=30), "error", "Res1", None, "neither 38 nor 24")


def test_node_table_size_must_be_whole_records():
    data = edited(animated(), 1, node_records(NODES) + b"\0\0")
    only(data, "error", "Res1", None, "not a multiple of the node stride 38")


@pytest.mark.parametrize("type_id, stride", [(3, 12), (4, 4), (5, 4), (6, 2), (7, 16), (13, 20), (8, 24), (19, 2)])
def test_ragged_stream_sizes(type_id, stride):
    payload = bytes(Model.parse(animated()).data(type_id)) + b"\x01"
    only(edited(animated(), type_id, payload), "error", f"Res{type_id}", None, f"multiple of the record size {stride}")


def test_attr3_and_attr1_and_attr2_rules():
    only(edited(animated(), 3, attr3=4), "error", "Res3", None, "attr3 4, expected 12")
    only(edited(animated(), 8, attr3=24), "error", "Res8", None, "attr3 24, expected 4")
    only(edited(animated(), 6, attr1=99), "warning", "Res6", None, "attr1 99 differs")
    only(edited(animated(), 8, attr2=1), "warning", "Res8", None, "attr2 1, expected 0")


def test_res2_rules():
    res2 = bytes(Model.parse(animated()).data(2))
    only(edited(animated(), 2, res2[:100]), "error", "Res2", None, "smaller than the 140-byte model header")
    only(edited(animated(), 2, res2 + b"\0" * 4), "error", "Res2", None, "not a multiple of 68")
    only(edited(animated(), 2, attr1=2), "error", "Res2", None, "attr1 2 differs from the slot count 1")
    only(edited(animated(), 2, attr3=64), "error", "Res2", None, "attr3 64, expected 68")


def test_slot_ranges():
    res2 = bytearray(Model.parse(animated()).data(2))
    batch_past = res2[:140] + struct.pack("<4H", 0, 1, 0, 2) + res2[148:]
    only(edited(animated(), 2, bytes(batch_past)), "error", "Res2", 0, "slot batches [0, 2) exceed the batch count 1")
    tri_past = res2[:140] + struct.pack("<4H", 1, 1, 0, 1) + res2[148:]
    message = "slot triangles [1, 2) exceed the triangle count 1"
    only(edited(animated(), 2, bytes(tri_past)), "error", "Res2", 0, message)


def test_per_vertex_streams_must_cover_every_vertex():
    only(edited(animated(), 4, bytes(8)), "error", "Res4", None, "2 records for 3 vertices")
    only(edited(animated(), 5, bytes(16)), "warning", "Res5", None, "4 records for 3 vertices")


def test_batch_index_range_and_vertex_range():
    far = struct.pack("<5HIHI", 0, 0, 0xFF00, 0, 3, 1, 0, 0)
    only(edited(animated(), 13, far), "error", "Res13", 0, "indices [1, 4) exceed the index count 3")
    base = struct.pack("<5HIHI", 0, 0, 0xFF00, 0, 3, 0, 0, 1)
    only(edited(animated(), 13, base), "error", "Res13", 0, "vertex 3 (base_vertex 1 + index) is out of range")


def test_triangle_links_out_of_range():
    tri = struct.pack("<4H3hH", 0, 5, 0xFFFF, 0xFFFF, 0, 0, 32767, 0x3F)
    only(edited(animated(), 7, tri), "error", "Res7", 0, "triangle links [5, 65535, 65535] out of range")


def test_labels_rules():
    only(edited(animated(), 10, b"\x05\0\0\0ab"), "error", "Res10", 0, "runs past the end")
    only(edited(animated(), 10, labels_payload([b"a"])), "error", "Res10", None, "1 records for 2 nodes")
    only(edited(animated(), 10, attr1=5), "warning", "Res10", None, "attr1 5 differs from the node count 2")
    only(edited(animated(), 10, attr3=1), "warning", "Res10", None, "attr3 1, expected 0")
    only(animated(extra=[(9, bytes(32), 1, 0, 0)]), "warning", "Res9", None, "1 names for 2 nodes")


def test_legacy_stride_24_is_valid_with_a_warning():
    data = triangle_model(struct.pack("<12H", *range(12)), [(0, 0, 0, 0, *I)], [], 1, node_stride=24)
    found = findings(data)
    assert not any(f.is_error for f in found)
    assert any(f.stream == "Res1" and "legacy 24-byte" in f.message for f in found)


def test_node_rules():
    only(animated(nodes=[NODES[0], (0, 9, 0, 3)]), "error", "Res1", 1, "parent 9 is out of range (2 nodes)")
    only(animated(nodes=[(0, 1, 0xFFFF, 0), (0, 0xFFFF, 0, 3)]), "warning", "Res1", 0, "does not precede")
    cycle = [(0, 1, 0xFFFF, 0), (0, 0, 0, 3)]
    assert {f.index for f in findings(animated(nodes=cycle)) if "cycle" in f.message} == {0, 1}
    bad_slot = node_records([NODES[0], (0, 0, 0, 3, [4] + [0xFFFF] * 14)])
    only(edited(animated(), 1, bad_slot), "error", "Res1", 1, "slot index 4 is out of range (1 slots)")


def test_frame_count_rules():
    # no source measured a frame count of 0 (retail-envelope 17): every frame then reads the fallback key
    only(animated(frame_count=0, words=[]), "warning", "Res19", None, "frame count (attr2) is 0")
    static = edited(static_model(1), 19, attr2=3)
    only(static, "warning", "Res19", None, "empty map with frame count 3")
    only(animated(words=[*WORDS, 3], frame_count=6), "warning", "Res19", None, "differs from the last key time + 1")


def test_fallback_out_of_range_and_not_increasing():
    only(animated(nodes=[NODES[0], (0, 0, 0, 9)]), "error", "Res1", 1, "fallback key 9 is out of range (4 keys)")
    nodes = [(0, 0xFFFF, 0xFFFF, 3), (0, 0, 0xFFFF, 1)]
    only(animated(nodes=nodes, words=[]), "warning", "Res1", 1, "does not follow the previous node's 3")


def test_key_times_must_strictly_increase():
    keys = [*KEYS[:2], (1, 0, 0, 0, *I), KEYS[3]]
    # implied on retail, never measured (retail-envelope 4.8, 17): a warning; a non-finite time is an error (all
    # retail key times are finite)
    only(animated(keys=keys), "warning", "Res8", 2, "key times of node 1 do not strictly increase (0.0 then 0.0)")
    nan = [*KEYS[:2], (1, 0, 0, float("nan"), *I), KEYS[3]]
    only(animated(keys=nan), "error", "Res8", 2, "key time of node 1 is not finite (nan)")


def test_canonical_track_shape_warnings():
    late = [KEYS[0], (0, 0, 0, 1, *I), KEYS[2], KEYS[3]]
    only(animated(keys=late, words=[3, 1, 2, 2, 3]), "warning", "Res8", 1, "starts at time 1.0, not 0")
    fractional = [*KEYS[:2], (1, 0, 0, 2.5, *I), KEYS[3]]
    only(animated(keys=fractional), "warning", "Res8", 1, "fractional key times")
    two_static = [(0, 0xFFFF, 0xFFFF, 1), (0, 0, 0, 3)]
    only(animated(nodes=two_static, words=[2, 2, 2, 2, 3]), "warning", "Res1", 0, "node without a map has 2 keys")


def test_map_block_must_fit_and_needs_res19():
    only(animated(nodes=[NODES[0], (0, 0, 3, 3)]), "error", "Res1", 1, "map block [3, 8) exceeds the 5 map words")
    no_res19 = edited(animated(), 19, False)
    only(no_res19, "error", "Res1", 1, "map start 0 but the model has no Res19")


def test_map_word_needs_a_next_key():
    # Only reachable with a fallback past the pool: a word below it may then have no next key.
    data = animated(nodes=[NODES[0], (0, 0, 0, 9)], words=[1, 1, 2, 3, 1])
    only(data, "error", "Res19", 3, "node 1 frame 3: key 3 has no next key (4 keys)")


def test_non_canonical_map_words_are_warnings():
    only(animated(words=[1, 1, 2, 7, 3]), "warning", "Res19", 3, "1 frames hold words above the fallback key 3")
    only(animated(words=[1, 0, 2, 2, 3]), "warning", "Res19", 1, "point at keys before the node's own track")


def test_a_map_needs_two_keys():
    nodes = [(0, 0xFFFF, 0xFFFF, 0), (0, 0, 0, 1), (0, 0, 0xFFFF, 3)]
    keys = [KEYS[0], KEYS[1], (0, 0, 0, 0, *I), (0, 0, 0, 1, *I)]
    only(animated(nodes=nodes, keys=keys, words=[1, 1, 1, 1, 1]), "warning", "Res1", 1, "fewer than 2 keys")


def test_orphan_keys_and_map_layout_warnings():
    only(animated(keys=[*KEYS, KEYS[3]]), "warning", "Res8", 4, "1 keys after the last track")
    gap = animated(nodes=[NODES[0], (0, 0, 2, 3)], words=[0, 0, *WORDS])
    only(gap, "warning", "Res1", 1, "map block starts at word 2; canonical is 0")
    only(animated(words=[*WORDS, 0]), "warning", "Res19", None, "6 words; canonical blocks need 5")
    stray = animated(nodes=[NODES[0], (0, 0, 0xFFFF, 1)], keys=KEYS[:2], words=[0, 0])
    only(stray, "warning", "Res19", None, "2 words but no node has a map")


def test_every_finding_names_stream_and_index_in_its_text():
    data = animated(nodes=[NODES[0], (0, 0, 0, 9)])
    line = next(f for f in findings(data) if f.is_error).format("a.rlb")
    assert line.startswith("a.rlb: Res1[1]: error: fallback key 9")


@pytest.mark.parametrize("data", [
    key_records([(0, 0, 0, 0, *I)]),
    nres([(1, "m", b"\xff" * 38, 1, 0, 38)]),
    nres([(19, "m", b"", 0, 0, 2)]),
])
def test_validation_never_raises_on_partial_models(data):
    try:
        model = Model.parse(data)
    except FormatError:
        return
    assert any(f.is_error for f in validate_model(model))
