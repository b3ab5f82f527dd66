"""The Parkan sidebar panel (3D viewport, N panel, tab "Parkan") for the selected model: what it is, which
damage stage and LOD is shown, what an export would refuse or change, and the game's pose beside Blender's."""

from __future__ import annotations

import json
import textwrap

import bpy
import numpy as np
from bpy.app.handlers import persistent
from bpy.app.translations import pgettext_iface as iface
from bpy.props import BoolProperty, IntProperty, StringProperty
from mathutils import Matrix

from ...core.animation.sampler import AnimationData, sample
from ...core.errors import FormatError
from ...core.msh import streams as S
from ...core.msh.model import Model
from ..com import conversion as C
from ..com import props as P
from ..com.hierarchy import descendants
from ..exp import check_cache
from ..exp.check import ExportCheck, check_export
from ..exp.live_check import LiveCheck
from ..exp.plan import ExportOptions
from ..exp.readback import EVALUATION_SCENE
from ..imp.unit_clips import part_label, unit_clip_labels, unit_parts
from . import registration
from .dialog import export_options
from .operators import EXPORT_SCENE_OT_parkan_msh
from .translations import report, report_text

GHOST = "msh_game_pose"  # on the game pose's collection: the model root it shows
GHOST_NODE = "msh_game_node"  # on the game pose's Empties: the node each shows
LIVE = "parkan_msh_live_check"  # WindowManager: run the export check again after every change


def model_root(obj) -> bpy.types.Object | None:
    """The model root above (or at) ``obj``: the object carrying msh_model."""
    while obj is not None and P.MODEL not in obj:
        obj = obj.parent
    return obj


def selected_root(context) -> bpy.types.Object | None:
    return model_root(context.active_object)


# --------------------------------------------------------------------- the export check
class _Checks:
    """The last export check of each model, and whether the scene changed since."""

    def __init__(self) -> None:
        self.results: dict[str, tuple[ExportCheck, int]] = {}
        self.generation = 0
        self.running = False

    def current(self, root_name: str) -> ExportCheck | None:
        found = self.results.get(root_name)
        return found[0] if found else None

    def fresh(self, root_name: str) -> bool:
        found = self.results.get(root_name)
        return found is not None and found[1] == self.generation


CHECKS = _Checks()


def last_export_options(context) -> ExportOptions:
    """The options the export dialog was last run with (its defaults before the first export)."""
    props = context.window_manager.operator_properties_last(EXPORT_SCENE_OT_parkan_msh.bl_idname)
    return export_options(props) if props is not None else ExportOptions()


def run_check(context, root: bpy.types.Object | None = None) -> ExportCheck:
    """Check the export of the model the export would take (the selected one) with the export dialog's last
    options, and keep the result for the panel (under ``root``'s name when no model root was found)."""
    CHECKS.running = True
    try:
        result = check_export(context, last_export_options(context), cache=True)
        context.view_layer.update()  # the check's own changes (the export's timeline copies) are no scene change
    finally:
        CHECKS.running = False
    name = result.root or (root.name if root is not None else None)
    if name is not None:
        CHECKS.results[name] = (result, CHECKS.generation)
    return result


@persistent
def _on_depsgraph_update(scene, depsgraph) -> None:
    check_cache.note_updates(depsgraph)  # also the check's own: what it changed is read again next time
    if CHECKS.running or _GHOSTS_UPDATING[0]:
        return
    CHECKS.generation += 1
    wm = bpy.context.window_manager
    if wm is not None and getattr(wm, LIVE, False) and not bpy.app.timers.is_registered(_live_check):
        bpy.app.timers.register(_live_check, first_interval=0.5)


@persistent
def _on_data_replaced(*_args) -> None:
    """A file loaded, an undo or a redo: nothing the export check kept is known to hold any more."""
    check_cache.forget()


_REPLACED_DATA = (bpy.app.handlers.load_post, bpy.app.handlers.undo_post, bpy.app.handlers.redo_post)


LIVE_STEP = 0.01  # seconds between the live check's steps (Blender handles its events in between)
_LIVE: list[LiveCheck | None] = [None]  # the live check under way


def _live_check() -> float | None:
    """The timer of the live check: after the scene changed, check it again a step at a time (``LiveCheck``:
    no step holds Blender for long; the check is started again when the scene changes before it ends), then
    redraw the panel. Not in Edit Mode (the export leaves it, the check does not) nor during playback."""
    context = bpy.context
    job = _LIVE[0]
    if job is not None and job.stamp != CHECKS.generation:  # the scene changed: this check is out of date
        if job.waiting:
            return LIVE_STEP  # its worker holds no Blender data; let it end
        job = _LIVE[0] = None
    if job is None:
        root = selected_root(context)
        screen = getattr(context, "screen", None)
        if root is None or CHECKS.fresh(root.name) or (screen is not None and screen.is_animation_playing):
            return None
        if context.active_object is not None and context.active_object.mode == "EDIT":
            return None
        job = _LIVE[0] = LiveCheck(root.name, last_export_options(context), CHECKS.generation)
    CHECKS.running = True
    try:
        # the check's own changes (the export's timeline copies) are no scene change
        result = job.step(context, on_read=context.view_layer.update)
    except BaseException:
        _LIVE[0] = None
        raise
    finally:
        CHECKS.running = False
    if result is None:
        return LIVE_STEP
    _LIVE[0] = None
    CHECKS.results[result.root or job.root_name] = (result, job.stamp)
    for window in context.window_manager.windows:
        for area in window.screen.areas:
            if area.type == "VIEW_3D":
                area.tag_redraw()
    return None if job.stamp == CHECKS.generation else LIVE_STEP


class PARKAN_OT_check_export(bpy.types.Operator):
    bl_idname = "parkan_msh.check_export"
    bl_label = "Check Export"
    bl_description = ("Check what an export of the selected model would refuse or change (with the export "
                      "dialog's last options); nothing is written")
    bl_options = {"INTERNAL"}

    def execute(self, context):
        result = run_check(context)
        errors = sum(line.level == "ERROR" for line in result.lines)
        report(self, "ERROR" if errors else "INFO",
               f"export check: {errors} refusal(s), {len(result.lines) - errors} warning(s)")
        return {"FINISHED"}


class PARKAN_OT_select_named(bpy.types.Operator):
    """Select the object, bone or material's objects this line names"""

    bl_idname = "parkan_msh.select_named"
    bl_label = "Select"
    bl_options = {"REGISTER", "UNDO", "INTERNAL"}

    name: StringProperty(name="Name", description="The object, bone or material to select")
    root: StringProperty(name="Model", description="The model root the name belongs to")

    def execute(self, context):
        root = bpy.data.objects.get(self.root)
        objects = [root, *descendants(root)] if root is not None else list(context.scene.objects)
        chosen = select_named(context, self.name, objects)
        if not chosen:
            report(self, "WARNING", f"nothing named {self.name!r} in the model")
            return {"CANCELLED"}
        return {"FINISHED"}


def select_named(context, name: str, objects: list) -> list:
    """Select what ``name`` names among ``objects``: the object, else the bone (its armature active), else the
    objects using the material. Returns what was selected."""
    view_layer = context.view_layer
    found = [o for o in objects if o.name == name]
    bone_owner = next((o for o in objects if o.type == "ARMATURE" and name in o.data.bones), None)
    if not found and bone_owner is not None:
        found = [bone_owner]
        for bone in bone_owner.pose.bones:  # selection is the pose bone's since 5.0, the bone's before
            owner = bone if hasattr(bone, "select") else bone.bone
            owner.select = bone.name == name
        bone_owner.data.bones.active = bone_owner.data.bones[name]
    if not found:
        found = [o for o in objects if o.type == "MESH" and any(m is not None and m.name == name
                                                                  for m in o.data.materials)]
    found = [o for o in found if o.name in view_layer.objects]
    if not found:
        return []
    for obj in list(view_layer.objects.selected):  # hidden ones too
        obj.select_set(False)
    for obj in found:
        obj.select_set(True)
    view_layer.objects.active = found[0]
    return found


# --------------------------------------------------------------------- damage stages and LODs
def slot_collections(root) -> dict[int, bpy.types.Collection]:
    """The model's slot collections (an All Slots import) by slot position."""
    out = {}
    for obj in descendants(root):
        for collection in obj.users_collection:
            if P.SLOT in collection:
                out[int(collection[P.SLOT])] = collection
    return out


def _layer_collection(layer, collection):
    stack = [layer]
    while stack:
        current = stack.pop()
        if current.collection == collection:
            return current
        stack.extend(current.children)
    return None


def shown_slot(context, root) -> int:
    """The slot position whose parts are shown: a visible slot collection's, else the import's chosen one."""
    for position, collection in sorted(slot_collections(root).items()):
        layer = _layer_collection(context.view_layer.layer_collection, collection)
        if layer is not None and not layer.hide_viewport:
            return position
    return P.shown_int(root, P.SLOT_POSITION)


def show_slot(context, root, position: int) -> None:
    """Show the parts of one slot position and hide every other slot's: slot collections through the view
    layer (the Outliner's eye icon) and their render toggle, the chosen slot's parts object by object."""
    collections = slot_collections(root)
    for slot, collection in collections.items():
        layer = _layer_collection(context.view_layer.layer_collection, collection)
        if layer is not None:
            layer.hide_viewport = slot != position
        collection.hide_render = slot != position
    chosen = P.shown_int(root, P.SLOT_POSITION)
    for obj in descendants(root):
        if obj.type == "MESH" and not any(P.SLOT in c for c in obj.users_collection) \
                and obj.name in context.view_layer.objects:
            obj.hide_set(position != chosen)
            obj.hide_render = position != chosen


def available_slots(root) -> set[int]:
    return {P.shown_int(root, P.SLOT_POSITION), *slot_collections(root)}


class PARKAN_OT_show_slot(bpy.types.Operator):
    """Show this damage stage and LOD of the model, hiding the others"""

    bl_idname = "parkan_msh.show_slot"
    bl_label = "Show Stage and LOD"
    bl_options = {"REGISTER", "UNDO", "INTERNAL"}

    position: IntProperty(name="Slot", min=0, max=S.STAGES * S.LODS - 1,
                          description="The slot position: damage stage x 5 + LOD")

    @classmethod
    def poll(cls, context):
        return selected_root(context) is not None

    def execute(self, context):
        root = selected_root(context)
        if self.position not in available_slots(root):
            report(self, "ERROR", f"{root.name}: {S.slot_label(self.position)} was not imported")
            return {"CANCELLED"}
        show_slot(context, root, self.position)
        return {"FINISHED"}


# --------------------------------------------------------------------- the game's pose
_GHOSTS_UPDATING = [False]


def game_model(root) -> Model | None:
    """The model the game pose shows: what the export would write (the last fresh export check), else the
    model as imported."""
    check = CHECKS.current(root.name)
    if check is not None and check.model is not None and CHECKS.fresh(root.name):
        return check.model
    source = root.get(P.SOURCE)
    return Model.parse(bytes(source), str(root.get(P.MODEL, ""))) if source is not None else None


def game_pose(model: Model, frame: float) -> np.ndarray:
    """(nodes, 4, 4) each node's matrix relative to the model root as the game's runtime samples it at
    ``frame`` (Blender frame f is the game's time f)."""
    s = sample(AnimationData.from_model(model), [frame])
    local = C.matrices(C.blender_quaternions(s.rot[:, 0]), s.pos[:, 0].astype(np.float64))
    parents = [None if p == S.NO_INDEX else int(p) for p in model.nodes["parent"]]
    world: list[np.ndarray | None] = [None] * len(parents)
    for start in range(len(parents)):
        chain, node = [], start
        while node is not None and world[node] is None and node not in chain:
            chain.append(node)
            node = parents[node]
        above = world[node] if node is not None and world[node] is not None else np.eye(4)
        for node in reversed(chain):
            above = above @ local[node]
            world[node] = above
    return np.array(world)


def ghost_collection(root) -> bpy.types.Collection | None:
    return next((c for c in bpy.data.collections if c.get(GHOST) == root.name), None)


def show_game_pose(context, root) -> bpy.types.Collection:
    """An Empty per node, drawn as arrows, placed where the game's runtime puts the node at the current frame;
    kept up to date when the frame changes."""
    collection = ghost_collection(root)
    if collection is None:
        collection = bpy.data.collections.new(f"{root.name} game pose")
        collection[GHOST] = root.name
        context.scene.collection.children.link(collection)
    update_game_pose(context.scene, root, collection)
    return collection


def hide_game_pose(root) -> None:
    collection = ghost_collection(root)
    if collection is None:
        return
    for obj in list(collection.objects):
        bpy.data.objects.remove(obj)
    bpy.data.collections.remove(collection)


def update_game_pose(scene, root, collection) -> None:
    model = game_model(root)
    if model is None:
        return
    try:
        worlds = game_pose(model, scene.frame_current + scene.frame_subframe)
    except FormatError:
        return
    ghosts = sorted((o for o in collection.objects if GHOST_NODE in o), key=lambda o: o[GHOST_NODE])
    _GHOSTS_UPDATING[0] = True
    try:
        while len(ghosts) < len(worlds):
            ghost = bpy.data.objects.new(f"{root.name} game node {len(ghosts)}", None)
            ghost.empty_display_type, ghost.empty_display_size = "ARROWS", 0.25
            ghost.show_in_front = True
            ghost.hide_select = True
            ghost[GHOST_NODE] = len(ghosts)
            collection.objects.link(ghost)
            ghosts.append(ghost)
        for ghost in ghosts[len(worlds):]:
            bpy.data.objects.remove(ghost)
        for ghost, world in zip(ghosts, worlds):
            ghost.matrix_world = root.matrix_world @ Matrix(world.tolist())
    finally:
        _GHOSTS_UPDATING[0] = False


@persistent
def _on_frame_change(scene, depsgraph=None) -> None:
    # A frame change evaluates the edits still pending without a depsgraph_update_post (a script's edit then
    # frame_set); the export's own evaluation scene (its first evaluation lists every data-block) is no edit.
    if depsgraph is not None and not scene.get(EVALUATION_SCENE):
        check_cache.note_updates(depsgraph)
    for collection in [c for c in bpy.data.collections if GHOST in c]:
        root = bpy.data.objects.get(collection[GHOST])
        if root is not None and P.MODEL in root:
            update_game_pose(scene, root, collection)


class PARKAN_OT_game_pose(bpy.types.Operator):
    bl_idname = "parkan_msh.game_pose"
    bl_label = "Game Pose"
    bl_description = ("Show (or hide) the game's pose of every node at the current frame beside Blender's: an "
                      "arrow per node where the game's runtime puts it (the model as the export would write it "
                      "after a fresh export check, else as imported)")
    bl_options = {"REGISTER", "UNDO", "INTERNAL"}

    @classmethod
    def poll(cls, context):
        return selected_root(context) is not None

    def execute(self, context):
        root = selected_root(context)
        if ghost_collection(root) is not None:
            hide_game_pose(root)
            return {"FINISHED"}
        if game_model(root) is None:
            report(self, "ERROR", f"{root.name}: no game model to sample (export check the model first)")
            return {"CANCELLED"}
        show_game_pose(context, root)
        return {"FINISHED"}


# --------------------------------------------------------------------- the panel
def model_facts(root) -> list[tuple[str, str]]:
    """(label, value) rows describing the model."""
    nodes = len(root.data.bones) if root.type == "ARMATURE" else \
        sum(1 for o in descendants(root) if o.type == "EMPTY" and P.NODE_INDEX in o)
    meshes = [o for o in descendants(root) if o.type == "MESH"]
    source = str(root.get(P.SOURCE_PATH, "")) or iface("made in Blender")
    entry = root.get(P.ENTRY_INDEX)
    slots = iface("all") if root.get(P.SLOTS) == "ALL" else slot_text(P.shown_int(root, P.SLOT_POSITION))
    return [("Model", str(root.get(P.MODEL, root.name))),
            ("File", source + (" " + iface("(entry {})").format(entry) if entry is not None else "")),
            ("Nodes", str(nodes)), ("Parts", str(len(meshes))), ("Slots", slots),
            ("Frames", str(P.shown_int(root, P.FRAME_COUNT)))]


def model_materials(root) -> list[str]:
    """The model's materials in WEAR order (then the new ones), each with its WEAR row name when renamed."""
    found = {}
    for obj in descendants(root):
        if obj.type == "MESH":
            for material in obj.data.materials:
                if material is not None:
                    found[material.name] = material
    rows = sorted(found.values(), key=lambda m: (m.get(P.MATERIAL, 1 << 30), m.name))
    return [m.name + "  " + (iface("(row {})").format(m[P.MATERIAL]) if P.MATERIAL in m else iface("(new)"))
            for m in rows]


def slot_text(position: int) -> str:
    """A slot's name in the interface language (``streams.slot_label``, word by word)."""
    stage, lod = divmod(position, S.LODS)
    return " ".join((iface("intact") if stage == 0 else iface("damage {}").format(stage),
                     iface("first-person") if lod == S.FIRST_PERSON else f"LOD {lod}"))


class VIEW3D_PT_parkan_model(bpy.types.Panel):
    bl_idname = "VIEW3D_PT_parkan_model"
    bl_label = "Parkan Model"
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Parkan"

    def draw(self, context):
        layout = self.layout
        root = selected_root(context)
        if root is None:
            layout.label(text="Select a Parkan model (import one with File > Import > Parkan MSH)")
            return
        draw_model(layout, context, root)


def draw_model(layout, context, root) -> None:
    header, body = layout.panel("PARKAN_MSH_panel_model", default_closed=False)
    header.label(text=root.name, icon="OUTLINER_OB_ARMATURE" if root.type == "ARMATURE" else "OUTLINER_OB_EMPTY")
    if body:
        column = body.column(align=True)
        for label, value in model_facts(root):
            row = column.row()
            row.label(text=label)
            row.label(text=value, translate=False)
        column.label(text="Materials:")
        for name in model_materials(root) or [iface("none")]:
            column.label(text=name, icon="MATERIAL", translate=False)
    header, body = layout.panel("PARKAN_MSH_panel_slots", default_closed=False)
    header.label(text="Damage Stage and LOD")
    if body:
        draw_slots(body, context, root)
    header, body = layout.panel("PARKAN_MSH_panel_check", default_closed=False)
    header.label(text="Export Check")
    if body:
        draw_check(body, context, root)
    if P.STATES_IMPORTED in root:
        header, body = layout.panel("PARKAN_MSH_panel_states", default_closed=True)
        header.label(text="Controller States")
        if body:
            draw_states(body, root)
    unit = unit_of(root)
    if unit is not None:
        header, body = layout.panel("PARKAN_MSH_panel_unit", default_closed=False)
        header.label(text="Unit Pose")
        if body:
            draw_unit(body, unit)
    header, body = layout.panel("PARKAN_MSH_panel_pose", default_closed=True)
    header.label(text="Game Pose")
    if body:
        shown = ghost_collection(root) is not None
        body.operator(PARKAN_OT_game_pose.bl_idname, text="Hide Game Pose" if shown else "Show Game Pose",
                      icon="HIDE_OFF" if shown else "HIDE_ON", depress=shown)


def draw_slots(layout, context, root) -> None:
    available = available_slots(root)
    if len(available) == 1:
        layout.label(text=iface("Only {} was imported").format(slot_text(next(iter(available)))), translate=False)
        layout.label(text="(import with Geometry: All Slots to switch)")
        return
    shown = shown_slot(context, root)
    grid = layout.grid_flow(row_major=True, columns=S.LODS + 1, even_columns=True, align=True)
    grid.label(text="")
    for lod in range(S.LODS):
        grid.label(text="FP" if lod == S.FIRST_PERSON else f"LOD {lod}")
    for stage in range(S.STAGES):
        grid.label(text="Intact" if stage == 0 else f"{iface('Damage')} {stage}", translate=stage == 0)
        for lod in range(S.LODS):
            position = S.slot_position(stage, lod)
            cell = grid.row()
            cell.enabled = position in available
            cell.operator(PARKAN_OT_show_slot.bl_idname, text="", depress=position == shown,
                          icon="HIDE_OFF" if position == shown else "DOT").position = position


def draw_check(layout, context, root) -> None:
    row = layout.row(align=True)
    row.operator(PARKAN_OT_check_export.bl_idname, icon="FILE_REFRESH")
    row.prop(context.window_manager, LIVE, text="Live")
    check = CHECKS.current(root.name)
    if check is None:
        layout.label(text="Not checked yet")
        return
    if not CHECKS.fresh(root.name):
        layout.label(text="The scene changed since: check again", icon="TIME")
    if not check.lines:
        layout.label(text="Exports as it is", icon="CHECKMARK")
    for line in check_lines(check):
        box = layout.box()
        head = box.row()
        wrapped = textwrap.wrap(report_text(line.message), 48) or [""]  # as the export would report it
        head.label(text=wrapped[0], icon="ERROR" if line.level == "ERROR" else "INFO", translate=False)
        target = next((n for n in line.names if _names_something(root, n)), None)
        if target is not None:
            op = head.operator(PARKAN_OT_select_named.bl_idname, text="", icon="RESTRICT_SELECT_OFF")
            op.name, op.root = target, root.name
        for more in wrapped[1:]:
            box.label(text=more, translate=False)


def draw_states(layout, root) -> None:
    """Each clip's states, their frame pairs and step length (the root's custom properties; the export writes
    an edit into the controller)."""
    try:
        clips = [(str(name), [int(s) for s in states])
                 for name, states in json.loads(str(root[P.STATES_IMPORTED])).get("clips", [])]
    except (ValueError, TypeError, AttributeError):  # edited by hand into another shape: nothing to list
        clips = []
    for name, states in clips:
        layout.label(text=name, icon="ACTION", translate=False)
        for state in states:
            column = layout.column(align=True)
            for field, label in zip(P.STATE_FIELDS, ("A", "B", "ms")):
                prop = P.state_property(state, field)
                if prop in root:
                    column.prop(root, f'["{prop}"]', text=f"{state} {label}", translate=False)
    layout.label(text="0 ms: set by stride/speed")
    layout.operator("object.parkan_update_clips", icon="FILE_REFRESH")


def unit_of(root) -> bpy.types.Collection | None:
    """The unit collection (Import Unit's) holding the model, None for a model imported alone."""
    return next((c for c in bpy.data.collections if P.UNIT in c and root.name in c.all_objects), None)


def draw_unit(layout, unit) -> None:
    """The whole unit posed: the clip every part shows (the chassis's moves the mounted parts), and each
    part's channel sliders under the part's name."""
    labels = unit_clip_labels(unit)
    if labels:
        layout.label(text="Clip of every part:")
        flow = layout.grid_flow(columns=3, even_columns=True, align=True)
        op = flow.operator("object.parkan_unit_clip", text="Timeline", icon="TIME")
        op.clip, op.collection = "", unit.name
        for label in labels:
            op = flow.operator("object.parkan_unit_clip", text=label, translate=False, icon="ACTION")
            op.clip, op.collection = label, unit.name
    else:
        layout.label(text="No part has clips (import the unit with Clips: Actions)")
    for root in unit_parts(unit):
        sliders = [k for k in root.keys() if k.startswith(P.CHANNEL + " ")]  # noqa: SIM118 (an ID is not iterable)
        if not sliders:
            continue
        column = layout.column(align=True)
        column.label(text=part_label(root), icon="OUTLINER_OB_ARMATURE" if root.type == "ARMATURE"
                     else "OUTLINER_OB_EMPTY", translate=False)
        for key in sliders:
            column.prop(root, f'["{bpy.utils.escape_identifier(key)}"]', text=key[len(P.CHANNEL) + 1:],
                        translate=False, slider=True)


def check_lines(check: ExportCheck):
    """Refusals first, then what would change."""
    return sorted(check.lines, key=lambda line: line.level != "ERROR")


def _names_something(root, name: str) -> bool:
    objects = [root, *descendants(root)]
    return any(o.name == name or (o.type == "ARMATURE" and name in o.data.bones)
               or (o.type == "MESH" and any(m is not None and m.name == name for m in o.data.materials))
               for o in objects)


CLASSES = (PARKAN_OT_check_export, PARKAN_OT_select_named, PARKAN_OT_show_slot, PARKAN_OT_game_pose,
           VIEW3D_PT_parkan_model)


def register() -> None:
    registration.register(CLASSES)
    setattr(bpy.types.WindowManager, LIVE, BoolProperty(
        name="Live Export Check", default=True,
        description="Check the export again shortly after every change to the scene"))
    bpy.app.handlers.depsgraph_update_post.append(_on_depsgraph_update)
    bpy.app.handlers.frame_change_post.append(_on_frame_change)
    for handlers in _REPLACED_DATA:
        handlers.append(_on_data_replaced)


def unregister() -> None:
    for handlers in _REPLACED_DATA:
        if _on_data_replaced in handlers:
            handlers.remove(_on_data_replaced)
    check_cache.forget()
    if _on_frame_change in bpy.app.handlers.frame_change_post:
        bpy.app.handlers.frame_change_post.remove(_on_frame_change)
    if _on_depsgraph_update in bpy.app.handlers.depsgraph_update_post:
        bpy.app.handlers.depsgraph_update_post.remove(_on_depsgraph_update)
    if bpy.app.timers.is_registered(_live_check):
        bpy.app.timers.unregister(_live_check)
    _LIVE[0] = None
    delattr(bpy.types.WindowManager, LIVE)
    registration.unregister(CLASSES)
