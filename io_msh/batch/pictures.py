"""Pictures a batch renders in Blender: a model's thumbnail and the contact sheet of all of them."""

from __future__ import annotations

import os
from pathlib import Path

from .scene import clean_scene

MAX_SIZE = 4096  # --size: a 4096 px thumbnail is 64 MB of pixels; the contact sheet is capped at this width too


def _frame_camera(bpy, scene, points, size: int, distance_factor: float = 3.3):
    """A camera seeing the whole bounding sphere (50 mm lens: half-angle 19.8 degrees) and a sun."""
    import numpy as np
    from mathutils import Vector

    points = np.asarray(points, float)
    center = (points.min(axis=0) + points.max(axis=0)) / 2 if len(points) else np.zeros(3)
    radius = float(np.linalg.norm(points - center, axis=1).max()) if len(points) else 1.0
    radius = max(radius, 1e-3)
    camera = bpy.data.objects.new("thumbnail camera", bpy.data.cameras.new("thumbnail camera"))
    scene.collection.objects.link(camera)
    direction = Vector((-1.0, 1.6, 0.55)).normalized()  # from the front (+y: where the models face), left
    camera.location = Vector(center.tolist()) + direction * radius * distance_factor
    camera.rotation_euler = (-direction).to_track_quat("-Z", "Y").to_euler()
    camera.data.clip_end = radius * 20
    scene.camera = camera
    sun = bpy.data.objects.new("thumbnail sun", bpy.data.lights.new("thumbnail sun", "SUN"))
    scene.collection.objects.link(sun)
    sun.rotation_euler = (0.8, 0.2, 0.6)
    scene.render.resolution_x = scene.render.resolution_y = size
    scene.render.resolution_percentage = 100


def render_still(bpy, scene, target: Path) -> None:
    scene.render.engine = "BLENDER_WORKBENCH"
    scene.render.image_settings.file_format = "PNG"
    scene.render.image_settings.color_mode = "RGB"   # the background is opaque: no alpha to store
    scene.render.image_settings.compression = 90
    scene.render.filepath = str(target)
    bpy.ops.render.render(write_still=True)


def render_thumbnail(bpy, target: Path, size: int) -> None:
    """Render the scene's meshes (Workbench: works headless on the CPU) to a square PNG."""
    import numpy as np

    scene = bpy.context.scene
    depsgraph = bpy.context.evaluated_depsgraph_get()
    points = [np.array(o.matrix_world @ v.co) for o in scene.objects if o.type == "MESH"
              for v in o.evaluated_get(depsgraph).data.vertices]
    if not points:
        raise ValueError("the model has no geometry to show")
    _frame_camera(bpy, scene, points, size)
    scene.world = scene.world or bpy.data.worlds.new("thumbnail world")
    scene.world.color = (0.02, 0.02, 0.025)  # dark, so that grey and textured parts both stand out
    scene.display.shading.light = "STUDIO"
    scene.display.shading.color_type = "TEXTURE"  # the game's textures (untextured parts: material colour)
    render_still(bpy, scene, target)


def save_png(bpy, rgba, target: Path) -> None:
    """RGBA8 pixels (row 0 at the top) as a PNG, through Blender's image writer (no Pillow in Blender)."""
    import numpy as np

    height, width = rgba.shape[:2]
    image = bpy.data.images.new(target.stem, width, height, alpha=True)
    try:
        image.pixels.foreach_set((np.flipud(rgba).astype(np.float32) / 255.0).ravel())
        image.filepath_raw = str(target)
        image.file_format = "PNG"
        image.save()
    finally:
        bpy.data.images.remove(image)


def contact_sheet(pictures: list[tuple[str, str]], target: Path, size: int) -> None:
    """All thumbnails in a grid with their names, rendered as one picture."""
    import math

    import bpy

    from ...core.errors import printable
    from ..com import compat  # here: the run's parent imports this module (MAX_SIZE) and never loads Blender

    clean_scene(bpy)
    if not pictures:
        return
    scene = bpy.context.scene
    font = label_font(bpy)
    columns = max(1, math.ceil(math.sqrt(len(pictures))))
    rows = math.ceil(len(pictures) / columns)
    for n, (path, name) in enumerate(pictures):
        x, y = (n % columns) * 1.1, -(n // columns) * 1.3
        image = bpy.data.images.load(path)
        material = bpy.data.materials.new(f"sheet {n}")
        tree = compat.node_tree(material)  # Material.use_nodes is deprecated in 5.0, gone in 6.0
        texture = tree.nodes.new("ShaderNodeTexImage")
        texture.image = image
        tree.nodes.active = texture
        mesh = bpy.data.meshes.new(f"sheet {n}")
        mesh.from_pydata([(x, y, 0), (x + 1, y, 0), (x + 1, y + 1, 0), (x, y + 1, 0)], [], [(0, 1, 2, 3)])
        mesh.uv_layers.new().data.foreach_set("uv", [0, 0, 1, 0, 1, 1, 0, 1])
        mesh.materials.append(material)
        tile = bpy.data.objects.new(f"sheet {n}", mesh)
        scene.collection.objects.link(tile)
        curve = bpy.data.curves.new(f"label {n}", "FONT")
        curve.font = font or curve.font
        curve.size = 0.09
        curve.align_x = "CENTER"
        label = bpy.data.objects.new(f"label {n}", curve)
        label.location = (x + 0.5, y - 0.12, 0)
        scene.collection.objects.link(label)
        fit_label(bpy, label, printable(Path(name).name))  # FILE or FILE:ENTRY, without the folders
    camera = bpy.data.objects.new("sheet camera", bpy.data.cameras.new("sheet camera"))
    camera.data.type = "ORTHO"
    width, height = columns * 1.1 + 0.1, rows * 1.3 + 0.1
    camera.data.ortho_scale = max(width, height)
    camera.location = (width / 2 - 0.1, -height / 2 + 1.15, 5)
    scene.collection.objects.link(camera)
    scene.camera = camera
    scene.render.resolution_x = min(4096, columns * size)
    scene.render.resolution_y = max(64, int(scene.render.resolution_x * height / width))
    scene.display.shading.light = "FLAT"
    scene.display.shading.color_type = "TEXTURE"
    render_still(bpy, scene, target)
    clean_scene(bpy)


LABEL_FONT = "DejaVuSansMono.woff2"
LABEL_WIDTH = 1.04  # a label's widest, in the sheet's units: a tile is 1 wide, the gap to the next 0.1


def fit_label(bpy, label, text: str) -> None:
    """``text`` as the label's body, its start cut off (after "...") until the text, as drawn, fits its cell:
    measured, since the font's letters are not all equally wide (the built-in font's, Cyrillic)."""
    curve = label.data
    curve.body = text
    if _width(bpy, label) <= LABEL_WIDTH:
        return
    low, high = 0, len(text)  # the most characters of the text's end that fit after "..."
    while low < high:
        keep = (low + high + 1) // 2
        curve.body = "..." + text[len(text) - keep:]
        if _width(bpy, label) <= LABEL_WIDTH:
            low = keep
        else:
            high = keep - 1
    curve.body = "..." + text[len(text) - low:]


def _width(bpy, label) -> float:
    bpy.context.view_layer.update()
    return label.dimensions.x


def label_font(bpy):
    """The font of the contact sheet's labels: DejaVu Sans Mono from Blender's own fonts, which draws Cyrillic
    (the game's names are code page 1251) where the text objects' built-in font fills some letters (н, ы) as
    blocks; None (the built-in font) if this Blender lacks it."""
    folder = bpy.utils.system_resource("DATAFILES", path="fonts")
    path = os.path.join(folder, LABEL_FONT) if folder else ""
    return bpy.data.fonts.load(path, check_existing=True) if path and os.path.isfile(path) else None
