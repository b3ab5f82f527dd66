"""Maps and missions in the batch's ``convert`` and ``thumbnails``: a ``Land.msh`` or a
mission's ``data.tma`` is one item, imported as File > Import > Parkan Map imports it (io_msh.imp.map); its
thumbnail is the ground seen from above with each placed object drawn enlarged on a disc coloured by its clan."""

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


OBJECT_SHARE = 8  # in the thumbnail the largest placed object is shown 1/8 of the map across
TILT = 0.5        # radians the map camera leans back from straight down, so that objects show their sides


def _size_of(collection) -> float:
    """The widest extent of a kind's surfaces (world space, as imported), 0 when it has none; meshes of edges
    only (a building's hall way and ground plan) draw nothing and count for nothing."""
    import numpy as np
    from mathutils import Vector

    corners = [np.array(o.matrix_world @ Vector(c)) for o in collection.all_objects
               if o.type == "MESH" and len(o.data.polygons) for c in o.bound_box] if collection is not None else []
    return float(np.ptp(np.array(corners), axis=0).max()) if corners else 0.0


def render_map_thumbnail(bpy, target: Path, size: int) -> None:
    """The ground seen from above (orthographic, north up, leaning back by TILT), each placed object shown as it
    stands but enlarged (a unit is a few units wide on a map hundreds across: the largest kind is drawn
    1/OBJECT_SHARE of the map across) on a disc in its clan's colour. What the picture adds is removed after."""
    import numpy as np
    from mathutils import Matrix, Vector

    from .pictures import render_still

    scene = bpy.context.scene
    bpy.context.view_layer.update()  # the placements' world matrices (a script has evaluated nothing yet)
    ground = next((o for o in scene.objects if o.get("msh_map_level") == 0), None)
    if ground is None:
        raise ValueError("the map has no ground to show")
    corners = np.array([ground.matrix_world @ v.co for v in ground.data.vertices])
    lo, hi = corners.min(axis=0), corners.max(axis=0)
    extent = float(max(hi[0] - lo[0], hi[1] - lo[1], 1e-3))
    placed = [o for o in scene.objects if "msh_map_record" in o]
    sizes = {o.instance_collection.name: _size_of(o.instance_collection) for o in placed if o.instance_collection}
    largest = max(sizes.values(), default=0.0)
    enlarge = extent / OBJECT_SHARE / largest if largest > 0 else 1.0
    added, materials = [], {}
    for obj in placed:
        clan = next((int(c["msh_map_clan"]) for c in obj.users_collection if "msh_map_clan" in c), -1)
        if clan not in materials:
            material = bpy.data.materials.new(f"clan {clan}")
            material.diffuse_color = CLAN_COLOURS[clan % len(CLAN_COLOURS)] if clan >= 0 else (1, 1, 1, 1)
            materials[clan] = material
        where = obj.matrix_world.translation
        shown = obj.instance_collection
        radius = max(sizes.get(shown.name, 0.0) * enlarge * 0.55, extent / 40) if shown else extent / 40
        mesh = bpy.data.meshes.new(f"marker {obj.name}")
        ring = [(np.cos(a) * radius, np.sin(a) * radius, 0.0) for a in np.linspace(0, 2 * np.pi, 24, endpoint=False)]
        mesh.from_pydata(ring, [], [list(range(24))])
        mesh.materials.append(materials[clan])
        marker = bpy.data.objects.new(f"marker {obj.name}", mesh)
        marker.location = (where.x, where.y, where.z + extent / 200)
        added.append(marker)
        if shown is not None:  # the object itself, enlarged: an instance of its kind's collection
            model = bpy.data.objects.new(f"enlarged {obj.name}", None)
            model.instance_type, model.instance_collection = "COLLECTION", shown
            model.matrix_world = Matrix.Translation(where) @ Matrix.Scale(enlarge, 4) @ \
                Matrix.Translation(-where) @ obj.matrix_world
            added.append(model)
    for made in added:
        scene.collection.objects.link(made)
    camera = bpy.data.objects.new("map camera", bpy.data.cameras.new("map camera"))
    camera.data.type = "ORTHO"
    camera.data.ortho_scale = extent * 0.9
    camera.data.clip_end = (hi[2] - lo[2]) + extent * 6
    centre = Vector(((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2))
    camera.rotation_euler = (TILT, 0.0, 0.0)
    camera.location = centre + Vector((0.0, -np.sin(TILT), np.cos(TILT))) * extent * 2
    scene.collection.objects.link(camera)
    shown_camera, scene.camera = scene.camera, camera
    sun = bpy.data.objects.new("map sun", bpy.data.lights.new("map sun", "SUN"))
    scene.collection.objects.link(sun)
    added += [camera, sun]
    scene.render.resolution_x = scene.render.resolution_y = size
    scene.render.resolution_percentage = 100
    scene.world = scene.world or bpy.data.worlds.new("thumbnail world")
    background, scene.world.color = tuple(scene.world.color), (0.02, 0.02, 0.025)
    scene.display.shading.light = "STUDIO"   # the relief shaded
    scene.display.shading.color_type = "TEXTURE"
    try:
        render_still(bpy, scene, target)
    finally:
        scene.camera, scene.world.color = shown_camera, background
        for made in added:
            data, kind = made.data, made.type
            bpy.data.objects.remove(made)
            if data is not None:
                getattr(bpy.data, {"MESH": "meshes", "CAMERA": "cameras", "LIGHT": "lights"}[kind]).remove(data)
