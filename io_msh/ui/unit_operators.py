"""File > Import > Parkan Unit (.dat): a unit's parts imported with the model importer's options and mounted
at their sockets (io_msh.imp.unit), the drop handler for .dat files, and File > Export > Parkan Unit
(io_msh.exp.unit)."""

from __future__ import annotations

import contextlib
import os

import bpy
from bpy.props import StringProperty
from bpy_extras.io_utils import orientation_helper

from ...core.errors import FormatError, printable
from ..com import compat
from ..exp.unit import export_unit, unit_collection
from ..imp.build import import_root_matrix
from ..imp.plan import ImportOptions
from ..imp.unit import import_unit
from ..imp.unit_clips import TIMELINE, show_unit_clip
from ..imp.unit_plan import UnitPlan, plan_unit
from . import dialog as D
from . import registration
from .file_operators import ExportFile, ImportFiles
from .preferences import game_folder
from .translations import report


@D.describe_axes
@orientation_helper(axis_forward="Y", axis_up="Z")
class IMPORT_SCENE_OT_parkan_unit(bpy.types.Operator, ImportFiles):
    bl_idname = "import_scene.parkan_unit"
    bl_label = "Import Parkan Unit"
    bl_description = ("Import a Parkan: Iron Strategy unit (.dat): its parts, each mounted at its socket, with "
                      "control points and damage values")
    bl_options = {"REGISTER", "UNDO", "PRESET"}

    filename_ext = ".dat"
    filter_glob: StringProperty(default="*.dat", options={"HIDDEN"})
    files: D.files()
    directory: D.directory()

    # The model import's options, each part imported with them (docs/manual/units.md).
    node_mode: D.node_mode("What each node of each part becomes in Blender", "One armature per part, a bone per node")
    animation: D.animation()
    slots: D.slots()
    stage: D.stage()
    lod: D.lod()
    game_folder: D.game_folder(
        "Where Material.lib, Textures.lib and LightMap.lib are, if not found from the unit's folder")
    set_frame_range: D.set_frame_range()
    global_scale: D.global_scale("Scale of the unit's root part, which carries the others (1: one MSH unit is one "
                                 "metre)")
    clips: D.clips()
    root_motion: D.root_motion()
    frame_rate: D.frame_rate()

    def draw(self, context):
        D.draw_panels(self, "PARKAN_UNIT_import", D.IMPORT_PANELS)

    def plan(self, context, path: str) -> UnitPlan:
        folders = tuple(f for f in (self.game_folder, game_folder(context)) if f)
        return plan_unit(path, ImportOptions(
            node_mode=self.node_mode, animation=self.animation, slots=self.slots, stage=self.stage, lod=int(self.lod),
            game_folders=folders, clips=self.clips, root_motion=self.root_motion, frame_rate=self.frame_rate,
            name_bytes=compat.node_name_bytes(self.node_mode)))

    def build(self, context, plan: UnitPlan) -> None:
        import_unit(context, plan, import_root_matrix(self.axis_forward, self.axis_up, self.global_scale),
                    self.set_frame_range)

    def imported(self, path: str, plan: UnitPlan) -> None:
        if plan.warnings:
            imported = sum(p.model is not None for p in plan.parts)
            report(self, "WARNING", f"Imported {imported} part(s) of {os.path.basename(path)} with "
                                     f"{len(plan.warnings)} warning(s); first: {plan.warnings[0]}")


class EXPORT_SCENE_OT_parkan_unit(bpy.types.Operator, ExportFile):
    bl_idname = "export_scene.parkan_unit"
    bl_label = "Export Parkan Unit"
    bl_description = ("Export a Parkan unit: every changed part into its archive, and the .dat tree (a part moved "
                      "to another socket of its parent gets its new attach)")
    bl_options = {"PRESET"}

    filename_ext = ".dat"
    filter_glob: StringProperty(default="*.dat", options={"HIDDEN"})
    collection: StringProperty(options={"HIDDEN"}, description="Export the unit of this collection")
    keys: D.keys()
    position_tolerance: D.position_tolerance()
    rotation_tolerance: D.rotation_tolerance()
    frame_range: D.frame_range()
    end_frame: D.end_frame()
    force: D.force("Write over the .dat and the parts' archives if their files are read-only")
    replace_changed: D.replace_changed()

    def draw(self, context):
        D.draw_panels(self, "PARKAN_UNIT_export", (*D.KEY_PANELS, ("Files", ("force", "replace_changed"))))

    def is_enabled(self, name: str) -> bool:
        """Whether an option applies to the choices made (the others are drawn greyed out)."""
        return D.export_enabled(self, name)

    def source_path(self, context) -> str:
        with contextlib.suppress(FormatError):  # no unit: execute says why
            return str(unit_collection(context, self.collection or None)["msh_unit"])
        return ""

    def target(self, filepath: str) -> str | None:
        stem, extension = os.path.splitext(os.path.basename(filepath))
        if not stem or os.path.isdir(filepath) or stem.lower() == ".dat":  # no name: it would make a hidden '.dat'
            report(self, "ERROR", f"{printable(filepath) or 'No file named'}: type the unit file's name (a .dat)")
            return None
        return filepath if extension else filepath + ".dat"

    def export(self, context, path: str):
        return export_unit(context, path, D.export_options(self), self.collection or None)

    def written(self, path: str, result) -> set[str]:
        if path in result.written:
            report(self, "INFO", f"Wrote {path}: {len(result.parts_written)} part(s) changed, "
                                  f"{len(result.moved)} moved to another socket")
        else:
            report(self, "INFO", f"Left {path} as it is (nothing of the scene changes it): "
                                  f"{len(result.parts_written)} part(s) changed")
        return {"FINISHED"}


class OBJECT_OT_parkan_unit_clip(bpy.types.Operator):
    bl_idname = "object.parkan_unit_clip"
    bl_label = "Show Unit Clip"
    bl_description = ("Show a clip on every part of the unit that has one of that name (the parts mounted on the "
                      "chassis follow its sockets); none: every part's timeline again")
    bl_options = {"REGISTER", "UNDO"}

    clip: StringProperty(name="Clip", description="The clip's name (e.g. walk 1); empty: the timeline")
    collection: StringProperty(options={"HIDDEN"}, description="The unit's collection (default: the active object's)")

    def execute(self, context):
        try:
            unit = unit_collection(context, self.collection or None)
        except FormatError as exc:
            report(self, "ERROR", exc.describe(""))
            return {"CANCELLED"}
        shown = show_unit_clip(context.scene, unit, self.clip or TIMELINE)
        if self.clip and not shown:
            report(self, "ERROR", f"No part of {unit.name} has a clip {self.clip!r}")
            return {"CANCELLED"}
        return {"FINISHED"}


class IO_FH_parkan_unit(registration.DropFileHandler, bpy.types.FileHandler):
    bl_idname = "IO_FH_parkan_unit"
    bl_label = "Parkan Unit"
    bl_import_operator = "import_scene.parkan_unit"
    bl_file_extensions = ".dat"


def menu_import(self, context):
    self.layout.operator(IMPORT_SCENE_OT_parkan_unit.bl_idname, text="Parkan Unit (.dat)")


def menu_export(self, context):
    self.layout.operator(EXPORT_SCENE_OT_parkan_unit.bl_idname, text="Parkan Unit (.dat)")


CLASSES = (IMPORT_SCENE_OT_parkan_unit, EXPORT_SCENE_OT_parkan_unit, OBJECT_OT_parkan_unit_clip, IO_FH_parkan_unit)


def register() -> None:
    registration.register(CLASSES, [menu_import], [menu_export])


def unregister() -> None:
    registration.unregister(CLASSES, [menu_import], [menu_export])
