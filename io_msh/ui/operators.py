"""File > Import > Parkan MSH: the operator (properties and a call), the drop handler and the menu entry.

The options are drawn in collapsible panels of the file browser's sidebar (``layout.panel``, as
glTF-Blender-IO draws its import and export options); an archive's models are a list with checkboxes."""

from __future__ import annotations

import math
import os
from dataclasses import replace
from functools import lru_cache

import bpy
from bpy.app.translations import pgettext_iface as iface
from bpy.props import BoolProperty, CollectionProperty, EnumProperty, FloatProperty, IntProperty, StringProperty
from bpy_extras.io_utils import (
    ExportHelper,
    ImportHelper,
    orientation_helper,
    poll_file_object_drop,
)

from ...core.animation.keys import Tolerance
from ...core.errors import FormatError, printable
from ...core.files import open_container
from ...core.msh import streams as S
from ..com import compat
from ..exp.export import export_to_file
from ..exp.materials import MaterialOptions
from ..exp.plan import ExportOptions
from ..imp.build import import_plans, import_root_matrix
from ..imp.plan import BLENDER_LAST_FRAME, ImportOptions, matching_models, plan_file
from . import translations, unit_operators
from .clip_operators import CLASSES as CLIP_CLASSES
from .clip_operators import menu_object as clip_menu_object
from .preferences import ParkanMshPreferences, game_folder
from .translations import report

EXTENSIONS = ".msh;.rlb"


@lru_cache(maxsize=8)
def _archive_models(path: str, mtime: float) -> tuple[tuple[int, str], ...]:
    """An archive's models as (entry index, name shown); () for a model file or a file that does not read."""
    try:
        container = open_container(path)
    except (OSError, FormatError):
        return ()
    if container.is_model:
        return ()
    return tuple((index, printable(e.name_str)) for index, e in enumerate(container.archive.entries) if e.is_model)


class ParkanMshArchiveModel(bpy.types.PropertyGroup):
    """One model of the archive being browsed: a row of the import dialog's model list."""

    index: IntProperty(name="Entry", description="The model's entry index in the archive", options={"HIDDEN"})
    selected: BoolProperty(name="Import", default=True, description="Import this model of the archive")


class PARKAN_UL_archive_models(bpy.types.UIList):
    """The archive's models with a checkbox each; the list's filter (below it) narrows the rows shown."""

    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index=0):
        layout.prop(item, "selected", text=item.name)


class PARKAN_OT_archive_models_select(bpy.types.Operator):
    """Tick or untick every model of the archive in the import dialog's list"""

    bl_idname = "import_scene.parkan_msh_models_select"
    bl_label = "Select Models"
    bl_options = {"INTERNAL"}

    selected: BoolProperty(name="Selected", default=True, description="Tick (on) or untick (off) every model")

    @classmethod
    def poll(cls, context):
        return isinstance(_browsed_operator(context), IMPORT_SCENE_OT_parkan_msh)

    def execute(self, context):
        for item in _browsed_operator(context).models:
            item.selected = self.selected
        return {"FINISHED"}


def _browsed_operator(context):
    """The operator whose options the file browser shows, if any."""
    return getattr(getattr(context, "space_data", None), "active_operator", None)


def _describe_axes(cls):
    """orientation_helper's axis options carry no tooltip: give them one (before the class is registered)."""
    for name, text in (("axis_forward", "The Blender axis the model's forward (MSH +Y) points along"),
                       ("axis_up", "The Blender axis the model's up (MSH +Z) points along")):
        cls.__annotations__[name].keywords["description"] = text
    return cls


@_describe_axes
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
        name="Nodes", default="ARMATURE", description="What each node of the model becomes in Blender",
        items=(("ARMATURE", "Armature", "One armature per model, a bone per node"),
               ("EMPTIES", "Empties", "An Empty per node, parented as the nodes are")))
    animation: EnumProperty(
        name="Animation", default="FAITHFUL", description="How the nodes' animation is keyed",
        items=(("FAITHFUL", "Faithful", "At every integer frame, exactly the pose the game computes"),
               ("EDITING", "For Editing", "The game's pose at every integer frame within the export's tolerance "
                                          "(0.1 mm, 0.05 degree): few keys, easy to edit"),
               ("KEYS", "Keys", "One keyframe per MSH key, for editing sparse tracks"),
               ("NONE", "None", "No animation: the rest pose")))
    slots: EnumProperty(
        name="Geometry", default="CHOSEN", description="Which damage stages and LODs are imported",
        items=(("CHOSEN", "Stage and LOD", "The geometry of the chosen damage stage and LOD"),
               ("ALL", "All Slots", "Every stage and LOD: the chosen one visible, each other one in its own "
                                    "hidden collection")))
    stage: IntProperty(name="Damage Stage", default=0, min=0, max=S.STAGES - 1,
                       description="The damage stage shown (with All Slots: the one visible): 0 intact; 1 and 2 "
                                   "damaged, with pieces gone")
    lod: EnumProperty(
        name="LOD", default="0", description="The level of detail shown (with All Slots: the one visible)",
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
                    "(empty: all of them). The dialog's list of models, when shown, decides instead")
    models: CollectionProperty(type=ParkanMshArchiveModel, options={"SKIP_SAVE"},
                               description="The models of the archive shown in the dialog; the ticked ones are "
                                           "imported")
    models_active: IntProperty(options={"HIDDEN", "SKIP_SAVE"}, description="The list's highlighted row")
    models_source: StringProperty(options={"HIDDEN", "SKIP_SAVE"},
                                  description="The archive whose models the list holds")
    set_frame_range: BoolProperty(name="Set Frame Range", default=True,
                                  description="Set the scene's frame range to the animation's 0 .. frame_count - 1, "
                                              "and go to frame 0")
    global_scale: FloatProperty(name="Scale", default=1.0, min=1e-6, max=1e6, soft_min=0.001, soft_max=1000.0,
                                description="Scale of the model's root (1: one MSH unit is one metre)")
    clips: EnumProperty(
        name="Clips", default="NONE",
        description="With a controller beside the model (STEM.ctl) or in the archive (CTLD): an action per clip "
                    "the game plays, named '<model>|<motion> <index>', and a 0..1 slider per channel",
        items=(("NONE", "None", "Only the model's whole timeline"),
               ("ACTIONS", "Actions", "An action per clip, kept in the file; the timeline stays assigned"),
               ("NLA", "NLA Strips", "An action per clip, each also on a muted NLA track of its own")))
    root_motion: EnumProperty(
        name="Root Motion", default="IN_PLACE",
        description="How the clips move the body (with Clips)",
        items=(("IN_PLACE", "In Place", "As the game draws it: node 0's translation cleared"),
               ("MOVING", "Moving", "The body moved by the clip's stride at the clip's speed")))
    frame_rate: FloatProperty(name="Frame Rate", default=24.0, min=0.01, max=1000.0,
                              description="Blender frames per second of game time: the controller's steps and the "
                                          "materials' animation")

    def invoke(self, context, event):
        return self.invoke_popup(context)

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.use_property_decorate = False
        self._draw_archive_models(context)
        for title, names in (("Nodes", ("node_mode",)), ("Animation", ("animation", "set_frame_range")),
                             ("Clips", ("clips", "root_motion", "frame_rate")),
                             ("Geometry", ("slots", "stage", "lod")), ("Materials", ("game_folder",)),
                             ("Transform", ("global_scale", "axis_forward", "axis_up"))):
            draw_panel(layout, f"PARKAN_MSH_import_{title.lower()}", title, self, names)

    def _draw_archive_models(self, context) -> None:
        path = self._browsed_path(context)
        models = _archive_models(path, os.path.getmtime(path)) if path and os.path.isfile(path) else ()
        if self.models_source != path:
            self._fill_models(path, models)
        if not models:
            return
        header, body = self.layout.panel("PARKAN_MSH_import_models", default_closed=False)
        chosen = sum(item.selected for item in self.models)
        header.label(text=iface("Models ({} of {})").format(chosen, len(self.models)), translate=False)
        if body:
            body.template_list("PARKAN_UL_archive_models", "", self, "models", self, "models_active",
                               rows=min(max(len(self.models), 3), 8))
            row = body.row(align=True)
            row.operator(PARKAN_OT_archive_models_select.bl_idname, text="All").selected = True
            row.operator(PARKAN_OT_archive_models_select.bl_idname, text="None").selected = False

    def _fill_models(self, path: str, models) -> None:
        """The list for the archive now browsed; ticked: the models the Models patterns match."""
        self.models.clear()
        self.models_source = path
        chosen = set(matching_models([name for _, name in models], self.entry_filter))
        for index, name in models:
            item = self.models.add()
            item.name, item.index, item.selected = name, index, name in chosen

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
            clips=self.clips, root_motion=self.root_motion, frame_rate=self.frame_rate,
            name_bytes=compat.node_name_bytes(self.node_mode))
        plans, failures, warnings = [], [], []
        for path in self._paths():
            if self.models and self.models_source and os.path.realpath(path) == os.path.realpath(self.models_source):
                ticked = tuple(item.index for item in self.models if item.selected)
                if not ticked:
                    failures.append(f"{printable(path)}: no model of the archive is ticked in the list")
                    continue
                chosen = replace(options, entry_indices=ticked)
            else:
                chosen = options
            try:
                for plan in plan_file(path, chosen):
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
        root_matrix = import_root_matrix(self.axis_forward, self.axis_up, self.global_scale)
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
        name="Keys", default="REDUCED", description="Which keys edited nodes get",
        items=(("REDUCED", "Reduced", "The fewest keys that reproduce every frame within the tolerance"),
               ("EVERY_FRAME", "Every Frame", "One key per frame of the scene's range"),
               ("BLENDER_KEYS", "Blender Keyframes", "Keys exactly at the Blender keyframes (integer frames)")))
    # A length (Blender units: metres at the scene's unit scale 1) and an angle (radians, shown in the scene's
    # rotation unit); the export's Tolerance takes metres and degrees.
    position_tolerance: FloatProperty(name="Position Tolerance", default=Tolerance.position, min=0.0,
                                      precision=6, subtype="DISTANCE", unit="LENGTH",
                                      description="Largest position error of reduced keys")
    rotation_tolerance: FloatProperty(name="Rotation Tolerance", default=math.radians(Tolerance.rotation_deg),
                                      min=0.0, max=math.pi, precision=4, subtype="ANGLE", unit="ROTATION",
                                      description="Largest rotation error of reduced keys")
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
        name="Texture Format", default="8888", description="How new textures are stored in the texture library",
        items=(("8888", "8888", "32-bit colour with alpha"), ("565", "565", "16-bit colour, no alpha")))

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.use_property_decorate = False
        for title, names in (("Keys", ("keys", "position_tolerance", "rotation_tolerance")),
                             ("Frame Range", ("frame_range", "end_frame")),
                             ("Materials", ("material_library", "texture_library", "texture_format")),
                             ("Files", ("entry", "force"))):
            draw_panel(layout, f"PARKAN_MSH_export_{title.lower().replace(' ', '_')}", title, self, names)

    def is_enabled(self, name: str) -> bool:
        """Whether an option applies to the choices made (the others are drawn greyed out)."""
        if name in ("position_tolerance", "rotation_tolerance"):
            return self.keys == "REDUCED"
        return name != "end_frame" or self.frame_range == "CUSTOM"

    def execute(self, context):
        options = export_options(self)
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




def export_options(props) -> ExportOptions:
    """The export's options from the dialog's properties (the operator, or its last-used properties); the
    tolerance in the export's units, metres and degrees."""
    libraries = MaterialOptions(props.material_library, props.texture_library, int(props.texture_format))
    return ExportOptions(props.keys, Tolerance(props.position_tolerance, math.degrees(props.rotation_tolerance)),
                         materials=libraries, force=props.force, frame_range=props.frame_range,
                         end_frame=props.end_frame)


def draw_panel(layout, idname: str, title: str, operator, names) -> None:
    """A collapsible panel of the file browser's sidebar holding ``names``, open at first."""
    header, body = layout.panel(idname, default_closed=False)
    header.label(text=title)
    if body:
        for name in names:
            column = body.column()
            enabled = getattr(operator, "is_enabled", None)
            column.enabled = enabled(name) if enabled else True
            column.prop(operator, name)


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


CLASSES = (ParkanMshPreferences, ParkanMshArchiveModel, PARKAN_UL_archive_models, IMPORT_SCENE_OT_parkan_msh,
           PARKAN_OT_archive_models_select, EXPORT_SCENE_OT_parkan_msh, IO_FH_parkan_msh)


def register() -> None:
    translations.register()
    for cls in CLASSES + CLIP_CLASSES:
        bpy.utils.register_class(cls)
    bpy.types.TOPBAR_MT_file_import.append(menu_import)
    bpy.types.TOPBAR_MT_file_export.append(menu_export)
    bpy.types.VIEW3D_MT_object.append(clip_menu_object)
    unit_operators.register()


def unregister() -> None:
    unit_operators.unregister()
    bpy.types.VIEW3D_MT_object.remove(clip_menu_object)
    bpy.types.TOPBAR_MT_file_export.remove(menu_export)
    bpy.types.TOPBAR_MT_file_import.remove(menu_import)
    for cls in reversed(CLASSES + CLIP_CLASSES):
        bpy.utils.unregister_class(cls)
    translations.unregister()
