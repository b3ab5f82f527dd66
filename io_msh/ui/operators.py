"""File > Import > Parkan MSH: the operator (properties and a call), the drop handler and the menu entry."""

from __future__ import annotations

import os
from functools import lru_cache

import bpy
from bpy.props import BoolProperty, CollectionProperty, EnumProperty, FloatProperty, IntProperty, StringProperty
from bpy_extras.io_utils import (
    ExportHelper,
    ImportHelper,
    axis_conversion,
    orientation_helper,
    poll_file_object_drop,
)
from mathutils import Matrix

from ...core.animation.keys import Tolerance
from ...core.errors import FormatError, printable
from ...core.files import open_container
from ...core.msh import streams as S
from ..com import compat
from ..exp.export import export_to_file
from ..exp.materials import MaterialOptions
from ..exp.plan import ExportOptions
from ..imp.build import import_plans
from ..imp.plan import BLENDER_LAST_FRAME, ImportOptions, matching_models, plan_file
from . import translations
from .preferences import ParkanMshPreferences, game_folder

EXTENSIONS = ".msh;.rlb"


def report(operator, level: str, message: str) -> None:
    """An operator report, one per line, printable (file names may hold bytes that are not UTF-8), in the
    interface language."""
    for line in message.splitlines() or [""]:
        operator.report({level}, translations.report_text(printable(line)))


@lru_cache(maxsize=8)
def _archive_models(path: str, mtime: float) -> tuple[str, ...]:
    try:
        container = open_container(path)
    except (OSError, FormatError):
        return ()
    return () if container.is_model else tuple(e.name_str for e in container.model_entries())


@orientation_helper(axis_forward="Y", axis_up="Z")
class IMPORT_SCENE_OT_parkan_msh(bpy.types.Operator, ImportHelper):
    """Import Parkan: Iron Strategy models (.msh, or every model of an .rlb archive) with their animation"""

    bl_idname = "import_scene.parkan_msh"
    bl_label = "Import Parkan MSH"
    bl_options = {"REGISTER", "UNDO", "PRESET"}

    filename_ext = ".msh"
    filter_glob: StringProperty(default="*.msh;*.rlb", options={"HIDDEN"})
    files: CollectionProperty(type=bpy.types.OperatorFileListElement, options={"HIDDEN", "SKIP_SAVE"})
    directory: StringProperty(subtype="DIR_PATH", options={"HIDDEN", "SKIP_SAVE"})

    node_mode: EnumProperty(
        name="Nodes", default="ARMATURE",
        items=(("ARMATURE", "Armature", "One armature per model, a bone per node"),
               ("EMPTIES", "Empties", "An Empty per node, parented as the nodes are")))
    animation: EnumProperty(
        name="Animation", default="FAITHFUL",
        items=(("FAITHFUL", "Faithful", "At every integer frame, exactly the pose the game computes"),
               ("EDITING", "For Editing", "The game's pose at every integer frame within the export's tolerance "
                                          "(0.1 mm, 0.05 degree): few keys, easy to edit"),
               ("KEYS", "Keys", "One keyframe per MSH key, for editing sparse tracks"),
               ("NONE", "None", "No animation: the rest pose")))
    slots: EnumProperty(
        name="Geometry", default="CHOSEN",
        items=(("CHOSEN", "Stage and LOD", "The geometry of the chosen damage stage and LOD"),
               ("ALL", "All Slots", "Every stage and LOD: the chosen one visible, each other one in its own "
                                    "hidden collection")))
    stage: IntProperty(name="Damage Stage", default=0, min=0, max=S.STAGES - 1,
                       description="0: intact; 1 and 2: damaged, with pieces gone")
    lod: EnumProperty(
        name="LOD", default="0",
        items=(*((str(i), f"LOD {i}", f"Distance level {i}" + (" (the closest)" if i == 0 else ""))
                 for i in range(S.FIRST_PERSON)),
               (str(S.FIRST_PERSON), "First-Person", "The cockpit shell seen from inside")))
    game_folder: StringProperty(
        name="Game Folder", subtype="DIR_PATH", default="",
        description="Where Material.lib, Textures.lib and LightMap.lib are, if not beside the file or in its "
                    "parent folders (empty: the folder set in the extension's preferences)")
    entry_filter: StringProperty(
        name="Models", default="",
        description="For archives: which models to import, as wildcard patterns separated by commas "
                    "(empty: all of them)")
    set_frame_range: BoolProperty(name="Set Frame Range", default=True,
                                  description="Set the scene's frame range to the animation's 0 .. frame_count - 1, "
                                              "and go to frame 0")
    global_scale: FloatProperty(name="Scale", default=1.0, min=1e-6, max=1e6, soft_min=0.001, soft_max=1000.0)

    def invoke(self, context, event):
        return self.invoke_popup(context)

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.prop(self, "node_mode")
        layout.prop(self, "animation")
        layout.prop(self, "slots")
        layout.prop(self, "stage")
        layout.prop(self, "lod")
        layout.prop(self, "game_folder")
        layout.prop(self, "set_frame_range")
        layout.prop(self, "global_scale")
        layout.prop(self, "axis_forward")
        layout.prop(self, "axis_up")
        self._draw_archive_models(context)

    def _draw_archive_models(self, context) -> None:
        path = self._browsed_path(context)
        if not path or not os.path.isfile(path):
            return
        models = _archive_models(path, os.path.getmtime(path))
        if not models:
            return
        box = self.layout.box()
        box.prop(self, "entry_filter")
        chosen = matching_models(list(models), self.entry_filter)
        box.label(text=f"{len(chosen)} of {len(models)} models will be imported")
        column = box.column(align=True)
        for name in models[:200]:
            column.label(text=name, icon="CHECKBOX_HLT" if name in chosen else "CHECKBOX_DEHLT")

    def _browsed_path(self, context) -> str:
        params = getattr(getattr(context, "space_data", None), "params", None)
        if params is not None and getattr(params, "filename", ""):
            directory = params.directory.decode() if isinstance(params.directory, bytes) else params.directory
            return os.path.join(directory, params.filename)
        return self.filepath

    def _paths(self) -> list[str]:
        if self.files and self.directory:
            return [os.path.join(self.directory, f.name) for f in self.files if f.name]
        return [self.filepath] if self.filepath else []

    def execute(self, context):
        folders = tuple(f for f in (self.game_folder, game_folder(context)) if f)
        options = ImportOptions(
            node_mode=self.node_mode, animation=self.animation, slots=self.slots, stage=self.stage, lod=int(self.lod),
            entry_filter=self.entry_filter, game_folders=folders,
            name_bytes=compat.BONE_NAME_BYTES if self.node_mode == "ARMATURE" else compat.ID_NAME_BYTES)
        plans, failures, warnings = [], [], []
        for path in self._paths():
            try:
                for plan in plan_file(path, options):
                    plans.append(plan)
                    warnings += plan.warnings
            except FormatError as exc:
                failures.append(exc.describe(path))
            except OSError as exc:
                failures.append(f"{path}: cannot read: {exc.strerror or exc}")
        for failure in failures:
            report(self, "ERROR", failure)
        if not plans:
            if not failures:
                report(self, "ERROR", "No file to import")
            return {"CANCELLED"}
        root_matrix = (axis_conversion(from_forward="Y", from_up="Z", to_forward=self.axis_forward,
                                       to_up=self.axis_up).to_4x4() @ Matrix.Scale(self.global_scale, 4))
        wm = context.window_manager
        wm.progress_begin(0, len(plans))
        try:
            import_plans(context, plans, root_matrix, self.set_frame_range, wm.progress_update)
        except Exception as exc:  # a Blender-side failure must not leave half a scene
            report(self, "ERROR", f"Import failed, nothing was kept: {type(exc).__name__}: {exc}")
            return {"CANCELLED"}
        finally:
            wm.progress_end()
        for line in warnings:
            report(self, "INFO", line)
        if warnings:
            report(self, "WARNING", f"Imported {len(plans)} model(s) with {len(warnings)} warning(s); "
                                     f"first: {warnings[0]}")
        return {"FINISHED"}


class EXPORT_SCENE_OT_parkan_msh(bpy.types.Operator, ExportHelper):
    """Export the selected Parkan model (or the scene's only one) as .msh, or into an .rlb archive"""

    bl_idname = "export_scene.parkan_msh"
    bl_label = "Export Parkan MSH"
    bl_options = {"PRESET"}

    filename_ext = ".msh"
    check_extension = False  # .msh writes a model, .rlb puts it into an archive
    filter_glob: StringProperty(default="*.msh;*.rlb", options={"HIDDEN"})
    collection: StringProperty(options={"HIDDEN"}, description="Export the model in this collection")

    keys: EnumProperty(
        name="Keys", default="REDUCED",
        items=(("REDUCED", "Reduced", "The fewest keys that reproduce every frame within the tolerance"),
               ("EVERY_FRAME", "Every Frame", "One key per frame of the scene's range"),
               ("BLENDER_KEYS", "Blender Keyframes", "Keys exactly at the Blender keyframes (integer frames)")))
    position_tolerance: FloatProperty(name="Position Tolerance", default=Tolerance.position, min=0.0,
                                      precision=6, description="Largest position error of reduced keys (metres)")
    rotation_tolerance: FloatProperty(name="Rotation Tolerance", default=Tolerance.rotation_deg, min=0.0,
                                      precision=4, description="Largest rotation error of reduced keys (degrees)")
    frame_range: EnumProperty(
        name="Frame Range", default="ACTION",
        description="Which frames are exported. They always start at frame 0, the game's time 0 "
                    "(Blender frame f is MSH time f)",
        items=(("ACTION", "Action", "Up to the end of the model's action (its manual frame range, which an "
                                    "import sets, else its last keyframe)"),
               ("SCENE", "Scene", "Up to the scene's end frame"),
               ("CUSTOM", "Custom", "Up to the End Frame below")))
    end_frame: IntProperty(name="End Frame", default=100, min=0, max=BLENDER_LAST_FRAME,
                           description="Last exported frame (Custom range), at most Blender's last frame "
                                       f"{BLENDER_LAST_FRAME:,}")
    entry: StringProperty(name="Archive Entry", default="",
                          description="For .rlb targets: the model entry to replace or add (default: the model's name)")
    material_library: StringProperty(
        name="Material Library", subtype="FILE_PATH", default="",
        description="Material.lib to add the materials made in Blender to (empty: none; the game then draws "
                    "them with DEFAULT)")
    texture_library: StringProperty(
        name="Texture Library", subtype="FILE_PATH", default="",
        description="Textures.lib to add the new materials' images to (empty: none)")
    force: BoolProperty(name="Replace Read-Only Files", default=False,
                        description="Write over a target (or library) whose file is read-only")
    texture_format: EnumProperty(
        name="Texture Format", default="8888",
        items=(("8888", "8888", "32-bit colour with alpha"), ("565", "565", "16-bit colour, no alpha")))

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.prop(self, "keys")
        column = layout.column()
        column.enabled = self.keys == "REDUCED"
        column.prop(self, "position_tolerance")
        column.prop(self, "rotation_tolerance")
        layout.prop(self, "frame_range")
        row = layout.row()
        row.enabled = self.frame_range == "CUSTOM"
        row.prop(self, "end_frame")
        layout.prop(self, "entry")
        layout.prop(self, "force")
        box = layout.box()
        box.label(text="New Materials")
        box.prop(self, "material_library")
        box.prop(self, "texture_library")
        box.prop(self, "texture_format")

    def execute(self, context):
        libraries = MaterialOptions(self.material_library, self.texture_library, int(self.texture_format))
        options = ExportOptions(self.keys, Tolerance(self.position_tolerance, self.rotation_tolerance),
                                materials=libraries, force=self.force, frame_range=self.frame_range,
                                end_frame=self.end_frame)
        path = self.filepath if os.path.splitext(self.filepath)[1] else self.filepath + ".msh"
        try:
            result = export_to_file(context, path, options, self.entry or None, self.collection or None)
        except FormatError as exc:
            report(self, "ERROR", exc.describe(path))
            return {"CANCELLED"}
        except OSError as exc:
            report(self, "ERROR", f"{printable(str(exc.filename or path))}: cannot write: {exc.strerror or exc}")
            return {"CANCELLED"}
        for line in result.warnings:
            report(self, "WARNING", line)
        edited = len(result.edited_nodes)
        report(self, "INFO", f"Wrote {path}: {edited} node track(s) rewritten"
                              f"{', geometry rebuilt' if result.geometry_rebuilt else ''}")
        return {"FINISHED"}


class IO_FH_parkan_msh(bpy.types.FileHandler):
    bl_idname = "IO_FH_parkan_msh"
    bl_label = "Parkan MSH"
    bl_import_operator = "import_scene.parkan_msh"
    bl_export_operator = "export_scene.parkan_msh"
    bl_file_extensions = EXTENSIONS

    @classmethod
    def poll_drop(cls, context):
        return poll_file_object_drop(context)


def menu_import(self, context):
    self.layout.operator(IMPORT_SCENE_OT_parkan_msh.bl_idname, text="Parkan MSH (.msh, .rlb)")


def menu_export(self, context):
    self.layout.operator(EXPORT_SCENE_OT_parkan_msh.bl_idname, text="Parkan MSH (.msh, .rlb)")


CLASSES = (ParkanMshPreferences, IMPORT_SCENE_OT_parkan_msh, EXPORT_SCENE_OT_parkan_msh, IO_FH_parkan_msh)


def register() -> None:
    translations.register()
    for cls in CLASSES:
        bpy.utils.register_class(cls)
    bpy.types.TOPBAR_MT_file_import.append(menu_import)
    bpy.types.TOPBAR_MT_file_export.append(menu_export)


def unregister() -> None:
    bpy.types.TOPBAR_MT_file_export.remove(menu_export)
    bpy.types.TOPBAR_MT_file_import.remove(menu_import)
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
    translations.unregister()
