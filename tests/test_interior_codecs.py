"""Hall way (mesh stream 17) and ground plan (.bas): strict and tolerant reading, lossless writing, the edits a
modder makes (vertices moved, flags changed, links added) keeping links' tails and attr3, and the synthetic
building's retail extremes."""

import struct

import numpy as np
import pytest

from core.authoring import interiors as I
from core.container.nres import Archive
from core.errors import FormatError
from core.interior import bas as B
from core.interior import hallway as H
from core.msh.model import Model
from core.unit import objects


def test_the_building_carries_every_flag_and_link_kind_the_game_ships():
    model = I.building_model()
    graph, findings = H.hallway_of(model)
    assert findings == []
    summary = graph.summary()
    assert summary["places"] == {"creation": 1, "control pod": 1, "loading": 1, "unloading": 1}
    assert summary["gates"] == {"open": 8, "flyers only": 2, "shut": 0}
    assert summary["joints"] == [0, 1, 2]
    flags = graph.vertices["flags"]
    assert (flags & H.ANY_SIZE).any() and (flags & H.BUILDING_SIZE).any() and (flags & H.CREATION_FALLBACK).any()
    entry = model.stream(H.TYPE_ID)
    assert (entry.attr1, entry.attr2) == (8, 10) and entry.size == 20 * 8 + 40 * 10


def test_an_unmoved_hall_way_writes_back_byte_for_byte():
    model = I.building_model()
    before = model.to_bytes()
    graph, _ = H.hallway_of(model)
    assert H.write_hallway(model, graph) is False
    assert model.to_bytes() == before


def test_an_unchanged_hall_way_keeps_attributes_that_disagree_with_its_size():
    model = I.building_model()
    model.stream(17).attr1 = 99
    before = model.to_bytes()
    graph, findings = H.hallway_of(model, tolerant=True)
    assert findings and H.write_hallway(model, graph) is False and model.to_bytes() == before


def test_moving_a_vertex_changes_its_position_only_and_keeps_tails_and_attr3():
    graph = I.hallway()
    graph.attr3 = 0x1234
    graph.links["tail"][3][6] = 0xDEADBEEF  # an unexplained word
    model = I.building_model(graph)
    original = bytes(model.stream(17).data)
    edited, _ = H.hallway_of(model)
    edited.vertices["position"][2] = (7.0, 8.0, 9.0)
    assert H.write_hallway(model, edited) is True
    entry = model.stream(17)
    data = bytes(entry.data)
    assert entry.attr3 == 0x1234 and (entry.attr1, entry.attr2) == (8, 10)
    assert struct.unpack_from("<3f", data, 40) == (7.0, 8.0, 9.0)
    assert data[:40] == original[:40] and data[52:] == original[52:]
    again = Model.parse(model.to_bytes())
    assert H.hallway_of(again)[0].links["tail"][3][6] == 0xDEADBEEF


def test_a_link_added_updates_the_counts():
    model = I.building_model()
    graph, _ = H.hallway_of(model)
    graph.links = np.concatenate([graph.links, H.hallway_of_rows([], [(0, 7, H.door_tail())]).links])
    H.write_hallway(model, graph)
    entry = Model.parse(model.to_bytes()).stream(17)
    assert (entry.attr1, entry.attr2, entry.size) == (8, 11, 20 * 8 + 40 * 11)


def test_a_link_to_no_vertex_is_refused_before_anything_changes():
    model = I.building_model()
    before = model.to_bytes()
    graph, _ = H.hallway_of(model)
    graph.links["end"][0] = 99
    with pytest.raises(FormatError, match=r"Res17\[0\].*link 0 joins vertex 0 to 99"):
        H.write_hallway(model, graph)
    assert model.to_bytes() == before


def test_counts_that_disagree_with_the_size_are_refused_strictly_and_read_tolerantly():
    graph = I.hallway()
    data = graph.to_bytes() + b"\x01\x02\x03"
    with pytest.raises(FormatError, match=r"^hall: Res17: error: 563 bytes"):
        H.parse_hallway(data, 8, 10, 0, "hall")
    tolerant, findings = H.read_hallway(data, 8, 10)
    assert tolerant.to_bytes() == data and tolerant.extra == b"\x01\x02\x03" and findings[0].is_error
    huge, _ = H.read_hallway(data, 0xFFFFFFF, 0xFFFFFFF)
    assert huge.to_bytes() == data and len(huge.vertices) == len(data) // 20


def test_a_joint_past_the_nodes_is_a_warning():
    graph = I.hallway()
    graph.vertices["joint"][7] = 40
    findings = H.validate_hallway(I.building_model(graph))
    assert [f.format() for f in findings] == ["Res17[7]: warning: vertex 7 hangs on node 40; the model has 3 nodes "
                                              "(kept)"]


def test_the_traced_plan_resolves_its_back_reference_on_every_corner():
    model = I.building_model()
    plan = I.ground_plan_for(model)
    assert plan.form == B.TWO_RINGS
    assert B.back_reference_hits(plan, model.positions, B.triangle_vertices(model)) == plan.inner[0].count
    summary = plan.summary()
    assert summary["inner"][0]["anticlockwise"] and summary["outer"][0]["closed"]
    assert 1.32 <= summary["outer"][0]["area"] / summary["inner"][0]["area"] <= 2.7


@pytest.mark.parametrize("name", ["traced", "corners_3", "corners_26", "multi_contour"])
def test_every_plan_form_reads_and_writes_back_byte_for_byte(name):
    data = I.extreme_plans()[name]
    plan = B.parse_bas(data, f"{name}.bas")
    assert plan.to_bytes() == data
    assert plan.editable == (name != "multi_contour")


def test_the_two_ring_form_is_one_inner_ring_with_back_references_then_one_outer_ring():
    data = I.extreme_plans()["corners_3"]
    assert struct.unpack_from("<2I", data, 0) == (1, 3)
    assert struct.unpack_from("<I", data, 8 + 4 * 12 + 2 * 3 * 4) == (1,)
    assert len(data) == 8 + 48 + 24 + 8 + 48


def test_moving_corners_keeps_the_unmoved_ones_and_closes_the_ring():
    plan = B.parse_bas(I.extreme_plans()["corners_26"])
    inner = plan.inner[0].corner_points.copy()
    inner[0] = (1.0, 2.0, 3.0)
    moved = plan.moved(inner=inner)
    data = moved.to_bytes()
    again = B.parse_bas(data)
    assert tuple(again.inner[0].points[0]) == tuple(again.inner[0].points[-1]) == (1.0, 2.0, 3.0)
    assert again.outer[0].points.tobytes() == plan.outer[0].points.tobytes()
    assert again.inner[0].points[1:-1].tobytes() == plan.inner[0].points[1:-1].tobytes()
    assert plan.moved(inner=plan.inner[0].corner_points).to_bytes() == plan.raw


def test_moving_refuses_a_changed_count_and_the_carried_forms():
    plan = B.parse_bas(I.extreme_plans()["corners_3"])
    with pytest.raises(FormatError, match="3 corners; 4 given"):
        plan.moved(outer=np.zeros((4, 3)))
    with pytest.raises(FormatError, match="only the two-ring form"):
        B.parse_bas(I.extreme_plans()["multi_contour"]).moved(inner=np.zeros((4, 3)))


def test_a_truncated_plan_is_refused_strictly_and_carried_tolerantly():
    data = I.extreme_plans()["traced"][:-5]
    with pytest.raises(FormatError, match=r"^b\.bas: bas: error: ends at byte|^b\.bas: bas: error: outer"):
        B.parse_bas(data, "b.bas")
    plan, findings = B.read_bas(data)
    assert plan.to_bytes() == data and not plan.editable and findings


def test_the_fort_record_names_the_plan_in_fortif_rlb():
    files = I.interior_files()
    records = Archive.parse(files[I.OBJECTS])
    fortif = Archive.parse(files[I.FORTIF])
    slot = objects.lookup(records, I.BUILDING, ".bas").slot
    assert (slot.archive, slot.member) == (I.FORTIF, f"{I.BUILDING}.bas")
    entry = fortif.find(slot.member)
    assert entry.type_id == B.BAS_TYPE_ID and B.parse_bas(entry.data).editable
    msh = objects.lookup(records, I.BUILDING, ".msh")
    assert msh.slot.member == f"{I.BUILDING}.msh" and msh.chain == [I.BUILDING, f"{I.BUILDING}_base"]
    assert objects.validate_objects(records) == []
