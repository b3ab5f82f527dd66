"""File > Export > Parkan Map through the one write path (core.write_path), through the real operators: every
edit of the scene reaches Land.msh and data.tma or the export is refused and writes nothing; nothing else is
touched (another program's change to a file the export does not change is kept; a file changed since the import
is refused; map files of another game tree are replaced only when asked); Edit Mode is read as shown; a copy, a
rename, a new instance, a clan or kind change, twins on cell borders and unchanged transform fields each come
out as the scene shows them."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from core.authoring.map_game import mission_game_files
from core.map import landmsh as L
from core.map.edit import object_bytes, twin_groups
from core.map.landmsh import LandMesh
from core.map.tma import parse_tma, signed, text

MISSION = "MISSIONS/SAMPLE/data.tma"
MAP = "DATA/MAPS/SAMPLE/"
LAND = MAP + "Land.msh"
MAP_FILES = [MAP + name for name in ("Land.msh", "Land.map", "Land1.wea", "Land2.wea")]


@pytest.fixture(scope="module")
def files():
    return mission_game_files()


def write(root: Path, files: dict[str, bytes]) -> Path:
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def imported(bpy, root: Path, target: str = MISSION):
    assert bpy.ops.import_scene.parkan_map(filepath=str(root / target)) == {"FINISHED"}


def export(bpy, path: Path, **options):
    return bpy.ops.export_scene.parkan_map(filepath=str(path), **options)


def refused(bpy, path: Path, words: str, **options) -> str:
    with pytest.raises(RuntimeError) as caught:
        export(bpy, path, **options)
    message = str(caught.value)
    assert words in message and "Traceback" not in message, message
    return message


def ground(bpy, level=0):
    return next(o for o in bpy.data.objects if o.get("msh_map_level") == level and o.get("msh_map_record") is None)


def placements(bpy):
    return sorted((o for o in bpy.data.objects if "msh_map_record" in o), key=lambda o: o.name)


def by_index(bpy):
    return {int(o["msh_map_index"]): o for o in placements(bpy)}


def clan_collection(bpy, clan):
    return next(c for c in bpy.data.collections if c.get("msh_map_clan") == clan)


def move_to(obj, collection):
    for c in list(obj.users_collection):
        c.objects.unlink(obj)
    collection.objects.link(obj)


def dry_vertex(mesh: LandMesh) -> int:
    """A level-0 vertex on a cell's corner (stored for four cells), away from the lake."""
    groups = twin_groups(mesh.positions)
    return int(np.flatnonzero(np.bincount(groups)[groups] == 4)[-1])


def unit_index(mission, kind=1, nth=0):
    return [i for i, o in enumerate(mission.objects) if o.kind == kind][nth]


# --------------------------------------------------------------------- what was read, and when
@pytest.mark.parametrize("edit", ["untouched", "heights"])
def test_an_export_keeps_what_another_program_wrote_to_a_file_it_does_not_change(blender, tmp_path, files, edit):
    bpy = blender.bpy
    root = write(tmp_path, files)
    imported(bpy, root)
    theirs = {MAP + "Land.map": files[MAP + "Land.map"] + b"",  # the same bytes, then another program's
              MAP + "Land1.wea": files[MAP + "Land1.wea"].replace(b"L00", b"L05"),
              MAP + "Land2.wea": files[MAP + "Land2.wea"] + b"\r\n"}
    areal = bytearray(files[MAP + "Land.map"])
    areal[-2:] = b"\x00\x00" if areal[-2:] != b"\x00\x00" else b"\x01\x00"
    theirs[MAP + "Land.map"] = bytes(areal)
    theirs[MISSION] = files[MISSION] + b"tail"
    if edit == "untouched":
        theirs[LAND] = theirs_land(files)
    write(root, theirs)
    before = snapshot(root)
    if edit == "heights":
        ground(bpy).data.vertices[dry_vertex(LandMesh.parse(files[LAND]))].co.z += 3.0
    assert export(bpy, root / MISSION) == {"FINISHED"}
    after = snapshot(root)
    for name, data in theirs.items():
        assert after[name] == data, name
    assert [n for n in after if after[n] != before[n]] == ([] if edit == "untouched" else [LAND])


def theirs(files, name: str) -> bytes:
    """The file as another program might write it: the same kind, one value changed."""
    return theirs_land(files) if name == LAND else files[name] + b"another program"


def theirs_land(files) -> bytes:
    mesh = LandMesh.parse(files[LAND])
    mesh.streams[L.NORMALS][0, 3] ^= 1   # a pad byte
    return mesh.to_bytes()


@pytest.mark.parametrize("changed", [LAND, MISSION])
def test_a_file_changed_since_the_import_that_the_export_would_write_is_refused(blender, tmp_path, files, changed):
    bpy = blender.bpy
    root = write(tmp_path, files)
    imported(bpy, root)
    ground(bpy).data.vertices[dry_vertex(LandMesh.parse(files[LAND]))].co.z += 3.0
    next(iter(by_index(bpy).values())).location.x += 4.0
    (root / changed).write_bytes(theirs(files, changed))
    before = snapshot(root)
    refused(bpy, root / MISSION, "changed on disk after the import read it")
    assert snapshot(root) == before
    assert export(bpy, root / MISSION, replace_changed=True) == {"FINISHED"}
    assert (root / changed).read_bytes() != before[changed]


def test_a_second_export_replaces_the_first_and_exporting_the_import_back_restores_it(blender, tmp_path, files):
    bpy = blender.bpy
    root = write(tmp_path, files)
    before = snapshot(root)
    imported(bpy, root)
    index = dry_vertex(LandMesh.parse(files[LAND]))
    height = ground(bpy).data.vertices[index].co.z
    ground(bpy).data.vertices[index].co.z += 3.0   # looked up anew: a vertex held across an export is stale
    assert export(bpy, root / MISSION) == {"FINISHED"}
    assert snapshot(root)[LAND] != before[LAND]
    ground(bpy).data.vertices[index].co.z = height
    assert export(bpy, root / MISSION) == {"FINISHED"}   # its own write is no other program's change
    assert snapshot(root) == before


# --------------------------------------------------------------------- which targets, of which kind
def test_a_map_imported_alone_is_not_written_onto_a_mission(blender, tmp_path, files):
    bpy = blender.bpy
    root = write(tmp_path, files)
    imported(bpy, root, LAND)
    ground(bpy).data.vertices[0].co.z += 1.0
    before = snapshot(root)
    refused(bpy, root / MISSION, "without a mission")
    assert snapshot(root) == before


def test_a_terrain_is_never_written_over_a_mission_named_like_a_map(blender, tmp_path, files):
    bpy = blender.bpy
    root = write(tmp_path, files)
    imported(bpy, root, LAND)
    ground(bpy).data.vertices[0].co.z += 1.0
    other = tmp_path / "other"
    other.mkdir()
    (other / "Land.msh").write_bytes(files[MISSION])   # a mission under a map's name
    before = snapshot(root)
    refused(bpy, other / "Land.msh", "a mission (data.tma)")
    assert snapshot(root) == before and (other / "Land.msh").read_bytes() == files[MISSION]
    assert sorted(p.name for p in other.iterdir()) == ["Land.msh"]


def test_a_mission_exported_into_another_game_tree_replaces_its_map_only_when_asked(blender, tmp_path, files):
    bpy = blender.bpy
    root = write(tmp_path / "game", files)
    imported(bpy, root)
    ground(bpy).data.vertices[dry_vertex(LandMesh.parse(files[LAND]))].co.z += 3.0
    theirs = dict(files)
    areal = bytearray(files[MAP + "Land.map"])
    areal[-2:] = b"\x07\x00"
    theirs[MAP + "Land.map"] = bytes(areal)     # that tree's own map
    other = write(tmp_path / "other", theirs)
    before, mine = snapshot(other), snapshot(root)
    refused(bpy, other / MISSION, "not one the export read or names")
    assert snapshot(other) == before and snapshot(root) == mine
    assert export(bpy, other / MISSION, replace_map=True) == {"FINISHED"}
    after = snapshot(other)
    assert after[MAP + "Land.map"] == files[MAP + "Land.map"] and after[LAND] != files[LAND]
    assert snapshot(root) == mine   # the imported tree is left alone
    # a tree without the map gets it: the mission names it
    empty = tmp_path / "empty"
    (empty / "MISSIONS" / "SAMPLE").mkdir(parents=True)
    (empty / MAP).mkdir(parents=True)
    assert export(bpy, empty / MISSION) == {"FINISHED"}
    assert sorted(snapshot(empty)) == sorted([MISSION, *MAP_FILES])


# --------------------------------------------------------------------- the scene as the user sees it
def test_heights_raised_in_edit_mode_are_written_without_leaving_it(blender, tmp_path, files):
    import bmesh

    bpy = blender.bpy
    root = write(tmp_path, files)
    imported(bpy, root)
    near = ground(bpy)
    bpy.context.view_layer.objects.active = near
    near.select_set(True)
    bpy.ops.object.mode_set(mode="EDIT")
    vertex = dry_vertex(LandMesh.parse(files[LAND]))
    bm = bmesh.from_edit_mesh(near.data)
    bm.verts.ensure_lookup_table()
    bm.verts[vertex].co.z += 6.0
    bmesh.update_edit_mesh(near.data)
    assert export(bpy, root / MISSION) == {"FINISHED"}
    assert near.mode == "EDIT" and bpy.context.view_layer.objects.active == near
    bpy.ops.object.mode_set(mode="OBJECT")
    written = LandMesh.parse((root / LAND).read_bytes())
    assert written.positions[vertex, 2] == pytest.approx(LandMesh.parse(files[LAND]).positions[vertex, 2] + 6.0)


@pytest.mark.parametrize(("edit", "words"), [("water", "msh_water"), ("uv", "UVMap"), ("detail", "Detail"),
                                             ("no_alpha_stream", "msh_second_alpha")])
def test_face_flags_and_uv_edits_are_refused_naming_them(blender, tmp_path, files, edit, words):
    bpy = blender.bpy
    changed = dict(files)
    if edit == "no_alpha_stream":
        mesh = LandMesh.parse(files[LAND])
        mesh.archive.entries = [e for e in mesh.archive.entries if e.type_id != L.ALPHA]
        del mesh.streams[L.ALPHA]
        changed[LAND] = mesh.to_bytes()
    root = write(tmp_path, changed)
    imported(bpy, root)
    near = ground(bpy).data
    if edit == "water":
        near.attributes["msh_water"].data[0].value = not near.attributes["msh_water"].data[0].value
    elif edit in ("uv", "detail"):
        near.uv_layers["UVMap" if edit == "uv" else "Detail"].data[4].uv[0] += 0.25
    else:
        near.attributes["msh_second_alpha"].data[0].value = 0.5
    before = snapshot(root)
    refused(bpy, root / MISSION, words)
    assert snapshot(root) == before


def test_the_second_materials_alpha_is_written(blender, tmp_path, files):
    bpy = blender.bpy
    root = write(tmp_path, files)
    imported(bpy, root)
    mesh = LandMesh.parse(files[LAND])
    two = (mesh.faces["material"][:mesh.level_split] >> 8) != 0xFF
    vertex = int(mesh.faces["verts"][:mesh.level_split][two][0][0])
    ground(bpy).data.attributes["msh_second_alpha"].data[vertex].value = 0.25
    assert export(bpy, root / MISSION) == {"FINISHED"}
    written = LandMesh.parse((root / LAND).read_bytes())
    assert written.streams[L.ALPHA][vertex] == np.float32(0.25)
    changed = np.flatnonzero(written.streams[L.ALPHA] != mesh.streams[L.ALPHA])
    assert changed.tolist() == [vertex]


def test_a_vertex_raised_on_a_cell_border_takes_its_twins_along(blender, tmp_path, files):
    bpy = blender.bpy
    root = write(tmp_path, files)
    imported(bpy, root)
    mesh = LandMesh.parse(files[LAND])
    vertex = dry_vertex(mesh)
    groups = twin_groups(mesh.positions)
    twins = np.flatnonzero(groups == groups[vertex])
    ground(bpy).data.vertices[vertex].co.z += 2.0
    assert export(bpy, root / MISSION) == {"FINISHED"}
    written = LandMesh.parse((root / LAND).read_bytes())
    assert len(twins) == 4 and (written.positions[twins, 2] == np.float32(mesh.positions[vertex, 2] + 2.0)).all()
    # twins raised to two heights: a crack the file cannot hold
    other = int(twins[twins != vertex][0])
    ground(bpy).data.vertices[other].co.z += 1.0
    before = snapshot(root)
    refused(bpy, root / MISSION, "different heights")
    assert snapshot(root) == before


def test_deleting_level_1_or_moving_the_water_plane_is_refused(blender, tmp_path, files):
    bpy = blender.bpy
    root = write(tmp_path, files)
    imported(bpy, root)
    before = snapshot(root)
    plane = next(o for o in bpy.data.objects if o.get("msh_map_water"))
    plane.location.z += 2.0
    refused(bpy, root / MISSION, "water")
    plane.location.z -= 2.0
    assert export(bpy, root / MISSION) == {"FINISHED"}
    bpy.data.objects.remove(ground(bpy, 1))
    refused(bpy, root / MISSION, "level-1")
    assert snapshot(root) == before


# --------------------------------------------------------------------- placements
def test_an_object_dragged_out_of_the_maps_collections_is_refused_not_deleted(blender, tmp_path, files):
    bpy = blender.bpy
    root = write(tmp_path, files)
    imported(bpy, root)
    obj = by_index(bpy)[2]
    move_to(obj, bpy.context.scene.collection)
    before = snapshot(root)
    refused(bpy, root / MISSION, f"{obj.name} (and 0 more) was moved out of the map's collections")
    assert snapshot(root) == before
    bpy.data.objects.remove(obj)   # deleted: written without it
    assert export(bpy, root / MISSION) == {"FINISHED"}
    assert len(parse_tma((root / MISSION).read_bytes()).objects) == len(parse_tma(files[MISSION]).objects) - 1


def test_a_unit_moved_into_the_no_clan_collection_is_refused(blender, tmp_path, files):
    bpy = blender.bpy
    mission = parse_tma(files[MISSION])
    tree = unit_index(mission, kind=2)
    mission.objects[tree].clan = 9   # a tree whose clan word names no clan: the "no clan" collection
    root = write(tmp_path, {**files, MISSION: mission.to_bytes()})
    imported(bpy, root)
    no_clan = clan_collection(bpy, -1)
    assert by_index(bpy)[tree].name in no_clan.objects
    move_to(by_index(bpy)[unit_index(mission)], no_clan)
    before = snapshot(root)
    refused(bpy, root / MISSION, "gives a unit or building the index of a clan")
    assert snapshot(root) == before


def test_a_new_instance_of_a_kind_in_a_clan_collection_is_a_new_object(blender, tmp_path, files):
    bpy = blender.bpy
    root = write(tmp_path, files)
    imported(bpy, root)
    mission = parse_tma(files[MISSION])
    unit = mission.objects[unit_index(mission)]
    kind = next(c for c in bpy.data.collections if c.get("msh_map_kind") == text(unit.path).upper())
    new = bpy.data.objects.new("reinforcement", None)
    new.instance_type, new.instance_collection = "COLLECTION", kind
    clan_collection(bpy, 2).objects.link(new)
    new.location, new.rotation_euler = (150.0, 160.0, 21.0), (0.0, 0.0, 0.5)
    assert export(bpy, root / MISSION) == {"FINISHED"}
    written = parse_tma((root / MISSION).read_bytes())
    assert len(written.objects) == len(mission.objects) + 1
    added = written.objects[-1]
    assert added.path == unit.path and added.clan == 2 and np.allclose(added.position, [150, 160, 21])
    assert added.turns[2] == np.float32(0.5)
    assert added.logical_id == max(o.logical_id for o in mission.objects) + 1
    assert _property(added, b"LogicalID") == added.logical_id and _property(added, b"ClanID") == 2
    # a plain Empty in a clan collection is no object: refused
    clan_collection(bpy, 1).objects.link(bpy.data.objects.new("marker", None))
    refused(bpy, root / MISSION, "marker in clan 1")


def _property(obj, name):
    return next(signed(int(p.words["value"])) for p in obj.properties if p.name == name)


def test_shift_d_then_renaming_the_original_keeps_its_id_on_the_original(blender, tmp_path, files):
    bpy = blender.bpy
    root = write(tmp_path, files)
    imported(bpy, root)
    mission = parse_tma(files[MISSION])
    index = unit_index(mission)
    original = by_index(bpy)[index]
    for o in bpy.context.view_layer.objects:
        o.select_set(o == original)
    bpy.context.view_layer.objects.active = original
    assert bpy.ops.object.duplicate() == {"FINISHED"}
    copy = bpy.context.view_layer.objects.active
    assert copy != original
    copy.location.x += 30.0
    original.name = "aaa renamed"   # sorts before the copy; the copy keeps the imported name's family
    assert export(bpy, root / MISSION) == {"FINISHED"}
    written = parse_tma((root / MISSION).read_bytes())
    source = mission.objects[index]
    kept = next(o for o in written.objects if o.logical_id == source.logical_id)
    assert kept.name == source.name and kept.position.tobytes() == source.position.tobytes()
    added = written.objects[-1]
    assert added.logical_id == max(o.logical_id for o in mission.objects) + 1
    assert added.position[0] == np.float32(source.position[0] + 30.0)
    assert added.name == source.name + b"_%d" % added.logical_id


def test_changing_a_placements_kind_is_written_or_refused(blender, tmp_path, files):
    bpy = blender.bpy
    root = write(tmp_path, files)
    imported(bpy, root)
    mission = parse_tma(files[MISSION])
    first = unit_index(mission)
    second = next(i for i, o in enumerate(mission.objects) if o.kind == 1 and o.path != mission.objects[first].path)
    kinds = {c["msh_map_kind"]: c for c in bpy.data.collections if "msh_map_kind" in c}
    obj = by_index(bpy)[first]
    obj.instance_collection = kinds[text(mission.objects[second].path).upper()]
    assert export(bpy, root / MISSION) == {"FINISHED"}
    written = parse_tma((root / MISSION).read_bytes())
    assert written.objects[first].path == mission.objects[second].path
    others = [i for i in range(len(mission.objects)) if i != first]
    assert all(object_bytes(written.objects[i], 10) == object_bytes(mission.objects[i], 10) for i in others)
    tree = mission.objects[unit_index(mission, kind=2)]
    obj.instance_collection = kinds[text(tree.path).upper()]
    before = snapshot(root)
    refused(bpy, root / MISSION, "another kind of its own sort only")
    assert snapshot(root) == before


@pytest.mark.parametrize("edit", ["move", "scale", "move_z"])
def test_moving_or_scaling_keeps_the_turns_bytes(blender, tmp_path, files, edit):
    bpy = blender.bpy
    mission = parse_tma(files[MISSION])
    tree = unit_index(mission, kind=2)
    unit = unit_index(mission)
    for i in (tree, unit):
        mission.objects[i].turns = np.array([0.0, 0.0, 3.5], "<f4")   # over pi, and +0.0 about x and y
    mission.objects[unit].turns[2] = np.float32(0.1 + 2 * math.pi / 3)
    root = write(tmp_path, {**files, MISSION: mission.to_bytes()})
    imported(bpy, root)
    index = tree if edit == "scale" else unit
    obj = by_index(bpy)[index]
    if edit == "scale":
        obj.scale = (2.0, 2.0, 2.0)
    elif edit == "move":
        obj.location.x += 5.0
    else:
        obj.location.z += 1.5
    assert export(bpy, root / MISSION) == {"FINISHED"}
    written = parse_tma((root / MISSION).read_bytes()).objects[index]
    source = mission.objects[index]
    assert written.turns.tobytes() == source.turns.tobytes()
    if edit == "scale":
        assert written.position.tobytes() == source.position.tobytes() and (written.scale == 2.0).all()
    else:
        axis = 0 if edit == "move" else 2
        same = [a for a in range(3) if a != axis]
        assert written.position[same].tobytes() == source.position[same].tobytes()
        assert written.scale.tobytes() == source.scale.tobytes()


def test_the_imports_info_lines_name_what_was_shown(blender, tmp_path, files, capfd):
    """A missing unit is a warning without 'error:', the kinds are counted with those shown as Empties."""
    bpy = blender.bpy
    root = write(tmp_path, {k: v for k, v in files.items() if not k.endswith("unit_1.dat")})
    capfd.readouterr()
    imported(bpy, root)
    out = capfd.readouterr().out
    lines = [line for line in out.splitlines() if "objects[" in line]
    assert lines and not [line for line in lines if "error:" in line], lines
    assert "12 object(s) of 8 kind(s), 1 kind(s) shown as Empties" in out, out


@pytest.mark.parametrize("case", ["missing", "corrupt"])
def test_an_import_error_names_the_file_asked_for_or_the_file_that_breaks(blender, tmp_path, files, case):
    bpy = blender.bpy
    root = write(tmp_path, files)
    if case == "missing":
        path, named = root / "nowhere" / "x.msh", f"{root / 'nowhere' / 'x.msh'}: cannot read"
    else:
        (root / LAND).write_bytes(files[LAND][:200])
        path, named = root / MISSION, f"{root / LAND}: NRes: error"
    with pytest.raises(RuntimeError) as caught:
        bpy.ops.import_scene.parkan_map(filepath=str(path))
    assert named in str(caught.value) and ".wea" not in str(caught.value), str(caught.value)


@pytest.mark.parametrize(("case", "named"), [("nan_position", "Res3[9]: error: vertex position is not a finite"),
                                             ("empty", "the map has no ground"),
                                             ("nan_turn", "objects[3]: error: turns")])
def test_a_map_with_non_finite_or_no_ground_is_refused_at_import(blender, tmp_path, files, case, named):
    """Refused where it is read, naming the record, not later as an export's "moved across" or a thumbnail's
    numpy error."""
    bpy = blender.bpy
    changed = dict(files)
    if case == "nan_turn":
        mission = parse_tma(files[MISSION])
        mission.objects[3].turns[2] = np.nan
        changed[MISSION] = mission.to_bytes()
    else:
        mesh = LandMesh.parse(files[LAND])
        if case == "nan_position":
            mesh.positions[9, 1] = np.nan
        else:
            for type_id in (L.SQUARES, L.POSITIONS, L.FACES, L.NORMALS, L.UV, L.MICRO_UV, L.ALPHA, L.DRAW_ORDER,
                            L.CELLS):
                mesh.streams[type_id] = mesh.streams[type_id][:0]
        changed[LAND] = mesh.to_bytes()
    root = write(tmp_path, changed)
    counts = blender.datablock_counts()
    for target in (MISSION, LAND) if case != "nan_turn" else (MISSION,):
        with pytest.raises(RuntimeError) as caught:
            bpy.ops.import_scene.parkan_map(filepath=str(root / target))
        assert named in str(caught.value) and "zero-size" not in str(caught.value), str(caught.value)
    assert blender.datablock_counts() == counts


def test_a_nan_height_is_refused_naming_the_vertex(blender, tmp_path, files):
    bpy = blender.bpy
    root = write(tmp_path, files)
    imported(bpy, root)
    vertex = dry_vertex(LandMesh.parse(files[LAND]))
    ground(bpy).data.vertices[vertex].co.z = float("nan")
    before = snapshot(root)
    message = refused(bpy, root / MISSION, f"Res3[{vertex}]: error: vertex {vertex} was moved to")
    assert "not a finite number" in message and "boxes" not in message
    assert snapshot(root) == before


def test_a_map_imported_by_an_earlier_version_still_exports(blender, tmp_path, files):
    """A .blend saved before the import kept references and the mission's bytes under a key of their own (they
    were under the path's bytes key): an untouched export writes nothing, a move reaches data.tma."""
    bpy = blender.bpy
    root = write(tmp_path, files)
    before = snapshot(root)
    imported(bpy, root)
    top = next(c for c in bpy.data.collections if "msh_map" in c)
    top["msh_map_mission_bytes"] = bytes(top["msh_map_mission_file"])
    for key in ("msh_map_mission_file", "msh_map_placed", "msh_map_ground", "msh_map_id"):
        del top[key]
    assert export(bpy, root / MISSION) == {"FINISHED"}
    assert snapshot(root) == before
    by_index(bpy)[0].location.x += 3.0
    assert export(bpy, root / MISSION) == {"FINISHED"}
    written = parse_tma((root / MISSION).read_bytes()).objects[0]
    assert written.position[0] == np.float32(parse_tma(files[MISSION]).objects[0].position[0] + 3.0)
