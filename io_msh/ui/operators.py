"""File > Import > Parkan MSH: the operator (properties and a call), the drop handler and the menu entry.

The options are drawn in collapsible panels of the file browser's sidebar (``layout.panel``, as
glTF-Blender-IO draws its import and export options); an archive's models are a list with checkboxes."""

from __future__ import annotations

import os
from dataclasses import replace
from functools import lru_cache

import bpy
from bpy.app.translations import pgettext_iface as iface
from bpy.props import BoolProperty, CollectionProperty, EnumProperty, IntProperty, StringProperty
from bpy_extras.io_utils import ImportHelper, orientation_helper

from ...core.disk import recovery_notes
from ...core.errors import FormatError, printable
from ...core.files import open_container
from ..com import compat
from ..exp.export import export_to_file
from ..imp.build import import_plans, import_root_matrix
from ..imp.plan import ImportOptions, matching_models, plan_file
from . import dialog as D
from . import engine_operators, library_operators, map_operators, registration, translations, unit_operators
from .clip_operators import CLASSES as CLIP_CLASSES
from .clip_operators import menu_object as clip_menu_object
from .dialog import export_options
from .file_operators import ExportFile
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


@D.describe_axes
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

    node_mode: D.node_mode()
    animation: D.animation()
    slots: D.slots()
    stage: D.stage()
    lod: D.lod()
    game_folder: D.game_folder(
        "Where Material.lib, Textures.lib and LightMap.lib are, if not beside the file or in its parent folders "
        "(empty: the folder set in the extension's preferences)")
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
    set_frame_range: D.set_frame_range()
    global_scale: D.global_scale()
    clips: D.clips()
    root_motion: D.root_motion()
    frame_rate: D.frame_rate()

    def invoke(self, context, event):
        return self.invoke_popup(context)

    def draw(self, context):
        self.layout.use_property_split = True
        self._draw_archive_models(context)
        D.draw_panels(self, "PARKAN_MSH_import", D.IMPORT_PANELS)

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
        for note in recovery_notes():  # a set of files a killed export left half written, put back by the read
            report(self, "WARNING", note)
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


class EXPORT_SCENE_OT_parkan_msh(bpy.types.Operator, ExportFile):
    """Export the selected Parkan model (or the scene's only one) as .msh, or into an .rlb archive"""

    bl_idname = "export_scene.parkan_msh"
    bl_label = "Export Parkan MSH"
    bl_options = {"PRESET"}

    filename_ext = ".msh"
    check_extension = False  # .msh writes a model, .rlb puts it into an archive
    read_as_shown = False  # the export leaves Edit Mode itself (io_msh.exp.export)
    filter_glob: StringProperty(default="*.msh;*.rlb", options={"HIDDEN"})
    collection: StringProperty(options={"HIDDEN"}, description="Export the model in this collection")

    keys: D.keys()
    position_tolerance: D.position_tolerance()
    rotation_tolerance: D.rotation_tolerance()
    frame_range: D.frame_range()
    end_frame: D.end_frame()
    entry: StringProperty(name="Archive Entry", default="",
                          description="For .rlb targets: the model entry to replace or add (default: the model's name)")
    material_library: StringProperty(
        name="Material Library", subtype="FILE_PATH", default="",
        description="Material.lib to add the materials made in Blender to (empty: none; the game then draws "
                    "them with DEFAULT)")
    texture_library: StringProperty(
        name="Texture Library", subtype="FILE_PATH", default="",
        description="Textures.lib to add the new materials' images to (empty: none)")
    force: D.force()
    replace_changed: D.replace_changed()
    texture_format: EnumProperty(
        name="Texture Format", default="8888", description="How new textures are stored in the texture library",
        items=(("8888", "8888", "32-bit colour with alpha"), ("565", "565", "16-bit colour, no alpha")))

    def draw(self, context):
        D.draw_panels(self, "PARKAN_MSH_export", (
            *D.KEY_PANELS, ("Materials", ("material_library", "texture_library", "texture_format")),
            ("Files", ("entry", "force", "replace_changed"))))

    def is_enabled(self, name: str) -> bool:
        """Whether an option applies to the choices made (the others are drawn greyed out)."""
        return D.export_enabled(self, name)

    def target(self, filepath: str) -> str | None:
        path = target_path(filepath)
        if path is None:
            folder = os.path.normpath(filepath if os.path.isdir(filepath) else os.path.dirname(filepath))
            report(self, "ERROR", f"{printable(folder)}: is a folder, not a file: type the file's name (a .msh "
                                  f"model, or an .rlb archive)")
        return path

    def export(self, context, path: str):
        return export_to_file(context, path, export_options(self), self.entry or None, self.collection or None)

    def written(self, path: str, result) -> set[str]:
        edited = len(result.edited_nodes)
        if not result.written:  # every file already held what the scene shows (core.write_path)
            report(self, "INFO", f"Nothing to write: {path} and the files beside it already hold the model")
            return {"FINISHED"}
        # the controller (walker.ctl), material list and libraries written beside the target are named too: the
        # files written, the target first when it is one of them
        first = next((p for p in result.written if os.path.realpath(p) == os.path.realpath(path)), result.written[0])
        others = [os.path.basename(p) for p in result.written if p != first]
        report(self, "INFO", f"Wrote {first}{' and ' + ', '.join(others) if others else ''}: {edited} node track(s) "
                              f"rewritten{', geometry rebuilt' if result.geometry_rebuilt else ''}")
        return {"FINISHED"}


def target_path(filepath: str) -> str | None:
    """The file an export writes for the path the dialog gave: a name without an extension gets .msh; None for
    a folder (the file-name field left empty), which would otherwise make a hidden file named '.msh'."""
    stem, extension = os.path.splitext(os.path.basename(filepath))
    if not filepath or os.path.isdir(filepath) or not stem or stem.lower() in (".msh", ".rlb"):
        return None
    return filepath if extension else filepath + ".msh"


class IO_FH_parkan_msh(registration.DropFileHandler, bpy.types.FileHandler):
    bl_idname = "IO_FH_parkan_msh"
    bl_label = "Parkan MSH"
    bl_import_operator = "import_scene.parkan_msh"
    bl_export_operator = "export_scene.parkan_msh"
    bl_file_extensions = EXTENSIONS


def menu_import(self, context):
    self.layout.operator(IMPORT_SCENE_OT_parkan_msh.bl_idname, text="Parkan MSH (.msh, .rlb)")


def menu_export(self, context):
    self.layout.operator(EXPORT_SCENE_OT_parkan_msh.bl_idname, text="Parkan MSH (.msh, .rlb)")


CLASSES = (ParkanMshPreferences, ParkanMshArchiveModel, PARKAN_UL_archive_models, IMPORT_SCENE_OT_parkan_msh,
           PARKAN_OT_archive_models_select, EXPORT_SCENE_OT_parkan_msh, IO_FH_parkan_msh)


# Where the shipped operator presets are: presets/operator/<bl_idname>/<Name>.py (Blender's preset menu lists
# them beside the user's own, as glTF-Blender-IO ships its import presets).
PRESETS = os.path.dirname(os.path.abspath(__file__))


def register() -> None:
    translations.register()
    bpy.utils.register_preset_path(PRESETS)
    registration.register(CLASSES + CLIP_CLASSES, [menu_import], [menu_export])
    bpy.types.VIEW3D_MT_object.append(clip_menu_object)
    unit_operators.register()
    map_operators.register()
    engine_operators.register()
    library_operators.register()


def unregister() -> None:
    library_operators.unregister()
    engine_operators.unregister()
    map_operators.unregister()
    unit_operators.unregister()
    bpy.types.VIEW3D_MT_object.remove(clip_menu_object)
    registration.unregister(CLASSES + CLIP_CLASSES, [menu_import], [menu_export])
    bpy.utils.unregister_preset_path(PRESETS)
    translations.unregister()
