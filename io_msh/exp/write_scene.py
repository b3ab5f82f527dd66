"""The Blender side of the one write path (core.write_path): every export reads the scene as the user sees it
and leaves the user where they were.

- Edit Mode keeps its changes (moved vertices, new bones) out of the object's data until it is left: every
  object in Edit Mode has them loaded into its data before anything is read (``Object.update_from_editmode``,
  which keeps the user in Edit Mode).
- The active object and its mode are what they were when the export started, whatever the export switched to
  on the way (Pose Mode to Object Mode to read a pose, say).
"""

from __future__ import annotations

import contextlib

import bpy


def flush_edit_mode(context) -> None:
    """Load every Edit Mode object's edits into its data (the user stays in Edit Mode)."""
    for obj in context.view_layer.objects:
        if obj.mode == "EDIT":
            obj.update_from_editmode()


@contextlib.contextmanager
def as_shown(context):
    """The scene read as the user sees it (``flush_edit_mode``), and the active object and its mode put back
    afterwards, even when the export fails."""
    flush_edit_mode(context)
    layer = context.view_layer
    active = layer.objects.active
    mode = active.mode if active is not None else "OBJECT"
    try:
        yield
    finally:
        _restore(context, active, mode)


def _restore(context, active, mode: str) -> None:
    layer = context.view_layer
    try:
        if active is None or active.name not in layer.objects:
            return
    except ReferenceError:  # removed meanwhile
        return
    if layer.objects.active != active:
        if layer.objects.active is not None and layer.objects.active.mode != "OBJECT":
            with contextlib.suppress(RuntimeError):
                bpy.ops.object.mode_set(mode="OBJECT")
        layer.objects.active = active
    if active.mode != mode:
        with contextlib.suppress(RuntimeError):  # a mode this object cannot enter in this context
            bpy.ops.object.mode_set(mode=mode)
