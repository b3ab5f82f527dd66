"""What the model's and the unit's import and export dialogs share: each option once, with its tooltip (a
function per option, so that each operator class gets a property of its own), the collapsible panels the
options are drawn in (``layout.panel``, as glTF-Blender-IO draws its options), and the export's options read
from a dialog's properties."""

from __future__ import annotations

import math
import os

from bpy.props import BoolProperty, CollectionProperty, EnumProperty, FloatProperty, IntProperty, StringProperty
from bpy.types import OperatorFileListElement

from ...core.animation.keys import Tolerance
from ...core.msh import streams as S
from ..exp.materials import MaterialOptions
from ..exp.plan import ExportOptions
from ..imp.plan import BLENDER_LAST_FRAME

# ------------------------------------------------------------------ import


def node_mode(description: str = "What each node of the model becomes in Blender",
              armature: str = "One armature per model, a bone per node"):
    return EnumProperty(
        name="Nodes", default="ARMATURE", description=description,
        items=(("ARMATURE", "Armature", armature),
               ("EMPTIES", "Empties", "An Empty per node, parented as the nodes are")))


def animation():
    return EnumProperty(
        name="Animation", default="FAITHFUL", description="How the nodes' animation is keyed",
        items=(("FAITHFUL", "Faithful", "At every integer frame, exactly the pose the game computes"),
               ("EDITING", "For Editing", "The game's pose at every integer frame within the export's tolerance "
                                          "(0.1 mm, 0.05 degree): few keys, easy to edit"),
               ("KEYS", "Keys", "One keyframe per MSH key, for editing sparse tracks"),
               ("NONE", "None", "No animation: the rest pose")))


def slots():
    return EnumProperty(
        name="Geometry", default="CHOSEN", description="Which damage stages and LODs are imported",
        items=(("CHOSEN", "Stage and LOD", "The geometry of the chosen damage stage and LOD"),
               ("ALL", "All Slots", "Every stage and LOD: the chosen one visible, each other one in its own "
                                    "hidden collection")))


def stage():
    return IntProperty(name="Damage Stage", default=0, min=0, max=S.STAGES - 1,
                       description="The damage stage shown (with All Slots: the one visible): 0 intact; 1 and 2 "
                                   "damaged, with pieces gone")


def lod():
    """The LOD as the enum scripts set: '0' to '3' the distance levels, '4' the First-Person shell."""
    return EnumProperty(
        name="LOD", default="0", description="The level of detail shown (with All Slots: the one visible)",
        items=(*((str(i), f"LOD {i}", f"Distance level {i}" + (" (the closest)" if i == 0 else ""))
                 for i in range(S.FIRST_PERSON)),
               (str(S.FIRST_PERSON), "First-Person", "The cockpit shell seen from inside")))


def set_frame_range():
    return BoolProperty(name="Set Frame Range", default=True,
                        description="Set the scene's frame range to the animation's 0 .. frame_count - 1, and go "
                                    "to frame 0")


def global_scale(description: str = "Scale of the model's root (1: one MSH unit is one metre)"):
    return FloatProperty(name="Scale", default=1.0, min=1e-6, max=1e6, soft_min=0.001, soft_max=1000.0,
                         description=description)


def clips():
    return EnumProperty(
        name="Clips", default="NONE",
        description="With a controller beside the model (STEM.ctl) or in the archive (CTLD): an action per clip "
                    "the game plays, named '<model>|<motion> <index>', and a 0..1 slider per channel",
        items=(("NONE", "None", "Only the model's whole timeline"),
               ("ACTIONS", "Actions", "An action per clip, kept in the file; the timeline stays assigned"),
               ("NLA", "NLA Strips", "An action per clip, each also on a muted NLA track of its own")))


def root_motion():
    return EnumProperty(
        name="Root Motion", default="IN_PLACE", description="How the clips move the body (with Clips)",
        items=(("IN_PLACE", "In Place", "As the game draws it: node 0's translation cleared"),
               ("MOVING", "Moving", "The body moved by the clip's stride at the clip's speed")))


def frame_rate():
    return FloatProperty(name="Frame Rate", default=24.0, min=0.01, max=1000.0,
                         description="Blender frames per second of game time: the controller's steps and the "
                                     "materials' animation")


IMPORT_PANELS = (("Nodes", ("node_mode",)), ("Animation", ("animation", "set_frame_range")),
                 ("Clips", ("clips", "root_motion", "frame_rate")), ("Geometry", ("slots", "stage", "lod")),
                 ("Materials", ("game_folder",)), ("Transform", ("global_scale", "axis_forward", "axis_up")))

# ------------------------------------------------------------------ export


def keys():
    """The keys edited nodes get, as scripts set them: 'REDUCED', 'EVERY_FRAME' or 'BLENDER_KEYS'."""
    return EnumProperty(
        name="Keys", default="REDUCED", description="Which keys edited nodes get",
        items=(("REDUCED", "Reduced", "The fewest keys that reproduce every frame within the tolerance"),
               ("EVERY_FRAME", "Every Frame", "One key per frame of the scene's range"),
               ("BLENDER_KEYS", "Blender Keyframes", "Keys exactly at the Blender keyframes (integer frames)")))


# A length (Blender units: metres at the scene's unit scale 1) and an angle (radians, shown in the scene's
# rotation unit); the export's Tolerance takes metres and degrees.
def position_tolerance():
    return FloatProperty(name="Position Tolerance", default=Tolerance.position, min=0.0, precision=6,
                         subtype="DISTANCE", unit="LENGTH", description="Largest position error of reduced keys")


def rotation_tolerance():
    return FloatProperty(name="Rotation Tolerance", default=math.radians(Tolerance.rotation_deg), min=0.0,
                         max=math.pi, precision=4, subtype="ANGLE", unit="ROTATION",
                         description="Largest rotation error of reduced keys")


def frame_range():
    return EnumProperty(
        name="Frame Range", default="ACTION",
        description="Which frames are exported. They always start at frame 0, the game's time 0 "
                    "(Blender frame f is MSH time f)",
        items=(("ACTION", "Action", "Up to the end of the model's action (its manual frame range, which an "
                                    "import sets, else its last keyframe)"),
               ("SCENE", "Scene", "Up to the scene's end frame"),
               ("CUSTOM", "Custom", "Up to the End Frame below")))


def end_frame():
    return IntProperty(name="End Frame", default=100, min=0, max=BLENDER_LAST_FRAME,
                       description="Last exported frame (Custom range), at most Blender's last frame "
                                   f"{BLENDER_LAST_FRAME:,}")


def force(description: str = "Write over a target (or library) whose file is read-only"):
    return BoolProperty(name="Replace Read-Only Files", default=False, description=description)


def replace_changed(description: str = "Write over a file that another program changed after the import (its "
                                       "change is lost)"):
    return BoolProperty(name="Replace Changed Files", default=False, description=description)


KEY_PANELS = (("Keys", ("keys", "position_tolerance", "rotation_tolerance")),
              ("Frame Range", ("frame_range", "end_frame")))


def export_enabled(operator, name: str) -> bool:
    """Whether an export option applies to the choices made (the others are drawn greyed out)."""
    if name in ("position_tolerance", "rotation_tolerance"):
        return operator.keys == "REDUCED"
    return name != "end_frame" or operator.frame_range == "CUSTOM"


def export_options(props) -> ExportOptions:
    """The export's options from a dialog's properties (the operator, or its last-used properties); the
    tolerance in the export's units, metres and degrees. A dialog without material libraries (the unit's) adds
    no materials to any."""
    libraries = (MaterialOptions(props.material_library, props.texture_library, int(props.texture_format))
                 if hasattr(props, "material_library") else MaterialOptions())
    return ExportOptions(props.keys, Tolerance(props.position_tolerance, math.degrees(props.rotation_tolerance)),
                         materials=libraries, force=props.force, frame_range=props.frame_range,
                         end_frame=props.end_frame, replace_changed=getattr(props, "replace_changed", False))


# ------------------------------------------------------------------ files


def files():
    """The files chosen in the file browser (or dropped), when several are: with ``directory()``, an importer
    takes them all, as the model importer does."""
    return CollectionProperty(type=OperatorFileListElement, options={"HIDDEN", "SKIP_SAVE"})


def directory():
    return StringProperty(subtype="DIR_PATH", options={"HIDDEN", "SKIP_SAVE"})


def chosen_paths(operator) -> list[str]:
    """The files an importer imports: each of ``files`` in ``directory``, else its ``filepath``."""
    if operator.files and operator.directory:
        return [os.path.join(operator.directory, f.name) for f in operator.files if f.name]
    return [operator.filepath] if operator.filepath else []


# ------------------------------------------------------------------ drawing


def describe_axes(cls):
    """orientation_helper's axis options carry no tooltip: give them one (before the class is registered)."""
    for name, text in (("axis_forward", "The Blender axis the model's forward (MSH +Y) points along"),
                       ("axis_up", "The Blender axis the model's up (MSH +Z) points along")):
        cls.__annotations__[name].keywords["description"] = text
    return cls


def game_folder(description: str):
    return StringProperty(name="Game Folder", subtype="DIR_PATH", default="", description=description)


def draw_panels(operator, prefix: str, panels) -> None:
    """The operator's options in collapsible panels (title, option names), each named ``prefix_title``."""
    layout = operator.layout
    layout.use_property_split = True
    layout.use_property_decorate = False
    for title, names in panels:
        draw_panel(layout, f"{prefix}_{title.lower().replace(' ', '_')}", title, operator, names)


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
