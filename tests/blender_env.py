"""Blender (the bpy wheel) for tests: an isolated user folder, the extension loaded as a package.

Importing this module imports bpy. ``BLENDER_USER_RESOURCES`` must point at
a temporary folder before that; every registered class is unregistered
again before the interpreter exits (4.2 crashes, 4.5 hangs otherwise).
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile

USER_RESOURCES = tempfile.mkdtemp(prefix="io_msh_blender_user_")
os.environ["BLENDER_USER_RESOURCES"] = USER_RESOURCES

import bpy  # noqa: E402
from fixtures import load_extension  # noqa: E402

ext = load_extension()
_registered = False


def register() -> None:
    global _registered
    if not _registered:
        ext.register()
        _registered = True


def unregister() -> None:
    global _registered
    if _registered:
        ext.unregister()
        _registered = False


atexit.register(lambda: (unregister(), shutil.rmtree(USER_RESOURCES, ignore_errors=True)))

DATA_KINDS = ("objects", "meshes", "materials", "armatures", "actions", "collections", "images", "lights", "cameras")
SKY_WORLD = "msh_sky_shown"  # on a World a mission's sky import made (io_msh.imp.sky)


def clean_scene() -> None:
    """An empty scene and no datablocks of the kinds an import creates."""
    if bpy.context.view_layer.objects.active is not None and bpy.context.object and bpy.context.object.mode != "OBJECT":
        bpy.ops.object.mode_set(mode="OBJECT")
    for kind in DATA_KINDS:  # one batch per kind: removing one by one is quadratic (a unit of 1,000 parts)
        bpy.data.batch_remove(list(getattr(bpy.data, kind)))
    bpy.data.batch_remove([world for world in bpy.data.worlds if SKY_WORLD in world])
    scene = bpy.context.scene
    if scene.world is None:
        scene.world = bpy.data.worlds.get("World") or bpy.data.worlds.new("World")
    scene.frame_start, scene.frame_end = 1, 250
    scene.timeline_markers.clear()
    scene.frame_set(1)


def datablock_counts() -> dict[str, int]:
    return {kind: len(getattr(bpy.data, kind)) for kind in DATA_KINDS}


def evaluated_frame(frame: float) -> None:
    scene = bpy.context.scene
    scene.frame_set(int(frame), subframe=float(frame) - int(frame))
    bpy.context.view_layer.update()


def exit_without_teardown(code: int) -> None:
    """End the process with ``code``: the exit handlers first (the extension unregistered, the user folder
    removed), then no Blender teardown, which only frees memory and in which the 4.2 wheel crashes once its glTF
    exporter or a library append has run in the process."""
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
