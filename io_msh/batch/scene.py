"""The worker's scene between items."""

from __future__ import annotations


def clean_scene(bpy) -> None:
    """Remove every datablock an item may have made, keeping the registered classes."""
    active = bpy.context.view_layer.objects.active if bpy.context.view_layer else None
    if active is not None and active.mode != "OBJECT":
        bpy.ops.object.mode_set(mode="OBJECT")
    blocks = [block for kind in ("objects", "meshes", "materials", "armatures", "actions", "collections", "cameras",
                                 "lights", "images", "curves", "fonts") for block in getattr(bpy.data, kind)]
    bpy.data.batch_remove(blocks + [world for world in bpy.data.worlds if world.users == 0])  # one pass: half the time
