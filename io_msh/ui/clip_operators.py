"""Object > Parkan: Write Clip to Timeline: an edited clip's keys into the model's timeline
(io_msh.exp.clip_timeline), so that the export writes them; Update Clips: the clip actions made again from the
edited controller states (io_msh.exp.clip_update)."""

from __future__ import annotations

import bpy
from bpy.props import StringProperty

from ...core.errors import FormatError
from ..com import props as P
from ..exp.clip_timeline import TimelineError, write_clip_to_timeline
from ..exp.clip_update import update_clips
from ..imp.clip_actions import assignment, clip_name, model_holders
from .translations import report


def _model_root(context):
    obj = context.active_object
    while obj is not None and P.MODEL not in obj:
        obj = obj.parent
    return obj


class OBJECT_OT_parkan_clip_to_timeline(bpy.types.Operator):
    """Write the keys of the nodes edited in a clip into the model's timeline, at the frames the clip plays"""

    bl_idname = "object.parkan_clip_to_timeline"
    bl_label = "Write Clip to Timeline"
    bl_options = {"REGISTER", "UNDO"}

    clip: StringProperty(name="Clip", default="",
                         description="The clip's action name (empty: the clip action assigned to the model)")

    @classmethod
    def poll(cls, context):
        root = _model_root(context)
        return root is not None and P.CLIP_STEPS in root

    def execute(self, context):
        root = _model_root(context)
        try:
            names = P.text_list_property(root, P.CLIPS)
        except FormatError as exc:
            report(self, "ERROR", exc.describe())
            return {"CANCELLED"}
        clip = self.clip or self._assigned_clip(root, names)
        if clip not in names:  # a clip action's name now (it may have been renamed)
            clip = clip_name(bpy.data.actions.get(clip), names) or clip
        if not clip:
            report(self, "ERROR", "Name the clip (or assign a clip's action to the model)")
            return {"CANCELLED"}
        try:
            written, warnings = write_clip_to_timeline(root, clip, rebase=True)
        except TimelineError as exc:
            report(self, "ERROR", str(exc))
            return {"CANCELLED"}
        for line in warnings:
            report(self, "WARNING", line)
        report(self, "INFO", f"{clip}: {len(written)} edited node(s) written into the timeline")
        return {"FINISHED"}

    @staticmethod
    def _assigned_clip(root, names: list[str]) -> str:
        """The clip whose action the model shows (on the armature, or on any of its Empties)."""
        shown = (clip_name(assignment(h)[0], names) for h in model_holders(root))
        return next((name for name in shown if name), "")


class OBJECT_OT_parkan_update_clips(bpy.types.Operator):
    bl_idname = "object.parkan_update_clips"
    bl_label = "Update Clips"
    bl_description = ("Make the model's clip actions again from its controller states' frames and step lengths as "
                      "edited (its msh_state custom properties), to see the new timing before the export writes "
                      "them")
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        root = _model_root(context)
        return root is not None and P.STATES_IMPORTED in root and P.CLIPS in root

    def execute(self, context):
        root = _model_root(context)
        try:
            count, warnings = update_clips(context, root)
        except FormatError as exc:
            report(self, "ERROR", exc.describe(str(root.get(P.MODEL, root.name))))
            return {"CANCELLED"}
        for line in warnings:
            report(self, "WARNING", line)
        report(self, "INFO", f"{root.name}: {count} clip(s) made again from the state values")
        return {"FINISHED"}


class VIEW3D_MT_parkan_object(bpy.types.Menu):
    bl_idname = "VIEW3D_MT_parkan_object"
    bl_label = "Parkan"

    def draw(self, context):
        self.layout.operator(OBJECT_OT_parkan_clip_to_timeline.bl_idname)
        self.layout.operator(OBJECT_OT_parkan_update_clips.bl_idname)


def menu_object(self, context):
    """Object > Parkan."""
    self.layout.menu(VIEW3D_MT_parkan_object.bl_idname)


CLASSES = (OBJECT_OT_parkan_clip_to_timeline, OBJECT_OT_parkan_update_clips, VIEW3D_MT_parkan_object)
