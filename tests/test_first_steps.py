"""What a newcomer trips on first: the export's report names the controller it wrote, the
identifiers scripts set are documented, and nothing uses Material.use_nodes (deprecated in 5.0, gone in 6.0)."""

import ast
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_export_report_names_every_file_written_with_the_controller(blender, tmp_path, capfd):
    """The walker sample with an edited step length: the export writes walker.ctl beside walker.msh (the model
    and its material list are unchanged, and left as they are); the report names what it wrote."""
    bpy = blender.bpy
    folder = shutil.copytree(ROOT / "samples" / "walker", tmp_path / "walker")
    model = folder / "walker.msh"
    controller = (folder / "walker.ctl").read_bytes()
    assert bpy.ops.import_scene.parkan_msh(filepath=str(model), clips="ACTIONS") == {"FINISHED"}
    (root,) = [o for o in bpy.data.objects if "msh_model" in o]
    root["msh_state 0 step ms"] = 80.0
    capfd.readouterr()
    assert bpy.ops.export_scene.parkan_msh(filepath=str(model)) == {"FINISHED"}
    out = capfd.readouterr()
    (line,) = [line for line in (out.out + out.err).splitlines() if "Wrote " in line]
    assert f"Wrote {folder / 'walker.ctl'}: 0 node track(s) rewritten" in line
    assert (folder / "walker.msh").read_bytes() == (ROOT / "samples" / "walker" / "walker.msh").read_bytes()
    assert (folder / "walker.ctl").read_bytes() != controller


def test_the_identifiers_scripts_set_are_documented(blender):
    """LOD '0' to '4' (First-Person '4') and the export's key modes, as the manual gives them."""
    bpy = blender.bpy
    readme = "\n".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs" / "manual").glob("*.md")))
    lod = bpy.ops.import_scene.parkan_msh.get_rna_type().properties["lod"]
    assert [(i.identifier, i.name) for i in lod.enum_items][-1] == ("4", "First-Person")
    assert "First-Person\n  `'4'`" in readme or "First-Person `'4'`" in readme
    keys = bpy.ops.export_scene.parkan_msh.get_rna_type().properties["keys"]
    for item in keys.enum_items:
        assert f"`'{item.identifier}'`" in readme, item.identifier


def test_nothing_uses_material_use_nodes_but_the_compat_module():
    """Material.use_nodes is deprecated in Blender 5.0 and goes in 6.0: one code path, io_msh/com/compat.py,
    sets it, and only on 4.x (where a new material has no node tree)."""
    found = []
    for path in sorted((ROOT / "io_msh").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr == "use_nodes":
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert len(found) == 1 and found[0].startswith("io_msh/com/compat.py:"), found
