"""File > Import > Parkan Map (Land.msh, or a mission's data.tma with its map and objects; io_msh.imp.map), the
drop handler for data.tma, and File > Export > Parkan Map (io_msh.exp.map)."""

from __future__ import annotations

import contextlib
import os

import bpy
from bpy.props import BoolProperty, StringProperty

from ...core.errors import FormatError
from ..com import compat
from ..exp.map import export_map, map_collection
from ..imp import map as M
from ..imp.map import import_map
from ..imp.map_plan import MapPlan, plan_map
from ..imp.plan import ImportOptions
from ..imp.sky_plan import parse_time_of_day
from . import dialog as D
from . import registration
from .file_operators import ExportFile, ImportFiles
from .preferences import game_folder
from .translations import report


class IMPORT_SCENE_OT_parkan_map(bpy.types.Operator, ImportFiles):
    bl_idname = "import_scene.parkan_map"
    bl_label = "Import Parkan Map"
    bl_description = ("Import a Parkan: Iron Strategy map (Land.msh) with its materials and water, or a mission "
                      "(data.tma): its map and its units, buildings, trees and rocks, one collection per clan")
    bl_options = {"REGISTER", "UNDO", "PRESET"}

    filename_ext = ".tma"
    filter_glob: StringProperty(default="*.tma;*.msh", options={"HIDDEN"})
    files: D.files()
    directory: D.directory()
    node_mode: D.node_mode("What each node of each placed unit or model becomes in Blender",
                           "One armature per model, a bone per node")
    game_folder: D.game_folder(
        "Where Material.lib, Textures.lib and objects.rlb are, if not found from the map's or mission's folder")
    sky_time: StringProperty(
        name="Time of Day", default="",
        description="The mission's sky is shown as its keyframe at or before this time (HH:MM); empty: where the "
                    "mission's clock starts. Colours, fog and the sun edited in Blender are written into that "
                    "keyframe by Export Parkan Map")

    def plan(self, context, path: str) -> MapPlan | None:
        try:
            minutes = parse_time_of_day(self.sky_time)
        except ValueError as exc:
            report(self, "ERROR", f"Time of Day: {exc}")
            return None
        folders = tuple(f for f in (self.game_folder, game_folder(context)) if f)
        options = ImportOptions(node_mode=self.node_mode, game_folders=folders, animation="NONE",
                                name_bytes=compat.node_name_bytes(self.node_mode))
        return plan_map(path, options, self.game_folder or None, minutes)

    def build(self, context, plan: MapPlan) -> None:
        import_map(context, plan)

    def imported(self, path: str, plan: MapPlan) -> None:
        faces = [len(level.triangles) for level in plan.levels]
        report(self, "INFO", f"Imported {os.path.basename(path)}: {faces[0]} + {faces[1]} faces, "
                              f"{len(plan.placements)} object(s) of {len(plan.kinds) + len(plan.empty_kinds)} "
                              f"kind(s)" + (f", {len(plan.empty_kinds)} kind(s) shown as Empties"
                                            if plan.empty_kinds else ""))
        if plan.warnings:
            report(self, "WARNING", f"Imported {os.path.basename(path)} with {len(plan.warnings)} warning(s); "
                                     f"first: {plan.warnings[0]}")


class EXPORT_SCENE_OT_parkan_map(bpy.types.Operator, ExportFile):
    bl_idname = "export_scene.parkan_map"
    bl_label = "Export Parkan Map"
    bl_description = ("Export an imported Parkan map and mission: the ground's heights into Land.msh (normals and "
                      "boxes recomputed), the objects' placements into data.tma, every other file as read")
    bl_options = {"PRESET"}

    filename_ext = ".tma"
    check_extension = False  # data.tma for a mission, Land.msh for a map
    filter_glob: StringProperty(default="*.tma;*.msh", options={"HIDDEN"})
    collection: StringProperty(options={"HIDDEN"}, description="Export the map of this collection")
    force: D.force("Write over the map's and mission's files if they are read-only")
    replace_changed: BoolProperty(
        name="Replace Changed Files", default=False,
        description="Write over a map or mission file that another program changed since the import (its change "
                    "is lost); otherwise the export refuses and writes nothing")
    replace_map: BoolProperty(
        name="Replace the Map There", default=False,
        description="A mission exported into another game tree: write its map there even where that tree holds "
                    "other map files (they are replaced); otherwise the export refuses and writes nothing")

    def source_path(self, context) -> str:
        with contextlib.suppress(FormatError):  # no map: execute says why
            top = map_collection(context, self.collection or None)
            return str(top[M.MISSION if M.MISSION in top else M.MAP])
        return ""

    def export(self, context, path: str):
        return export_map(context, path, self.force, self.collection or None, self.replace_changed, self.replace_map)

    def written(self, path: str, result) -> set[str]:
        report(self, "INFO", f"Wrote {len(result.written)} file(s) of {os.path.basename(path)}, "
                              f"{len(result.unchanged)} unchanged: {result.heights} height(s) changed, "
                              f"{result.edited_objects} object(s) edited")
        return {"FINISHED"}


class IO_FH_parkan_map(registration.DropFileHandler, bpy.types.FileHandler):
    bl_idname = "IO_FH_parkan_map"
    bl_label = "Parkan Mission"
    bl_import_operator = "import_scene.parkan_map"
    bl_file_extensions = ".tma"


def menu_import(self, context):
    self.layout.operator(IMPORT_SCENE_OT_parkan_map.bl_idname, text="Parkan Map (Land.msh, data.tma)")


def menu_export(self, context):
    self.layout.operator(EXPORT_SCENE_OT_parkan_map.bl_idname, text="Parkan Map (Land.msh, data.tma)")


CLASSES = (IMPORT_SCENE_OT_parkan_map, EXPORT_SCENE_OT_parkan_map, IO_FH_parkan_map)


def register() -> None:
    registration.register(CLASSES, [menu_import], [menu_export])


def unregister() -> None:
    registration.unregister(CLASSES, [menu_import], [menu_export])
