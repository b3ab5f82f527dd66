"""The work of ``batch library`` in a Blender worker: an asset made of one model or unit (its collection marked as
an asset, with its rendered preview, description, tags and catalogue), the old library's index, and the library
put together from the assets."""

from __future__ import annotations

import json
from pathlib import Path

from .items import Item
from .library_plan import VERSION, catalog_uuid
from .pictures import render_thumbnail

KEY = "msh_asset_key"                  # on an asset's collection: where it comes from (library_plan.AssetMeta.key)
FINGERPRINT = "msh_asset_fingerprint"  # on an asset's collection: the fingerprint of its sources
CATALOG = "msh_asset_catalog"          # on an asset's collection: its catalogue's path
ACTIONS = "msh_asset_actions"          # on an asset's collection: the clip actions (no object uses them: only
                                       # their fake user keeps them, and appending a collection follows pointers)
LIBRARY = "msh_asset_library"          # on the library's scene: the file is a library batch library wrote (the
                                       # version of what its assets hold); any other .blend is the user's


def build_asset(worker, item: Item) -> list[tuple[str, str]]:
    """The item's preview: the model with its clips (or the unit assembled) imported as its asset will be, and
    rendered at the middle of its frame range. The asset itself is made by ``merge``, in the library file: the
    workers render the pictures in parallel, and one file imports every asset once (appending the assets'
    files instead cost the materials appended times those already in the file, the square of the library)."""
    _import_asset(worker, item, json.loads(item.meta))
    # A part without a controller has no clips: expected in a library, not worth a warning per model.
    worker.warnings = [w for w in worker.warnings if "no clips were made" not in w]
    with worker.writing("0.png", item.output):
        render_thumbnail(worker.bpy, Path(worker.staged("0.png")), worker.args.size)
    return [("0.png", item.output)]


def _import_asset(worker, item: Item, meta: dict):
    """Import the item into a collection of its own, shown in the scene (which holds nothing else), the scene
    at the middle of its frame range; the collection."""
    bpy = worker.bpy
    layers = bpy.context.view_layer.layer_collection
    if meta["kind"] == "unit":
        before = set(bpy.data.collections)
        bpy.context.view_layer.active_layer_collection = layers
        worker.load(item, clips="ACTIONS")
        collection = next(c for c in bpy.data.collections if "msh_unit" in c and c not in before)  # props.UNIT
    else:
        collection = bpy.data.collections.new(meta["name"])
        bpy.context.scene.collection.children.link(collection)
        bpy.context.view_layer.active_layer_collection = layers.children[collection.name]
        worker.load(item, clips="ACTIONS")
    scene = bpy.context.scene
    scene.frame_set((scene.frame_start + scene.frame_end) // 2)
    return collection


def _make_asset(worker, item: Item, preview: str):
    """The item imported into the library file as an asset (its collection marked, with its preview,
    description, tags, catalogue, clip actions and where it comes from), then taken out of the scene."""
    bpy = worker.bpy
    meta = json.loads(item.meta)
    actions = set(bpy.data.actions)
    collection = _import_asset(worker, item, meta)
    clips = sorted({str(name).rsplit("|", 1)[-1].split(" ")[0] for obj in collection.all_objects
                    for name in obj.get("msh_clips", ())})
    _keep_hidden(bpy.context.view_layer.layer_collection, collection)
    collection.asset_mark()
    data = collection.asset_data
    data.description = meta["description"]
    for tag in [*meta["tags"], *(["clips", *clips] if clips else [])]:
        data.tags.new(tag, skip_if_exists=True)
    data.catalog_id = catalog_uuid(meta["catalog"])
    load_preview(bpy, collection, preview)
    kept = [action for action in bpy.data.actions if action.use_fake_user and action not in actions]
    if kept:
        collection[ACTIONS] = {str(n): action for n, action in enumerate(kept)}
    collection[KEY] = meta["key"]
    collection[FINGERPRINT] = meta["fingerprint"]
    collection[CATALOG] = meta["catalog"]
    collection.use_fake_user = True  # no scene uses an asset: the fake user keeps it in the file
    bpy.context.scene.collection.children.unlink(collection)
    return collection


def _keep_hidden(layer, collection) -> None:
    """A sub-collection the import hides in the view layer (a unit's internal parts) hidden in the collection
    itself: a scene the asset is dragged into has a view layer of its own."""
    stack = [layer]
    while stack:
        layer = stack.pop()
        if layer.hide_viewport and layer.collection in collection.children_recursive:
            layer.collection.hide_viewport = True
        stack.extend(layer.children)


def load_preview(bpy, block, path: str) -> None:
    """A picture file as the data-block's asset preview (Blender's own operator: it works headless)."""
    with bpy.context.temp_override(id=block):
        bpy.ops.ed.lib_id_load_custom_preview(filepath=path)


def read_index(worker, item: Item) -> list[tuple[str, str]]:
    """The assets of the library ``item.source``: key -> its collection's name, fingerprint and catalogue, as
    JSON. (The file is opened: a tenth of the time that linking its collections takes.)"""
    bpy = worker.bpy
    bpy.ops.wm.open_mainfile(filepath=worker.blender_path(item.source), load_ui=False)
    index = {str(c[KEY]): {"name": c.name, "fingerprint": str(c[FINGERPRINT]), "catalog": str(c[CATALOG])}
             for c in bpy.data.collections if KEY in c and c.asset_data is not None}
    # Ours: marked so, or (written before the mark) holding assets of ours. A file of materials, node groups or
    # texts alone is the user's as much as one of objects.
    ours = any(LIBRARY in scene for scene in bpy.data.scenes) or bool(index)
    Path(worker.staged("0.json")).write_text(json.dumps({"assets": index, "ours": ours}), encoding="utf-8")
    empty_file(worker)
    return [("0.json", item.output)]


def merge(worker, item: Item) -> list[tuple[str, str]]:
    """The library: the old one opened, its changed and gone assets removed, and the new ones imported into it
    one by one (``_make_asset``, each with the preview a worker rendered; each one's end is told to the run:
    io_msh.batch.pool); the parent then completes the catalogue file beside it (io_msh.batch.library). Importing
    costs the same for the first asset and the thousandth (appending their files cost in proportion to the
    materials already in the file). The worker is left with an empty file: the next item starts from nothing."""
    bpy = worker.bpy
    job = json.loads(item.meta)
    keep = set(job["keep"])
    if keep:
        bpy.ops.wm.open_mainfile(filepath=worker.blender_path(job["old"]), load_ui=False)
        _remove_assets(bpy, [c for c in bpy.data.collections if KEY in c and c.name not in keep])
    else:
        empty_file(worker)
    scene = bpy.context.scene
    for collection in list(scene.collection.children):  # a scene holds no asset: each is imported alone in it
        scene.collection.children.unlink(collection)
    made = []
    for n, new in enumerate(job["new"]):
        asset = Item(**new["item"])
        made.append(_make_asset(worker, asset, worker.blender_path(new["preview"])))
        worker.tell(f"{n + 1}/{len(job['new'])} {asset.label}")
    worker.warnings = []  # each asset's were reported when its preview was made
    assets = [c for c in bpy.data.collections if KEY in c and c.asset_data is not None]
    if sorted(c.name for c in assets if c not in made) != sorted(keep) or len(made) != len(job["new"]):
        raise ValueError("the library's assets could not all be read back")
    for collection in assets:
        collection.use_fake_user = True
    scene[LIBRARY] = VERSION
    with worker.writing("0.blend", item.output):
        bpy.ops.wm.save_as_mainfile(filepath=worker.staged("0.blend"), copy=True)
    empty_file(worker)
    return [("0.blend", item.output)]


def empty_file(worker) -> None:
    """The worker's Blender on an empty file (after a library was opened or put together: the next item starts
    from nothing of it, and its memory is given back)."""
    bpy = worker.bpy
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.context.preferences.filepaths.save_version = 0  # as the worker set it (no .blend1 backups)


def _remove_assets(bpy, collections: list) -> None:
    """Asset collections with everything in them, their clip actions, and what only they used."""
    blocks = set()
    for collection in collections:
        blocks |= {collection, *collection.children_recursive, *collection.all_objects,
                   *(action for action in collection.get(ACTIONS, {}).values() if action is not None)}
    bpy.data.batch_remove(list(blocks))
    bpy.data.orphans_purge(do_local_ids=True, do_linked_ids=True, do_recursive=True)
