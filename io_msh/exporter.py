"""Export driver: read the scene back, decide the model, and write it safely to a model or an archive."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..core.errors import FormatError
from ..core.files import read_container, write_atomic
from ..core.model import Model
from ..core.nres import MODEL_TYPE_ID, Archive
from . import props as P
from .export_plan import ExportOptions, ExportResult, export_model
from .readback import find_root, read_scene


def export_to_file(context, path: str, options: ExportOptions, entry: str | None = None,
                   collection: str | None = None) -> ExportResult:
    """Export the chosen model to ``path`` (``.rlb``: into that archive). Nothing is written on failure."""
    root = _root_in_collection(collection) if collection else find_root(context)
    result = _legacy_copy(root)
    if result is None:
        scene = context.scene
        frames = np.arange(scene.frame_start, scene.frame_end + 1, dtype=np.float64)
        if not len(frames):
            raise FormatError.single("scene", None, "the scene's frame range is empty")
        result = export_model(read_scene(context, root, frames, keyframes=options.keys == "BLENDER_KEYS"), options)
    data = result.model.to_bytes()
    if Path(path).suffix.lower() == ".rlb":
        data = _into_archive(path, entry or str(root.get(P.MODEL) or f"{root.name}.msh"), data)
    write_atomic(path, data)
    return result


def _legacy_copy(root) -> ExportResult | None:
    """A legacy stride-24 model is copied through unchanged (digest fact 12)."""
    source = root.get(P.SOURCE)
    if source is None:
        return None
    model = Model.parse(bytes(source), str(root.get(P.MODEL, "")))
    if not model.is_legacy:
        return None
    return ExportResult(model, ["legacy 24-byte node table: the model is written back unchanged"], [], False)


def _root_in_collection(name: str):
    import bpy

    collection = bpy.data.collections.get(name)
    roots = [o for o in (collection.all_objects if collection else []) if P.MODEL in o]
    if len(roots) != 1:
        raise FormatError.single("scene", None, f"collection {name!r} holds {len(roots)} model roots; it needs one")
    return roots[0]


def _into_archive(path: str, entry: str, model: bytes) -> bytes:
    """The archive at ``path`` with ``entry`` replaced (or added); a new archive when the file does not exist."""
    target = Path(path)
    if not target.exists():
        archive = Archive()
    else:
        container = read_container(target.read_bytes(), str(target))
        if container.is_model:
            raise FormatError.single("entry", None, "the target is a model, not an archive", str(target))
        archive = container.archive
    existing = archive.find(entry)
    if existing is not None:
        existing.data = model
    else:
        archive.add(entry, model, MODEL_TYPE_ID)
    return archive.to_bytes()
