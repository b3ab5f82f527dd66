"""Never refuse what the game ships, in Blender: the retail quirks and extremes core.authoring.retail writes
(a legacy-stride node table, every retail node, batch and face flag with materials of every retail attr1, track
mode and texture format, the longest controller, a chassis point without a carrier and one off its mesh, a
component without a record), and what no source measured, go through
the real operators (Import Parkan MSH, Import Unit) in both node modes and back out through an untouched
export: nothing is refused and every file is written byte for byte."""

import numpy as np
import pytest
from test_export import export_file, import_file

from core.authoring import retail, units

# The all-zero quaternion a few retail keys hold is shown by the import as no turn, and the export then takes
# its node for edited and writes the key as identity (io_msh.exp.unedited compares against the runtime's
# degenerate pose): a defect of the export's untouched test, not of the readers here.
MODELS = [retail.LEGACY_NAME, "retail_flags.msh", "a_a_l3.msh", "retail_walker.msh", "retail_odd_keys.msh"]
NODE_MODES = ["ARMATURE", "EMPTIES"]


@pytest.fixture(scope="module")
def files() -> dict[str, bytes]:
    return retail.retail_files()


def write_all(folder, files) -> None:
    for name, data in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


@pytest.mark.parametrize("node_mode", NODE_MODES)
@pytest.mark.parametrize("name", MODELS)
def test_each_retail_quirk_model_imports_and_exports_untouched_byte_for_byte(blender, tmp_path, capfd, files,
                                                                              name, node_mode):
    bpy = blender.bpy
    write_all(tmp_path, files)
    source = tmp_path / "MODELS" / name
    capfd.readouterr()
    (root,) = import_file(bpy, source, node_mode=node_mode, clips="ACTIONS")
    out = capfd.readouterr().out
    assert "Traceback" not in out and "Import failed" not in out
    if name == "a_a_l3.msh":  # the longest controller: its one 217-state cycle is a clip
        assert len(list(root["msh_clips"])) == 1
    if name == "retail_walker.msh":  # a component of every class: the walker's three clips
        assert len(list(root["msh_clips"])) == 3
    if name == "retail_flags.msh":  # its materials come from the retail-like libraries of the game folder
        assert sorted(m.name for m in bpy.data.materials) == sorted(retail.FLAGS_MATERIALS)
        assert "placeholders" not in out
    target = tmp_path / f"out_{name}"
    export_file(bpy, target)
    assert target.read_bytes() == source.read_bytes()
    if name == "retail_flags.msh":
        assert (tmp_path / "out_retail_flags.wea").read_bytes() == files["MODELS/retail_flags.wea"]


def unmeasured_cases():
    """Each model in both animation modes; among them a KEYS import of two keys at one time (shown as the key
    Blender's keyframe search finds there: io_msh.exp.unedited.shown_keys) and a FAITHFUL import of a map whose
    one key moves nothing (no action made, so the Action range is the imported frames:
    io_msh.exp.poses.exported_action_end)."""
    for name in sorted(retail.unmeasured_models()):
        for animation in ("FAITHFUL", "KEYS"):
            yield pytest.param(name, animation, id=f"{name}-{animation}")


@pytest.mark.parametrize("node_mode", NODE_MODES)
@pytest.mark.parametrize(("name", "animation"), list(unmeasured_cases()))
def test_what_no_source_measured_imports_with_warnings_and_exports_untouched_byte_for_byte(
        blender, tmp_path, capfd, files, name, node_mode, animation):
    """A fallback key shared with an earlier node, frame count 0, a mapped node with one key, key times that do
    not increase, a NUL in a Res10 label, a short Res15: warnings, the import goes on, the bytes are kept."""
    bpy = blender.bpy
    write_all(tmp_path, files)
    source = tmp_path / "UNMEASURED" / name
    capfd.readouterr()
    import_file(bpy, source, node_mode=node_mode, animation=animation)
    out = capfd.readouterr().out
    assert "warning" in out and "Traceback" not in out and "Import failed" not in out
    target = tmp_path / f"out_{name}"
    export_file(bpy, target)
    assert target.read_bytes() == source.read_bytes()


@pytest.mark.parametrize("node_mode", NODE_MODES)
def test_the_quirk_unit_imports_with_its_points_on_their_nodes_and_exports_untouched(blender, tmp_path, capfd,
                                                                                    files, node_mode):
    bpy = blender.bpy
    write_all(tmp_path, files)
    dat, parts = tmp_path / retail.UNIT_DAT, tmp_path / units.PARTS
    before = {p: p.read_bytes() for p in (dat, parts, tmp_path / units.OBJECTS)}
    capfd.readouterr()
    assert bpy.ops.import_scene.parkan_unit(filepath=str(dat), node_mode=node_mode) == {"FINISHED"}
    out = capfd.readouterr().out
    assert f"no record {retail.MISSING_RECORD!r} in objects.rlb: the part is left out" in out
    roots = {o["msh_unit_component"]: o for o in bpy.data.objects if "msh_model" in o and "msh_unit_component" in o}
    assert sorted(roots) == [0, 1, 3, 4, 5, 6, 7, 8]  # every component but the one without a record
    points = {o["msh_cpt_name"]: o for o in bpy.data.objects if "msh_cpt_name" in o and o["msh_cpt_component"] == 0}
    assert sorted(points) == ["CameraCenter", "Foot", "WheelL", "WheelR", "Width"]  # "Far" sits off the mesh
    for name in ("WheelL", "WheelR"):  # no carrier: on its node (3), as the point with one
        assert "msh_cpt_carrier" not in points[name]
        assert (points[name].parent, points[name].parent_bone) == (points["Foot"].parent, points["Foot"].parent_bone)
    out_dat = tmp_path / "out.dat"
    assert bpy.ops.export_scene.parkan_unit(filepath=str(out_dat)) == {"FINISHED"}
    assert out_dat.read_bytes() == before[dat]
    assert bpy.ops.export_scene.parkan_unit(filepath=str(dat)) == {"FINISHED"}
    assert {p: p.read_bytes() for p in before} == before


@pytest.mark.parametrize("times", [[0, 0, 4], [0, 2, 2, 4], [0, 1, 2, 2, 2, 3, 4, 4], [0, 0, 0, 1, 1, 2, 3, 3]])
def test_the_key_shown_where_keys_share_a_time_is_the_one_blender_evaluates(blender, times):
    """The untouched test of a KEYS import compares with the key Blender shows at a time keys share: its keyframe
    search's, not np.interp's last one."""
    bpy = blender.bpy
    unedited = blender.ext.io_msh.exp.unedited
    obj = bpy.data.objects.new("keyed", None)
    bpy.context.scene.collection.objects.link(obj)
    obj.keyframe_insert("location", index=0, frame=0)
    fcurve = next(iter(blender.ext.io_msh.com.compat.assigned_fcurves(obj)))
    fcurve.keyframe_points.clear()
    blender.ext.io_msh.imp.build.write_keys(fcurve, np.array(times, float), np.arange(len(times), dtype=float))
    at = np.array(times, np.float64)
    probes = np.unique(np.r_[at, at + 0.00005, at - 0.00005, (at[1:] + at[:-1]) / 2])
    shown = dict(unedited.shown_keys(at, probes))
    for column, t in enumerate(probes):
        if column in shown:
            assert fcurve.evaluate(float(t)) == pytest.approx(shown[column], abs=1e-6), (times, t)
