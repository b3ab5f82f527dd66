"""Maps and missions in the batch's ``convert`` and ``thumbnails`` (issue 31 item 5): a ``Land.msh`` or a
mission's ``data.tma`` is one item, imported as File > Import > Parkan Map imports it (io_msh.imp.map); its
thumbnail is a top-down picture of the ground with a marker on each placed object, coloured by its clan."""

from __future__ import annotations

from pathlib import Path

MISSION_SUFFIX = ".tma"
CLAN_COLOURS = ((0.2, 0.8, 0.2, 1.0), (0.2, 0.5, 1.0, 1.0), (1.0, 0.25, 0.2, 1.0), (1.0, 0.85, 0.2, 1.0),
                (0.8, 0.3, 1.0, 1.0), (0.2, 0.9, 0.9, 1.0))


def is_map_file(path: str | Path) -> bool:
    """A mission (``.tma``) or a terrain mesh (a ``.msh`` whose streams are a Land.msh's)."""
    from ...core.container.nres import Archive
    from ...core.disk import read_input
    from ...core.errors import FormatError
    from ...core.map.landmsh import is_land_mesh

    suffix = Path(path).suffix.lower()
    if suffix == MISSION_SUFFIX:
        return True
    if suffix != ".msh":
        return False
    try:
        return is_land_mesh(Archive.parse(read_input(path), str(path)))
    except (FormatError, OSError):
        return False


def load_map(worker, item) -> None:
    """Import the item's map or mission into the worker's scene; its warnings become the item's."""
    from ...core.errors import FormatError
    from ..com import compat
    from ..imp.map import import_map
    from ..imp.map_plan import plan_map
    from ..imp.plan import ImportOptions

    folder = getattr(worker.args, "game_folder", "")
    node_mode = getattr(worker.args, "node_mode", "ARMATURE")
    options = ImportOptions(node_mode=node_mode, animation="NONE", game_folders=(folder,) if folder else (),
                            name_bytes=compat.node_name_bytes(node_mode))
    try:
        plan = plan_map(item.source, options, folder or None)
    except FormatError as exc:
        raise ValueError(exc.describe(item.source)) from None
    worker.warnings += plan.warnings
    import_map(worker.bpy.context, plan)


def render_map_thumbnail(bpy, target: Path, size: int) -> None:
    """The ground seen from straight above (orthographic, north up), the objects shown as they stand and each
    marked by a disc in its clan's colour (a unit is a few units wide on a map hundreds across)."""
    import numpy as np

    from .pictures import _render

    scene = bpy.context.scene
    bpy.context.view_layer.update()  # the placements' world matrices (a script has evaluated nothing yet)
    ground = next((o for o in scene.objects if o.get("msh_map_level") == 0), None)
    if ground is None:
        raise ValueError("the map has no ground to show")
    corners = np.array([ground.matrix_world @ v.co for v in ground.data.vertices])
    lo, hi = corners.min(axis=0), corners.max(axis=0)
    extent = float(max(hi[0] - lo[0], hi[1] - lo[1], 1e-3))
    materials = {}
    for obj in [o for o in scene.objects if "msh_map_record" in o]:
        clan = next((int(c["msh_map_clan"]) for c in obj.users_collection if "msh_map_clan" in c), -1)
        if clan not in materials:
            material = bpy.data.materials.new(f"clan {clan}")
            material.diffuse_color = CLAN_COLOURS[clan % len(CLAN_COLOURS)] if clan >= 0 else (1, 1, 1, 1)
            materials[clan] = material
        mesh = bpy.data.meshes.new(f"marker {obj.name}")
        ring = [(np.cos(a) * extent / 40, np.sin(a) * extent / 40, 0.0) for a in np.linspace(0, 2 * np.pi, 12,
                                                                                              endpoint=False)]
        mesh.from_pydata(ring, [], [list(range(12))])
        mesh.materials.append(materials[clan])
        marker = bpy.data.objects.new(f"marker {obj.name}", mesh)
        marker.location = (obj.matrix_world.translation.x, obj.matrix_world.translation.y, hi[2] + 1.0)
        scene.collection.objects.link(marker)
    camera = bpy.data.objects.new("map camera", bpy.data.cameras.new("map camera"))
    camera.data.type = "ORTHO"
    camera.data.ortho_scale = extent * 1.02
    camera.data.clip_end = (hi[2] - lo[2]) + extent * 4
    camera.location = ((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, hi[2] + extent * 2)
    scene.collection.objects.link(camera)
    scene.camera = camera
    sun = bpy.data.objects.new("map sun", bpy.data.lights.new("map sun", "SUN"))
    scene.collection.objects.link(sun)
    scene.render.resolution_x = scene.render.resolution_y = size
    scene.render.resolution_percentage = 100
    scene.world = scene.world or bpy.data.worlds.new("thumbnail world")
    scene.world.color = (0.02, 0.02, 0.025)
    scene.display.shading.light = "FLAT"
    scene.display.shading.color_type = "TEXTURE"
    _render(bpy, scene, target)
