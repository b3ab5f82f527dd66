"""Export driver: read the scene back, decide the model, and write it safely to a model or an archive."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import bpy

from ...core.appearance.mat0 import MAT0_TYPE_ID
from ...core.appearance.texm import TEXM_TYPE_ID
from ...core.appearance.wear import WEAR_ATTRS, WEAR_TYPE_ID, Wear, wear_entry
from ...core.container.nres import MODEL_TYPE_ID, Archive
from ...core.errors import FormatError
from ...core.files import read_container, read_input, write_atomic
from ...core.msh.model import Model
from ..com import props as P
from .materials import MaterialExport
from .plan import ExportOptions, ExportResult, export_model, exported_frames
from .readback import action_end, find_root, keyframe_frames, read_curves, read_scene


def export_to_file(context, path: str, options: ExportOptions, entry: str | None = None,
                   collection: str | None = None) -> ExportResult:
    """Export the chosen model to ``path`` (``.rlb``: into that archive). Nothing is written on failure."""
    root = _root_in_collection(collection) if collection else find_root(context)
    result = _legacy_copy(root)
    if result is None:
        with _object_mode(context):
            curves = read_curves(root)
            frames, range_warnings = exported_frames(options, keyframe_frames(curves), action_end(root),
                                                     context.scene.frame_end)
            read = read_scene(context, root, frames, options.keys == "BLENDER_KEYS", curves)
        result = export_model(read, options)
        result.warnings[:0] = range_warnings
        if read.as_imported and options.frame_range != "ACTION" and len(frames) != result.model.frame_count:
            result.warnings.append(f"the animation is as imported and is written unchanged (frame count "
                                   f"{result.model.frame_count}); the {options.frame_range.lower()} range "
                                   f"0..{int(frames[-1])} is not applied")
    # Every file's bytes are made (and every check done) before the first one is written.
    files = _library_files(result.materials, options)
    wear = result.materials.wear if result.materials else None
    data = result.model.to_bytes()
    if Path(path).suffix.lower() == ".rlb":
        data = _into_archive(path, entry or str(root.get(P.MODEL) or f"{root.name}.msh"), data, wear)
    elif wear is not None:
        files.append((str(Path(path).with_suffix(".wea")), wear.to_bytes()))
    for target, payload in [*files, (path, data)]:
        write_atomic(target, payload, force=options.force)
    return result


@contextmanager
def _object_mode(context):
    """Object Mode while the scene is read: Edit Mode keeps its changes (bones, vertices) out of the data
    until it is left. The mode the user was in is restored afterwards."""
    active = context.view_layer.objects.active
    if active is None or active.mode != "EDIT":
        yield
        return
    bpy.ops.object.mode_set(mode="OBJECT")
    try:
        yield
    finally:
        if context.view_layer.objects.active == active:
            bpy.ops.object.mode_set(mode="EDIT")


def _library_files(materials: MaterialExport | None, options: ExportOptions) -> list[tuple[str, bytes]]:
    """Material.lib and Textures.lib with the new entries added (or replacing entries of the same name)."""
    if materials is None:
        return []
    out = []
    for path, entries in (
            (options.materials.material_library,
             [(name, m.to_bytes(), MAT0_TYPE_ID, {"attr1": m.attr1, "attr2": m.attr2, "attr3": m.attr3})
              for name, m in materials.new_materials]),
            (options.materials.texture_library,
             [(name, t.to_bytes(), TEXM_TYPE_ID, {}) for name, t in materials.new_textures])):
        if path and entries:
            archive = _existing_archive(path)
            for name, payload, type_id, attrs in entries:
                _put(archive, name, payload, type_id, attrs)
            out.append((path, archive.to_bytes()))
    return out


def _existing_archive(path: str) -> Archive:
    """The archive at ``path``, or a new one when the file does not exist; a model is refused."""
    target = Path(path)
    if not target.exists():
        return Archive()
    container = read_container(read_input(target), str(target))
    if container.is_model:
        raise FormatError.single("entry", None, "the target is a model, not an archive", str(target))
    return container.archive


def _put(archive: Archive, name: str, payload: bytes, type_id: int, attrs: dict) -> None:
    """Replace the library entry of that name (with its type and attrs), or add one."""
    existing = archive.find(name)
    if existing is None:
        archive.add(name, payload, type_id, **attrs)
        return
    existing.data, existing.type_id = payload, type_id
    for key, value in attrs.items():
        setattr(existing, key, value)


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
    collection = bpy.data.collections.get(name)
    roots = [o for o in (collection.all_objects if collection else []) if P.MODEL in o]
    if len(roots) != 1:
        raise FormatError.single("scene", None, f"collection {name!r} holds {len(roots)} model roots; it needs one")
    return roots[0]


def _into_archive(path: str, entry: str, model: bytes, wear: Wear | None) -> bytes:
    """The archive at ``path`` with ``entry`` (and its WEAR list) replaced or added."""
    archive = _existing_archive(path)
    existing = archive.find(entry)
    if existing is not None:
        existing.data = model
    else:
        archive.add(entry, model, MODEL_TYPE_ID)
    if wear is not None:
        listed = wear_entry(archive, entry)
        # The archive's only list is this model's only when it is the list the model was imported with.
        if listed is not None and _stem(listed.name_str) != _stem(entry) and bytes(listed.data) != wear.raw:
            listed = None
        if listed is not None:
            listed.data = wear.to_bytes()
        else:
            archive.add(f"{_stem(entry)}.wea", wear.to_bytes(), WEAR_TYPE_ID, **WEAR_ATTRS)
    return archive.to_bytes()


def _stem(name: str) -> str:
    return Path(name).stem.lower()
