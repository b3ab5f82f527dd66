"""File > Import > Parkan Unit (.dat) through the real operator: every part's nodes at the
mounting rule's world matrices (core.unit.mount.unit_world_matrices) at several frames, internal parts
hidden, control points on their nodes, damage rows on the nodes, each part exporting byte for byte."""

import numpy as np
import pytest
from unit_fixtures import loader, write_game

from core.authoring import units
from core.container.nres import Archive
from core.unit.dat import parse_dat
from core.unit.mount import unit_world_matrices
from core.unit.resolve import resolve_unit

FRAMES = [0, 3, 10, 17, 33, 40]


@pytest.fixture(scope="module")
def files():
    return units.unit_files()


def resolved(files, dat=units.UNIT_DAT):
    return resolve_unit(parse_dat(files[dat]), Archive.parse(files[units.OBJECTS]), loader(files))


def import_unit(bpy, path, **options):
    assert bpy.ops.import_scene.parkan_unit(filepath=str(path), **options) == {"FINISHED"}
    return {o["msh_unit_component"]: o for o in bpy.data.objects if "msh_model" in o and "msh_unit_component" in o}


def turn_inverse(q) -> np.ndarray:
    """The 4x4 inverse of a bone's turn from its node (a Blender quaternion)."""
    w, x, y, z = np.asarray(q, np.float64)
    m = np.eye(4)
    m[:3, :3] = [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                 [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                 [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]
    return m.T


def node_worlds(root) -> dict[int, np.ndarray]:
    """Each node's world matrix as Blender evaluates it."""
    if root.type == "ARMATURE":  # a bone turned from its node (msh_bone_frame) shows the node @ that turn
        world = np.array(root.matrix_world)
        return {int(root.data.bones[pb.name]["msh_node_index"]): world @ np.array(pb.matrix)
                @ turn_inverse(root.data.bones[pb.name].get("msh_bone_frame", (1, 0, 0, 0))) for pb in root.pose.bones}
    return {int(o["msh_node_index"]): np.array(o.matrix_world) for o in root.children_recursive
            if o.type == "EMPTY" and "msh_node_index" in o}


@pytest.mark.parametrize(("node_mode", "transform"), [("ARMATURE", {}), ("EMPTIES", {}),
                                                      ("ARMATURE", {"global_scale": 2.5, "axis_forward": "-X"})])
def test_every_part_node_is_where_the_mounting_rule_puts_it_at_every_frame(blender, tmp_path, files, node_mode,
                                                                           transform):
    bpy = blender.bpy
    write_game(tmp_path, files)
    roots = import_unit(bpy, tmp_path / units.UNIT_DAT, node_mode=node_mode, **transform)
    unit = resolved(files)
    # every component with a model is imported: the chassis, turrets, guns, the engine and the clip
    assert sorted(roots) == list(range(8))
    expected = unit_world_matrices(unit.assembly, unit.animations(), FRAMES, normalize=True)
    scene = bpy.context.scene
    worst = 0.0
    for fi, frame in enumerate(FRAMES):
        scene.frame_set(frame)
        unit_space = np.linalg.inv(np.array(roots[0].matrix_world))  # the import's scale and axes undone
        shown = {c: node_worlds(root) for c, root in roots.items()}
        for unit_node, (component, part_node) in enumerate(unit.assembly.owner):
            got = unit_space @ shown[component][part_node]
            worst = max(worst, float(np.abs(got - expected[unit_node, fi]).max()))
    print(f"{node_mode}: worst deviation {worst:.2e} over {len(unit.assembly.owner)} nodes")
    assert worst < 1e-5, worst


def test_internal_parts_points_and_damage_values(blender, tmp_path, files):
    bpy = blender.bpy
    write_game(tmp_path, files)
    roots = import_unit(bpy, tmp_path / units.UNIT_DAT)
    unit_collection = next(c for c in bpy.data.collections if "msh_unit" in c)
    assert unit_collection.name == "synth_unit.dat"
    internal = bpy.data.collections["synth_unit.dat internal parts"]
    assert {o["msh_unit_component"] for o in internal.objects if "msh_model" in o} == {1, 7}
    layer = bpy.context.view_layer.layer_collection.children[unit_collection.name].children[internal.name]
    assert layer.hide_viewport and internal.hide_render
    # the records and display names of the .dat are on the part roots
    assert roots[2]["msh_unit_record"] == "e_tur_lt_01" and roots[2]["msh_unit_attach"] == 1
    assert roots[0]["msh_unit_display"] == "Шасси (sh01)"
    # control points: the turret's TurretBase (node 0) sits on the chassis socket Base_TL
    points = bpy.data.collections["synth_unit.dat control points"].objects
    base = next(o for o in points if o["msh_cpt_name"] == "TurretBase" and o["msh_cpt_component"] == 2)
    assert base.parent == roots[0] and base.parent_bone == "Base_TL"
    assert np.allclose(base.location, (0, 0, 0.1)) and base.empty_display_type == "SINGLE_ARROW"
    width = next(o for o in points if o["msh_cpt_name"] == "Width" and o["msh_cpt_component"] == 3)
    assert width.empty_display_size == pytest.approx(0.2) and list(width["msh_cpt_vector"]) == pytest.approx(
        [0.2, 0, 0])
    unit = resolved(files)
    assert len(points) == sum(len(p.points) for p, m in zip(unit.parts, unit.assembly.parts)
                              if p.points is not None and m is not None and m.nodes is not None) == 12
    # damage rows: every chassis row; a mounted part's rows from 1 (row 0 is its dropped root)
    leg = roots[0].data.bones["leg"]
    assert leg["msh_hit_points"] == pytest.approx(400.0) and leg["msh_ndp_flags"] == 0x20
    assert leg["msh_density"] == pytest.approx(7.8) and leg["msh_explosion"] == "synth_parts.rlb:synth_chassis_3.exp"
    turret_root = roots[2].data.bones["tur_root"]
    assert "msh_hit_points" not in turret_root and roots[2].data.bones["Turn"]["msh_ndp_row"] == 1


def test_each_part_exports_byte_for_byte_into_its_archive(blender, tmp_path, files):
    bpy = blender.bpy
    write_game(tmp_path, files)
    roots = import_unit(bpy, tmp_path / units.UNIT_DAT)
    parts = tmp_path / units.PARTS
    before = parts.read_bytes()
    for component in (0, 2, 6):
        bpy.ops.object.select_all(action="DESELECT")
        roots[component].select_set(True)
        bpy.context.view_layer.objects.active = roots[component]
        assert bpy.ops.export_scene.parkan_msh(filepath=str(parts)) == {"FINISHED"}
    assert parts.read_bytes() == before


def test_the_drop_handler_and_menu_take_dat_files(blender):
    bpy = blender.bpy
    assert bpy.types.IO_FH_parkan_unit.bl_file_extensions == ".dat"
    assert bpy.types.IO_FH_parkan_unit.bl_import_operator == "import_scene.parkan_unit"


def test_a_bad_unit_is_refused_and_leaves_the_scene_as_it_was(blender, tmp_path, files):
    bpy = blender.bpy
    write_game(tmp_path, files)
    bad = tmp_path / "UNITS" / "bad.dat"
    bad.write_bytes(b"\xf1\xf0\x00\x00" + bytes(4) + b"x" * 50)
    objects, collections = len(bpy.data.objects), len(bpy.data.collections)
    with pytest.raises(RuntimeError, match=r"bad\.dat.*the root part cannot be read"):
        bpy.ops.import_scene.parkan_unit(filepath=str(bad))
    assert (len(bpy.data.objects), len(bpy.data.collections)) == (objects, collections)


def test_a_part_whose_root_moves_still_has_its_nodes_where_the_rule_puts_them(blender, tmp_path, files):
    """The root's pose never applies, even when node 0 is animated: the mount Empty is keyed with its
    inverse at every frame."""
    bpy = blender.bpy
    from core.authoring.build import NodeDef

    t = units._times()
    turning = units._model("e_gun_mc_01.msh", [NodeDef("gun_root"), NodeDef("barrel", 0), NodeDef("muzzle", 1)],
                           [units._spin((0, 0, 1), np.linspace(0, 120, len(t)), (0.1, 0.0, 0.05)),
                            units._spin((1, 0, 0), np.linspace(0, 30, len(t)), (0, 0.1, 0)),
                            units._static((0, 1.2, 0))], {1: ((0.12, 1.2, 0.12), (0, 0.6, 0))})
    parts = Archive.parse(files[units.PARTS])
    parts.find("e_gun_mc_01.msh").data = turning
    changed = {**files, units.PARTS: parts.to_bytes()}
    write_game(tmp_path, changed)
    roots = import_unit(bpy, tmp_path / units.UNIT_DAT)
    mount = roots[6].parent
    assert mount is not None and mount.animation_data is not None
    unit = resolved(changed)
    expected = unit_world_matrices(unit.assembly, unit.animations(), FRAMES, normalize=True)
    for fi, frame in enumerate(FRAMES):
        bpy.context.scene.frame_set(frame)
        shown = node_worlds(roots[6])
        for node in (1, 2):
            unit_node = unit.assembly.owner.index((6, node))
            assert np.abs(shown[node] - expected[unit_node, fi]).max() < 1e-5, (frame, node)


def test_a_missing_record_is_a_warning_naming_it_and_the_rest_is_imported(blender, tmp_path, files, capfd):
    bpy = blender.bpy
    records = Archive.parse(files[units.OBJECTS])
    records.remove("e_tur_mt_01")
    write_game(tmp_path, {**files, units.OBJECTS: records.to_bytes()})
    capfd.readouterr()
    roots = import_unit(bpy, tmp_path / units.UNIT_DAT)
    output = capfd.readouterr().out
    assert "no record 'e_tur_mt_01' in objects.rlb" in output
    for component, record in ((5, "e_tur_mt_01"), (6, "e_gun_mc_01"), (7, "i_c01_clip")):  # its subtree too
        assert f"component {component} ({record!r}) is not imported" in output
    assert sorted(roots) == [0, 1, 2, 3, 4]
