"""The file operators' shared shape (io_msh.ui.file_operators): the import and export mixins' execute and invoke are
the operators' own as far as registration goes, so a SIGTERM their writes deferred is sent again (registration)."""

import importlib

import bpy
import pytest

OPERATOR_MODULES = ("operators", "unit_operators", "map_operators", "engine_operators", "library_operators",
                    "clip_operators")


def extension_operators(blender) -> list[type]:
    package = blender.ext.__name__ + ".io_msh.ui."
    found = []
    for name in OPERATOR_MODULES:
        module = importlib.import_module(package + name)
        found += [cls for cls in vars(module).values() if isinstance(cls, type) and issubclass(cls, bpy.types.Operator)
                  and cls.__module__ == module.__name__]
    return found


def test_every_execute_and_invoke_the_extension_defines_is_wrapped_mixins_included(blender):
    mixins = importlib.import_module(blender.ext.__name__ + ".io_msh.ui.file_operators")
    operators = extension_operators(blender)
    shaped = [cls for cls in operators if issubclass(cls, (mixins.ImportFiles, mixins.ExportFile))]
    assert {cls.bl_idname for cls in shaped} >= {"import_scene.parkan_unit", "export_scene.parkan_unit",
                                                 "import_scene.parkan_map", "export_scene.parkan_map",
                                                 "export_scene.parkan_msh"}
    ours = blender.ext.__name__
    for cls in operators:
        for name in ("execute", "invoke"):
            defined_by_us = any(name in k.__dict__ for k in cls.__mro__ if k.__module__.startswith(ours))
            if defined_by_us:
                assert getattr(getattr(cls, name), "signalled_again", False), f"{cls.__name__}.{name} is not wrapped"


def test_an_export_a_script_gives_no_path_writes_the_source_and_never_a_hidden_file(blender, tmp_path, monkeypatch):
    """Export Unit and Export Parkan Map without a path (a script's call) write the file they came from, as the
    dialog offers it; a path naming no file (a folder, '.dat') is refused, not written as a hidden '.dat'."""
    from core.authoring import units

    bpy = blender.bpy
    monkeypatch.chdir(tmp_path)
    game = tmp_path / "game"
    for name, data in units.unit_files().items():
        (game / name).parent.mkdir(parents=True, exist_ok=True)
        (game / name).write_bytes(data)
    assert bpy.ops.import_scene.parkan_unit(filepath=str(game / units.UNIT_DAT)) == {"FINISHED"}
    before = {p: p.read_bytes() for p in game.rglob("*") if p.is_file()}
    assert bpy.ops.export_scene.parkan_unit() == {"FINISHED"}
    assert {p: p.read_bytes() for p in game.rglob("*") if p.is_file()} == before
    for nameless in (str(tmp_path), str(tmp_path / ".dat")):
        with pytest.raises(RuntimeError, match="type the unit file's name"):
            bpy.ops.export_scene.parkan_unit(filepath=nameless)
    assert not list(tmp_path.glob(".dat")) and not (tmp_path / ".dat").exists()
