"""Byte-identical round trips (issue: lossless reading and writing) and the allocation bound."""

import struct
import tracemalloc

import numpy as np
from fixtures import generated, nres, static_model, triangle_model
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.animation.tracks import read_animation, write_animation
from core.authoring.build import build_model
from core.authoring.synth import random_model
from core.cli.roundtrip import rewritten
from core.container.nres import MODEL_TYPE_ID, Archive
from core.files import read_container, validate_container
from core.msh.model import Model
from core.msh.validate import validate_model


def identical(data: bytes) -> bool:
    return rewritten(read_container(data)) == data


def test_bundled_sample_round_trips(sample_msh, sample_rlb):
    assert identical(sample_msh) and identical(sample_rlb)


def test_archive_with_several_models_non_models_and_tricky_names():
    from core.appearance.texm import encode_texm
    from core.authoring.synth import gradient

    entries = [
        (MODEL_TYPE_ID, "AB.msh", generated(1, node_count=4), 0, 0, 0),
        (MODEL_TYPE_ID, "A_B.msh", generated(2, node_count=7, fractional=True), 0, 0, 0),
        (0x52414557, "AB.wea", b"1\r\n0 X\r\n", 0, 0, 0),
        (0x6D786554, "dup", encode_texm(gradient(3, 2), 565, flags5=0x04000000).to_bytes(), 3, 4, 5),
        (0x6D786554, "DUP", encode_texm(gradient(2, 2), 0, mips=False).to_bytes(), 6, 7, 8),
        (0x30544D41, "[odd]^name_`", b"\0" * 9, 0, 0, 0),
        (1, "plain.msh", static_model(2), 0, 0, 0),  # nested by its name, not its type
    ]
    data = nres(entries)
    container = read_container(data)
    assert not container.is_model
    assert [e.name_str for e in container.model_entries()] == ["AB.msh", "A_B.msh", "plain.msh"]
    assert identical(data)
    found = validate_container(container)
    assert not any(f.is_error for f in found)
    assert {f.where for f in found} <= {"A_B.msh"}  # its fractional key times are non-canonical


def test_replacing_one_nested_model_keeps_every_other_entry():
    data = nres([(MODEL_TYPE_ID, "a.msh", generated(1), 0, 0, 0), (MODEL_TYPE_ID, "b.msh", generated(2), 0, 0, 0),
                 (5, "other", b"other bytes", 1, 2, 3)])
    container = read_container(data)
    model = container.open_model("A.MSH")
    anim = read_animation(model)
    anim.tracks[0].pos[:] += 1
    anim.tracks[0].edited = True
    write_animation(model, anim)
    container.replace_model("a.msh", model)
    out = Archive.parse(container.to_bytes())
    before = Archive.parse(data)
    for name in ("b.msh", "other"):
        assert bytes(out.find(name).data) == bytes(before.find(name).data)
    assert bytes(out.find("a.msh").data) != bytes(before.find("a.msh").data)
    assert validate_model(Model.parse(bytes(out.find("a.msh").data))) == []


def test_non_canonical_container_of_a_model_round_trips():
    base = Model.parse(static_model(2))
    entries = [(e.type_id, e.name_str, bytes(e.data), e.attr1, e.attr2, e.attr3) for e in base.archive]
    data = nres(entries, gaps={3: b"\x07" * 16})
    assert identical(data)


def test_models_with_fractional_times_and_non_canonical_maps_round_trip():
    nodes = [(0, 0xFFFF, 0, 2)]
    keys = [(0, 0, 0, 0, 32767, 0, 0, 0), (1, 0, 0, 1.5, 0, 32767, 0, 0), (2, 0, 0, 3.25, 0, 0, 32767, 0)]
    data = triangle_model(nodes, keys, [0, 0xFFFF, 1, 5], 4)
    assert identical(data)


def test_huge_count_fields_do_not_allocate():
    data = bytearray(triangle_model([(0, 0xFFFF, 0, 1)], [(0, 0, 0, 0, 32767, 0, 0, 0)] * 2, [0, 0], 2))
    model = Model.parse(bytes(data))
    for entry in model.archive.entries:  # every attr set to its maximum
        entry.attr1 = entry.attr2 = 0xFFFFFFFF
    hostile = model.to_bytes()
    tracemalloc.start()
    try:
        container = read_container(hostile)
        findings = validate_container(container)
        rewritten(container)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert any(f.is_error for f in findings)
    assert peak < 64 * len(hostile) + 2_000_000


model_specs = st.builds(
    random_model,
    seed=st.integers(0, 2**32 - 1),
    node_count=st.integers(1, 24),
    frame_count=st.integers(1, 120),
    animated=st.floats(0, 1),
    every_frame=st.booleans(),
    fractional=st.booleans(),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=model_specs, extra=st.lists(st.sampled_from([15, 18, 20, 17, 33]), unique=True, max_size=3))
def test_random_valid_models_write_read_same_model_and_bytes(spec, extra):
    vertex_count = sum(len(p.positions) for p in spec.parts)
    spec.extra_streams = [(t, bytes(range(8)) * vertex_count if t == 15 else struct.pack("<2H", 3, 4) * vertex_count
                           if t == 18 else bytes([t]) * 5, None if t in (15, 18) else 5, 0,
                           {15: 8, 18: 4}.get(t, 0)) for t in extra]
    written = build_model(spec)
    data = written.to_bytes()
    read = Model.parse(data)
    assert not any(f.is_error for f in validate_model(read))
    anim = read_animation(read)
    for track, original in zip(anim.tracks, spec.animation.tracks):
        np.testing.assert_array_equal(track.times, original.times)
        np.testing.assert_array_equal(track.pos, original.pos)
        np.testing.assert_array_equal(track.rot, original.rot)
    assert [n.name for n in spec.nodes] == [read.node_name(i) for i in range(read.node_count)]
    assert identical(data)
    write_animation(read, anim, rebuild=True)
    assert read.to_bytes() == data
