"""File > Import > Parkan Unit (.dat): a unit's parts imported with the model importer's options and mounted
at their sockets (io_msh.imp.unit), the drop handler for .dat files, and File > Export > Parkan Unit
(io_msh.exp.unit)."""

from __future__ import annotations

import contextlib
import os

import bpy
from bpy.props import StringProperty
from bpy_extras.io_utils import (
    ExportHelper,
    ImportHelper,
    orientation_helper,
)

from ...core.errors import FormatError
from ..com import compat
from ..exp.unit import export_unit, unit_collection
from ..exp.write_scene import as_shown
from ..imp.build import import_root_matrix
from ..imp.plan import ImportOptions
from ..imp.unit import import_unit
from ..imp.unit_clips import TIMELINE, show_unit_clip
from ..imp.unit_plan import plan_unit
from . import dialog as D
from . import registration
from .preferences import game_folder
from .translations import exported, report


@D.describe_axes
@orientation_helper(axis_forward="Y", axis_up="Z")
class IMPORT_SCENE_OT_parkan_unit(bpy.types.Operator, ImportHelper):
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

    def invoke(self, context, event):
        return self.invoke_popup(context)

    def draw(self, context):
        D.draw_panels(self, "PARKAN_UNIT_import", D.IMPORT_PANELS)

    def execute(self, context):
        """Every unit chosen (or dropped), each imported whole or not at all."""
        paths = D.chosen_paths(self)
        if not paths:
            report(self, "ERROR", "No file to import")
        done = [self.import_file(context, path) for path in paths]
        return {"FINISHED"} if any(done) else {"CANCELLED"}

    def import_file(self, context, path: str) -> bool:
        folders = tuple(f for f in (self.game_folder, game_folder(context)) if f)
        options = ImportOptions(
            node_mode=self.node_mode, animation=self.animation, slots=self.slots, stage=self.stage, lod=int(self.lod),
            game_folders=folders, clips=self.clips, root_motion=self.root_motion, frame_rate=self.frame_rate,
            name_bytes=compat.node_name_bytes(self.node_mode))
        try:
            plan = plan_unit(path, options)
        except FormatError as exc:
            report(self, "ERROR", exc.describe(path))
            return False
        except OSError as exc:
            report(self, "ERROR", f"{path}: cannot read: {exc.strerror or exc}")
            return False
        root_matrix = import_root_matrix(self.axis_forward, self.axis_up, self.global_scale)
        try:
            import_unit(context, plan, root_matrix, self.set_frame_range)
        except Exception as exc:  # a Blender-side failure must not leave half a unit
            report(self, "ERROR", f"Import failed, nothing was kept: {type(exc).__name__}: {exc}")
            return False
        for line in plan.warnings:
            report(self, "INFO", line)
        imported = sum(p.model is not None for p in plan.parts)
        if plan.warnings:
            report(self, "WARNING", f"Imported {imported} part(s) of {os.path.basename(path)} with "
                                     f"{len(plan.warnings)} warning(s); first: {plan.warnings[0]}")
        return True


class EXPORT_SCENE_OT_parkan_unit(bpy.types.Operator, ExportHelper):
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

    def invoke(self, context, event):
        with contextlib.suppress(FormatError):  # no unit: the dialog starts empty, execute says why
            self.filepath = str(unit_collection(context, self.collection or None)["msh_unit"])
        return super().invoke(context, event)

    def execute(self, context):
        path = self.filepath if os.path.splitext(self.filepath)[1] else self.filepath + ".dat"
        options = D.export_options(self)
        with as_shown(context):
            result = exported(self, path, lambda: export_unit(context, path, options, self.collection or None))
        if result is None:
            return {"CANCELLED"}
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
