"""core.authoring.splice: replacing some slots of a model and keeping the others byte for byte."""

import numpy as np

from core.animation.tracks import read_animation
from core.authoring.build import ModelDef, NodeDef, Part, build_model
from core.authoring.splice import NewPart, splice_slots
from core.authoring.synth import box
from core.msh.model import Model
from core.msh.validate import validate_model


def shared_record_model() -> Model:
    """Two nodes whose intact LOD 0 slots use one slot record (node 1's table points at node 0's)."""
    pos, tris = box()
    model = build_model(ModelDef([NodeDef("a"), NodeDef("b", 0)], [Part(0, pos, tris), Part(1, pos * 2, tris)]))
    nodes = model.nodes.copy()
    nodes[1]["slots"][0] = nodes[0]["slots"][0]
    model.set_stream(1, nodes.tobytes())
    return Model.parse(model.to_bytes())


def test_nothing_replaced_gives_the_source_bytes():
    source = shared_record_model()
    assert splice_slots(source, [], animation=read_animation(source)).to_bytes() == source.to_bytes()


def test_a_shared_record_stays_for_the_node_that_still_uses_it():
    source = shared_record_model()
    pos, tris = box()
    out = splice_slots(source, [NewPart(Part(1, pos * 3, tris))], animation=read_animation(source))
    assert not any(f.is_error for f in validate_model(out))
    kept, new = out.slots[int(out.nodes[0]["slots"][0])], out.slots[int(out.nodes[1]["slots"][0])]
    assert kept.tobytes() == source.slots[0].tobytes()
    assert np.allclose(new["aabb_max"], 1.5)
    # The new part reaches outside the old hull: the header is made again around every part.
    assert out.header["sphere"][3] > source.header["sphere"][3]


def test_kept_slots_after_a_bigger_new_part_keep_their_bytes_with_moved_offsets():
    pos, tris = box()
    source = build_model(ModelDef([NodeDef("a"), NodeDef("b", 0)],
                                  [Part(0, pos, tris), Part(1, pos * 0.5, tris), Part(1, pos * 0.25, tris, slot=1)]))
    big = np.concatenate([pos, pos + 0.1])
    out = splice_slots(source, [NewPart(Part(0, big, np.concatenate([tris, tris + 8])))],
                       animation=read_animation(source))
    assert not any(f.is_error for f in validate_model(out))
    for node, position in ((1, 0), (1, 1)):
        old = source.slots[int(source.nodes[node]["slots"][position])]
        new = out.slots[int(out.nodes[node]["slots"][position])]
        assert int(new["tri_start"]) == int(old["tri_start"]) + 12
        shift = np.where(source.triangles["links"] == 0xFFFF, 0, 12)
        start, count = int(old["tri_start"]), int(old["tri_count"])
        assert np.array_equal(out.triangles["links"][start + 12:start + 12 + count],
                              source.triangles["links"][start:start + count] + shift[start:start + count])
        assert out.positions[int(out.batches[int(new["batch_start"])]["base_vertex"])].tobytes() == \
            source.positions[int(source.batches[int(old["batch_start"])]["base_vertex"])].tobytes()


def test_a_kept_slot_whose_indices_count_from_vertex_zero_still_draws_its_vertices():
    """Slot 1's batch uses base vertex 0 and indices 8..15: once slot 0 is replaced by a smaller part, the
    indices are lowered (the base vertex cannot go below 0) and still reach the same vertex bytes."""
    pos, tris = box()
    source = build_model(ModelDef([NodeDef("a"), NodeDef("b", 0)], [Part(0, pos, tris), Part(1, pos * 0.5, tris)]))
    batches, indices = source.batches.copy(), source.indices.copy()
    second = int(source.slots[1]["batch_start"])
    start, count = int(batches[second]["index_start"]), int(batches[second]["index_count"])
    indices[start:start + count] += np.uint16(batches[second]["base_vertex"])
    batches[second]["base_vertex"] = 0
    source.set_stream(13, batches.tobytes())
    source.set_stream(6, indices.tobytes())
    source = Model.parse(source.to_bytes())
    triangle = np.array([[0, 1, 2]])
    out = splice_slots(source, [NewPart(Part(0, pos[:3], triangle))], animation=read_animation(source))
    assert not any(f.is_error for f in validate_model(out))

    def drawn(model, node):
        slot = model.slots[int(model.nodes[node]["slots"][0])]
        batch = model.batches[int(slot["batch_start"])]
        used = model.indices[int(batch["index_start"]):int(batch["index_start"]) + int(batch["index_count"])]
        return model.positions[used.astype(np.int64) + int(batch["base_vertex"])].tobytes()

    assert drawn(out, 1) == drawn(source, 1)
