"""File > Import / Export > Parkan Map through the real operators, on
the sample map with a mission in a synthetic game folder (core.authoring.map_game): the ground as the game draws
it, the objects instanced per kind, an untouched round trip byte for byte, a height edit recomputed and valid, a
placement edit in data.tma, refusals and hostile files leaving everything as it was."""

from pathlib import Path

import numpy as np
import pytest

from core.authoring.map_game import mission_game_files
from core.map import landmsh as L
from core.map.edit import twin_groups
from core.map.landmsh import LandMesh
from core.map.tma import parse_tma, signed
from core.map.validate import validate_land, validate_mission

MISSION = "MISSIONS/SAMPLE/data.tma"
LAND = "DATA/MAPS/SAMPLE/Land.msh"


def write(root: Path, files: dict[str, bytes]) -> Path:
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


@pytest.fixture(scope="module")
def files():
    return mission_game_files()


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def import_map(bpy, path, **options):
    assert bpy.ops.import_scene.parkan_map(filepath=str(path), **options) == {"FINISHED"}


def export_map(bpy, path):
    assert bpy.ops.export_scene.parkan_map(filepath=str(path)) == {"FINISHED"}


def ground(bpy, level=0):
    return next(o for o in bpy.data.objects if o.get("msh_map_level") == level)


def placements(bpy):
    return sorted((o for o in bpy.data.objects if "msh_map_record" in o), key=lambda o: o.name)


@pytest.mark.parametrize("target", [MISSION, LAND])
def test_an_untouched_import_writes_every_file_back_byte_for_byte(blender, tmp_path, files, target):
    bpy = blender.bpy
    root = write(tmp_path, files)
    before = snapshot(root)
    import_map(bpy, root / target)
    export_map(bpy, root / target)
    assert snapshot(root) == before


def test_the_ground_is_drawn_as_the_game_draws_it(blender, tmp_path, files):
    bpy = blender.bpy
    root = write(tmp_path, files)
    import_map(bpy, root / MISSION)
    mesh = LandMesh.parse(files[LAND])
    split = mesh.level_split
    near, far = ground(bpy, 0), ground(bpy, 1)
    assert len(near.data.polygons) == split and len(far.data.polygons) == len(mesh.faces) - split
    assert near.visible_get() and not far.visible_get()
    # UV5 and UV18 at 1024 to a turn, V flipped; stream 14 as a point attribute
    tris = mesh.faces["verts"][:split].astype(np.int64).ravel()
    uv = np.zeros(2 * len(tris), np.float32)
    near.data.uv_layers["UVMap"].data.foreach_get("uv", uv)
    expected = mesh.streams[L.UV][tris].astype(np.float64) / 1024
    assert np.allclose(uv.reshape(-1, 2)[:, 0], expected[:, 0], atol=1e-5)
    assert np.allclose(uv.reshape(-1, 2)[:, 1], 1 - expected[:, 1], atol=1e-5)
    near.data.uv_layers["Detail"].data.foreach_get("uv", uv)
    assert np.allclose(uv.reshape(-1, 2)[:, 0], mesh.streams[L.MICRO_UV][tris, 0] / 1024, atol=1e-5)
    alpha = np.zeros(len(mesh.positions), np.float32)
    near.data.attributes["msh_second_alpha"].data.foreach_get("value", alpha)
    assert np.array_equal(alpha, mesh.streams[L.ALPHA])
    # face flags by name, the face's material by its word
    water = np.zeros(split, bool)
    near.data.attributes["msh_water"].data.foreach_get("value", water)
    assert np.array_equal(water, (mesh.faces["surface"][:split] & 2) != 0) and water.any()
    second = np.zeros(split, bool)
    near.data.attributes["msh_second_material"].data.foreach_get("value", second)
    assert np.array_equal(second, (mesh.faces["material"][:split] >> 8) != 0xFF) and second.any()
    index = np.zeros(split, np.int32)
    near.data.polygons.foreach_get("material_index", index)
    words = np.array([m["msh_map_word"] for m in near.data.materials])
    assert np.array_equal(words[index], mesh.faces["material"][:split])
    # Land1's texture, the microtexture, and the second material mixed by the alpha attribute
    two = next(m for m in near.data.materials if m["msh_map_word"] >> 8 != 0xFF)
    images = {n.image.name for n in two.node_tree.nodes if n.type == "TEX_IMAGE"}
    assert {"L02.0", "MICRO.0"} <= images
    assert any(n.type == "ATTRIBUTE" and n.attribute_name == "msh_second_alpha" for n in two.node_tree.nodes)
    # the water plane at the one water level
    plane = next(o for o in bpy.data.objects if o.get("msh_map_water"))
    water_z = mesh.positions[np.unique(mesh.faces["verts"][(mesh.faces["surface"] & 2) != 0])][:, 2]
    assert {round(v.co.z, 4) for v in plane.data.vertices} == {round(float(water_z[0]), 4)}


def test_objects_stand_where_the_mission_puts_them_in_their_clans(blender, tmp_path, files):
    bpy = blender.bpy
    root = write(tmp_path, files)
    import_map(bpy, root / MISSION)
    mission = parse_tma(files[MISSION])
    mesh = LandMesh.parse(files[LAND])
    shown = placements(bpy)
    assert len(shown) == len(mission.objects)
    for obj in shown:
        record = mission.objects[obj["msh_map_index"]]
        assert bytes(obj["msh_map_record"]) == _record(files, obj["msh_map_index"])
        z = record.position[2]
        if record.kind == 0 and not record.start_flag:   # a building set down on the ground (digest 6.4)
            z = mesh.height_at(float(record.position[0]), float(record.position[1]))
        assert np.allclose(obj.matrix_world.translation, [record.position[0], record.position[1], z], atol=1e-4)
        assert np.allclose(tuple(obj.rotation_euler), record.turns, atol=1e-6)
        scale = record.scale if record.is_scenery else np.ones(3)
        assert np.allclose(tuple(obj.scale), scale, atol=1e-6)
        clan = next(c for c in obj.users_collection if "msh_map_clan" in c)
        assert clan["msh_map_clan"] == record.clan


def _record(files, index):
    from core.map.edit import object_bytes

    mission = parse_tma(files[MISSION])
    return object_bytes(mission.objects[index], mission.object_version)


def test_a_kind_placed_many_times_is_imported_once_and_instanced(blender, tmp_path):
    """One mesh datablock per kind: twice the objects, the same meshes."""
    bpy = blender.bpy
    counts = []
    for objects in (8, 24):
        blender.clean_scene()
        root = write(tmp_path / str(objects), mission_game_files(objects=objects, kinds=8))
        import_map(bpy, root / MISSION)
        shown = placements(bpy)
        assert len(shown) == objects
        assert all(o.instance_type == "COLLECTION" and o.instance_collection is not None for o in shown)
        assert len({o.instance_collection.name for o in shown}) == 8
        counts.append(len(bpy.data.meshes))
    assert counts[0] == counts[1]


def test_a_height_edit_recomputes_normals_and_boxes_and_validates(blender, tmp_path, files):
    bpy = blender.bpy
    root = write(tmp_path, files)
    before = snapshot(root)
    import_map(bpy, root / MISSION)
    near = ground(bpy, 0)
    mesh = LandMesh.parse(files[LAND])
    moved = [5, 6, 40]
    for i in moved:
        near.data.vertices[i].co.z += 7.5
    export_map(bpy, root / MISSION)
    after = snapshot(root)
    assert [k for k in after if after[k] != before[k]] == [LAND]
    edited = LandMesh.parse(after[LAND])
    assert not [f for f in validate_land(edited) if f.severity == "error"]
    assert np.allclose(edited.positions[moved, 2], mesh.positions[moved, 2] + 7.5)
    groups = twin_groups(mesh.positions)   # each moved vertex's twins (one point stored per cell) moved with it
    moved = [int(v) for v in np.flatnonzero(np.isin(groups, groups[moved]))]
    assert np.allclose(edited.positions[moved, 2], mesh.positions[moved, 2] + 7.5)
    # face normals of the faces using a moved vertex follow the cross product; the others are as read
    verts = edited.faces["verts"].astype(np.int64)
    touched = np.isin(verts, moved).any(axis=1)
    p = edited.positions.astype(np.float64)
    cross = np.cross(p[verts[:, 1]] - p[verts[:, 0]], p[verts[:, 2]] - p[verts[:, 0]])
    cross /= np.linalg.norm(cross, axis=1, keepdims=True)
    assert np.abs(edited.faces["normal"][touched] / 32767 - cross[touched]).max() < 1e-4
    assert np.array_equal(edited.faces["normal"][~touched], mesh.faces["normal"][~touched])
    assert (edited.faces["normal"][touched] != mesh.faces["normal"][touched]).any()
    # the cells' boxes hold their faces again, the header's corners span the new extent
    assert edited.cell_header["corners"][:, 2].max() == pytest.approx(float(edited.positions[:, 2].max()))
    assert not np.array_equal(edited.cells["box_max"], mesh.cells["box_max"])
    # the vertex normals around the moved vertices changed, the far ones did not
    assert (edited.streams[L.NORMALS][moved] != mesh.streams[L.NORMALS][moved]).any()
    far = np.setdiff1d(np.arange(len(p)), np.unique(verts[:edited.level_split][touched[:edited.level_split]]))
    assert np.array_equal(edited.streams[L.NORMALS][far], mesh.streams[L.NORMALS][far])
    # moving them back gives the file as it was
    for i in (5, 6, 40):
        near.data.vertices[i].co.z = float(mesh.positions[i, 2])
    export_map(bpy, root / MISSION)
    assert snapshot(root) == before


def test_placement_edits_reach_data_tma_with_consistent_words(blender, tmp_path, files):
    bpy = blender.bpy
    root = write(tmp_path, files)
    import_map(bpy, root / MISSION)
    mission = parse_tma(files[MISSION])
    shown = {o["msh_map_index"]: o for o in placements(bpy)}
    # move and turn a unit, hand a building to the other player clan, delete a rock, copy a unit
    unit = next(i for i, o in enumerate(mission.objects) if o.kind == 1)
    building = next(i for i, o in enumerate(mission.objects) if o.kind == 0)
    rock = next(i for i, o in enumerate(mission.objects) if o.kind == 3)
    shown[unit].location = (123.0, 77.0, 15.0)
    shown[unit].rotation_euler = (0.0, 0.0, 1.25)
    clan = 2 if mission.objects[building].clan == 1 else 1
    target = next(c for c in bpy.data.collections if c.get("msh_map_clan") == clan)
    for c in list(shown[building].users_collection):
        c.objects.unlink(shown[building])
    target.objects.link(shown[building])
    bpy.data.objects.remove(shown[rock])
    copy = shown[unit].copy()
    shown[unit].users_collection[0].objects.link(copy)
    copy.location = (50.0, 60.0, 20.0)
    export_map(bpy, root / MISSION)
    edited = parse_tma((root / MISSION).read_bytes())
    assert not [f for f in validate_mission(edited) if f.severity == "error"]
    assert len(edited.objects) == len(mission.objects)   # one removed, one added
    by_id = {o.logical_id: o for o in edited.objects}
    moved = by_id[mission.objects[unit].logical_id]
    assert np.allclose(moved.position, [123.0, 77.0, 15.0]) and np.isclose(moved.turns[2], 1.25)
    assert by_id[mission.objects[building].logical_id].clan == clan
    assert _int_property(by_id[mission.objects[building].logical_id], b"ClanID") == clan
    assert mission.objects[rock].logical_id not in by_id
    new = edited.objects[-1]
    assert new.path == mission.objects[unit].path and np.allclose(new.position, [50.0, 60.0, 20.0])
    assert new.logical_id == max(o.logical_id for o in mission.objects) + 1
    assert _int_property(new, b"LogicalID") == new.logical_id
    assert len({o.logical_id for o in edited.objects}) == len(edited.objects)
    # untouched objects keep their records byte for byte
    from core.map.edit import object_bytes

    untouched = [i for i in range(len(mission.objects)) if i not in (unit, building, rock)]
    for i in untouched:
        obj = by_id[mission.objects[i].logical_id]
        assert object_bytes(obj, 10) == object_bytes(mission.objects[i], 10)


def _int_property(obj, name):
    return next(signed(int(p.words["value"])) for p in obj.properties if p.name == name)


@pytest.mark.parametrize("edit", ["delete_face", "new_material", "move_across", "scale_unit"])
def test_an_unsupported_edit_is_refused_and_nothing_is_written(blender, tmp_path, files, edit):
    bpy = blender.bpy
    root = write(tmp_path, files)
    import_map(bpy, root / MISSION)
    near = ground(bpy, 0)
    near.data.vertices[3].co.z += 1.0   # a valid edit beside it: not written either
    if edit == "delete_face":
        import bmesh

        bm = bmesh.new()
        bm.from_mesh(near.data)
        bm.faces.ensure_lookup_table()
        bmesh.ops.delete(bm, geom=[bm.faces[0]], context="FACES_ONLY")
        bm.to_mesh(near.data)
        bm.free()
    elif edit == "new_material":
        near.data.polygons[0].material_index = (near.data.polygons[0].material_index + 1) % len(near.data.materials)
    elif edit == "move_across":
        near.data.vertices[7].co.x += 1.0
    else:
        obj = next(o for o in placements(bpy) if parse_tma(files[MISSION]).objects[o["msh_map_index"]].kind == 1)
        obj.scale = (2.0, 2.0, 2.0)
    before = snapshot(root)
    with pytest.raises(RuntimeError, match="can be edited"):
        bpy.ops.export_scene.parkan_map(filepath=str(root / MISSION))
    assert snapshot(root) == before


def _truncated_faces(files):
    mesh = LandMesh.parse(files[LAND])
    entry = mesh.entry(L.FACES)
    entry.data = bytes(entry.data)[:-5]
    return mesh.archive.to_bytes()


@pytest.mark.parametrize(("case", "named"), [
    ("land_truncated", "Res21"), ("land_garbage", "Land.msh"), ("mission_count_lie", "objects"),
    ("mission_missing_map", "trailer"), ("adjacency_cycle", "Res21")])
def test_a_hostile_map_or_mission_is_a_clean_error_and_creates_nothing(blender, tmp_path, files, case, named):
    bpy = blender.bpy
    changed = dict(files)
    if case == "land_truncated":
        changed[LAND] = _truncated_faces(files)
    elif case == "land_garbage":
        changed[LAND] = files[LAND][:40] + b"\xff" * 64
    elif case == "mission_count_lie":
        mission = parse_tma(files[MISSION])
        data = bytearray(files[MISSION])
        at = data.find((10).to_bytes(4, "little") + len(mission.objects).to_bytes(4, "little"))
        data[at + 4:at + 8] = (0x7FFFFFFF).to_bytes(4, "little")
        changed[MISSION] = bytes(data)
    elif case == "mission_missing_map":
        changed = {k: v for k, v in files.items() if not k.startswith("DATA/")}
    else:
        mesh = LandMesh.parse(files[LAND])
        faces = mesh.faces
        faces["neighbours"][0] = [1, 1, 1]   # a neighbour loop that does not lead back
        changed[LAND] = mesh.to_bytes()
    root = write(tmp_path, changed)
    blender.clean_scene()
    counts = blender.datablock_counts()
    with pytest.raises(RuntimeError) as caught:
        bpy.ops.import_scene.parkan_map(filepath=str(root / MISSION))
    message = str(caught.value)
    assert named in message and "Traceback" not in message
    assert blender.datablock_counts() == counts


def test_an_object_whose_file_is_missing_is_an_empty_and_exports_as_read(blender, tmp_path, files):
    """A mission naming a unit that is not there: a warning naming the object, an Empty in its place, and the
    record written back as it was."""
    bpy = blender.bpy
    root = write(tmp_path, {k: v for k, v in files.items() if not k.endswith("unit_1.dat")})
    before = snapshot(root)
    result = bpy.ops.import_scene.parkan_map(filepath=str(root / MISSION))
    assert result == {"FINISHED"}
    missing = [o for o in placements(bpy) if o.instance_collection is None]
    mission = parse_tma(files[MISSION])
    assert missing and all(mission.objects[o["msh_map_index"]].path.endswith(b"unit_1.dat") for o in missing)
    assert all(o.empty_display_type == "CUBE" for o in missing)
    export_map(bpy, root / MISSION)
    assert snapshot(root) == before


def test_a_map_alone_imports_without_objects_and_exports_a_height_edit(blender, tmp_path, files):
    bpy = blender.bpy
    root = write(tmp_path, files)
    import_map(bpy, root / LAND)
    assert not placements(bpy)
    ground(bpy, 0).data.vertices[0].co.z += 1.0
    export_map(bpy, root / LAND)
    edited = LandMesh.parse((root / LAND).read_bytes())
    assert edited.positions[0, 2] == pytest.approx(LandMesh.parse(files[LAND]).positions[0, 2] + 1.0)
    assert (root / MISSION).read_bytes() == files[MISSION]
