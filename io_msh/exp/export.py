"""Export driver: read the scene back, decide the model, and write it safely to a model or an archive."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Generator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import bpy

from ...core.appearance.mat0 import MAT0_TYPE_ID
from ...core.appearance.texm import TEXM_TYPE_ID
from ...core.appearance.wear import WEAR_ATTRS, WEAR_TYPE_ID, Wear, wear_entry
from ...core.container.nres import MODEL_TYPE_ID, Archive, Entry
from ...core.disk import ChangedError, FileState, read_with_state
from ...core.errors import FormatError, printable
from ...core.files import read_container
from ...core.msh.model import Model
from ...core.write_path import UNREAD, Target, digest, write, written_here
from ..com import props as P
from ..com.curves import keyframe_frames, read_curves, still_read
from ..com.hierarchy import descendants
from . import entries_written
from .clip_timeline import timeline_as_exported
from .effects import explosion_files, remember_written
from .materials import MaterialExport
from .plan import ExportOptions, ExportResult, export_model, exported_frames
from .poses import exported_action_end
from .readback import completed, find_root, scene_steps
from .scene_model import SceneModel
from .state_edits import ControllerWrite, controller_write

if TYPE_CHECKING:
    from .check_cache import PlanMemo


def export_to_file(context, path: str, options: ExportOptions, entry: str | None = None,
                   collection: str | None = None) -> ExportResult:
    """Export the chosen model to ``path`` (``.rlb``: into that archive). Nothing is written on failure."""
    root, result = plan_export(context, options, collection)
    # Every file's bytes are made (and every check done) before the first one is written; then all are
    # written as one set through the one write path (core.write_path): all of them, or none. Each file is the
    # model's own (the target the user named, the files beside it, the libraries named in the options).
    read_as: dict[str, FileState | None] = {}
    files = _export_files(root, result, path, options, entry, read_as, {})
    written = write([Target(p, data, read=read_as.get(p, UNREAD), owned=True, spliced=True) for p, data in files],
                    force=options.force)
    result.written = written.written
    result.warnings += written.notes
    remember_written(root, files)  # the explosions as written (a record Ctrl+Z keeps)
    if not result.kept_changed:
        root[P.WRITTEN] = digest(result.model.to_bytes())
    if result.placed is not None:
        entries_written.remember(*result.placed, result.model.to_bytes())
    return result


def _export_files(root, result: ExportResult, path: str, options: ExportOptions, entry: str | None,
                  read_as: dict, archives: dict) -> list[tuple[str, bytes]]:
    """The files an export of ``result`` to ``path`` writes (the model or its archive last), made in memory.
    ``archives`` holds the archives already changed in memory (by real path), so that several models can be
    written into one archive; the warnings of a controller write are added to ``result``."""
    states = controller_write(root, result.model)  # edited controller states (None: the .ctl is not touched)
    files = library_files(result.materials, options, read_as, archives)
    files += explosion_files(root, lambda p: existing_archive(p, read_as, archives), skip=path)  # edited .exp fields
    wear = result.materials.wear if result.materials else None
    data = result.model.to_bytes()
    if Path(path).suffix.lower() == ".rlb":
        data = _into_archive(path, _target_entry(root, path, entry), data, wear, read_as, states, archives,
                             lambda now, name: _model_to_write(root, result, now, path, name, read_as, options))
    else:
        if _is_source(root, path) and os.path.isfile(path):
            now, read_as[path] = read_with_state(path)
            data = _model_to_write(root, result, now, path, None, read_as, options)
        if wear is not None:
            files.append((_side_file(path), wear.to_bytes()))
        controller = states.beside(path, read_as) if states is not None else None
        if controller is not None:
            files.append((_side_file(path, controller[0]), controller[1]))
    result.written = [*(p for p, _ in files), path]
    if states is not None:
        result.warnings += states.warnings
    return [*files, (path, data)]


def export_into_sources(context, roots: list, options: ExportOptions) -> tuple[list[tuple[str, bytes]], dict,
                                                                              list[str]]:
    """Every root exported into the file it was imported from (as export_to_file writes it there), made in
    memory as one set of files (several models of one archive written into it together), with the files'
    states as read and the warnings (each after its model's name). Roots that share one entry (a unit's twin
    parts): an edited one is written and an unedited one is not; two different edits are refused."""
    planned = []
    for root in roots:
        source = P.stored_path(root, P.SOURCE_PATH)
        if not source:
            raise FormatError.single("scene", None, f"model {printable(str(root[P.MODEL]))!r} has no "
                                                    "msh_source_path: it was not imported from a file, so there "
                                                    "is no source to write into")
        try:
            with _active(context, root):
                result = model_of(context, root, options)
        except FormatError as exc:
            raise FormatError([f.located(printable(str(root[P.MODEL]))) for f in exc.findings], source) from None
        entry = _target_entry(root, source, None)
        key = (os.path.realpath(source), entry.index if isinstance(entry, ImportedEntry) else entry)
        planned.append((key, root, source, result, _edited(root, result)))
    chosen: dict = {}
    for key, root, source, result, edited in planned:
        if key in chosen and chosen[key][4] and edited and _written_bytes(chosen[key][3]) != _written_bytes(result):
            raise FormatError.single("scene", None, f"models {chosen[key][1].name!r} and {root.name!r} were "
                                                    f"imported from one entry of {printable(source)} and were "
                                                    "edited differently; make the same edit on both", source)
        if key not in chosen or (edited and not chosen[key][4]):
            chosen[key] = (key, root, source, result, edited)
    read_as: dict[str, FileState | None] = {}
    archives: dict[str, tuple[str, Archive]] = {}
    files: dict[str, tuple[str, bytes]] = {}
    warnings: list[str] = []
    for _key, root, source, result, _edited_too in chosen.values():
        for path, data in _export_files(root, result, source, options, None, read_as, archives):
            files[os.path.realpath(path)] = (path, data)
        warnings += [f"{printable(str(root[P.MODEL]))}: {w}" if len(roots) > 1 else w for w in result.warnings]
    for real, (path, archive) in archives.items():  # every model written into it, not only the last
        if real in files:
            files[real] = (path, archive.to_bytes())
    return list(files.values()), read_as, warnings


def _is_source(root, path: str) -> bool:
    source = P.stored_path(root, P.SOURCE_PATH)
    return source is not None and os.path.realpath(str(source)) == os.path.realpath(path)


def _model_to_write(root, result: ExportResult, now: bytes, path: str, entry: str | None, read_as: dict,
                    options: ExportOptions) -> bytes:
    """The model bytes to put in the file it was imported from, which holds ``now`` there: the export's, unless
    something else changed the model there after the import (it holds neither what the import read nor what an
    export of this model wrote: the root's P.WRITTEN, saved with the .blend, or core.write_path's record of this
    process, which Ctrl+Z does not take back). Then a model the scene does not change keeps that change
    (``result.kept_changed``), and an edited one is refused (ChangedError) unless ``options.replace_changed``.
    ``entry``: the archive entry holding it (None: the file is the model)."""
    new = result.model.to_bytes()
    if not _is_source(root, path) or now == new or options.replace_changed:
        if entry:
            result.placed = (path, entry)
        return new
    imported = bytes(root.get(P.SOURCE, b""))
    state = read_as.get(path)
    # What an export wrote there: the root's record, or this process's, of the entry (an archive this process
    # wrote carries other programs' entries as they were) or of the model file
    ours = entries_written.written(path, entry) if entry else [state.sha256] if state is not None and \
        state.sha256 in written_here(path) else []
    if now == imported or digest(now) == root.get(P.WRITTEN) or digest(now) in ours:
        if entry:
            result.placed = (path, entry)
        return new
    where = f"its entry {printable(entry)!r}" if entry else "the model"
    if new == imported:
        result.kept_changed = True
        result.warnings.append(f"{where} changed on disk after the import (another program wrote it) and nothing "
                               "of the scene changes it: that change is kept")
        return now
    raise ChangedError(errno.EAGAIN, f"{where} changed on disk after the import (another program wrote it); "
                                     "nothing was written: import it again, or export with Replace Changed Files "
                                     "to write over that change", path)


def _edited(root, result: ExportResult) -> bool:
    """Whether the export differs from what the model was imported as (its model, WEAR list or states)."""
    if result.model.to_bytes() != bytes(root.get(P.SOURCE, b"")) or controller_write(root, result.model):
        return True
    wear = result.materials.wear if result.materials else None
    return wear is not None and wear.to_bytes() != bytes(root.get(P.WEAR, b""))


def _written_bytes(result: ExportResult) -> tuple[bytes, bytes | None]:
    wear = result.materials.wear if result.materials else None
    return result.model.to_bytes(), wear.to_bytes() if wear is not None else None


@contextmanager
def _active(context, root):
    """``root`` the active object while it is read (the export's Object Mode switch works on the active one)."""
    layer = context.view_layer
    before = layer.objects.active
    if root.name in layer.objects:
        layer.objects.active = root
    try:
        yield
    finally:
        layer.objects.active = before


def model_of(context, root, options: ExportOptions,
             on_read: Callable[[SceneModel], None] | None = None) -> ExportResult:
    """The model a root exports to (in memory); FormatError naming what cannot be written. ``on_read`` sees
    the scene as read back, before it is planned."""
    return plan_read(read_model(context, root, options), options, on_read)


@dataclass
class ModelRead:
    """What ``read_model`` read of the scene: all ``plan_read`` needs, with no Blender data in it."""

    scene: SceneModel
    clip_warnings: list[str]
    curves: list
    end: float
    frame_end: int
    frames: object


def read_model(context, root, options: ExportOptions, curves: list | None = None,
               meshes: dict | None = None) -> ModelRead | ExportResult:
    """The Blender side of ``model_of``: the scene read back (``curves``: the root's ``read_curves``, ``meshes``:
    ``read_mesh`` of its mesh objects, when already read), or the result itself for a legacy model. Must run on
    Blender's main thread."""
    return completed(model_steps(context, root, options, curves, meshes))


def model_steps(context, root, options: ExportOptions, curves: list | None = None, meshes: dict | None = None,
                pause: bool = False) -> Generator[None, None, ModelRead | ExportResult]:
    """``read_model`` as a generator returning its result; with ``pause`` it yields between parts of the scene
    read (readback.scene_steps), for a model with no clips while no object is in Edit Mode (the read changes
    nothing in Blender then). The live check runs a part per step."""
    P.check_root(root)
    result = _legacy_copy(root)
    if result is not None:
        return result
    active = context.view_layer.objects.active
    pause = pause and not root.get(P.CLIPS) and not editing(root) and (active is None or active.mode != "EDIT")
    with _object_mode(context, root), timeline_as_exported(root) as clip_warnings:
        curves = curves if curves is not None and still_read(root, curves) else read_curves(root)
        end = exported_action_end(root, curves, options.frame_range)
        frames, _warnings = exported_frames(options, keyframe_frames(curves), end, context.scene.frame_end)
        read = yield from scene_steps(context, root, frames, options.keys == "BLENDER_KEYS", curves, meshes, pause)
    return ModelRead(read, clip_warnings, curves, end, context.scene.frame_end, frames)


def plan_read(got: ModelRead | ExportResult, options: ExportOptions,
              on_read: Callable[[SceneModel], None] | None = None, memo: PlanMemo | None = None) -> ExportResult:
    """The planning side of ``model_of``, from what ``read_model`` read: plain Python, no Blender data (the
    panel's live check runs it off the main thread). ``memo``: the export check's (io_msh.exp.check_cache)."""
    if isinstance(got, ExportResult):
        return got
    read, curves, end, frames = got.scene, got.curves, got.end, got.frames
    if on_read is not None:
        on_read(read)
    result = export_model(read, options, memo)
    result.warnings[:0] = got.clip_warnings
    # Keyframes outside the range are lost only on the nodes that get new tracks; the others keep theirs.
    edited = set(result.edited_nodes)
    rewritten = curves if len(edited) == len(read.nodes) else [c for c in curves if c.node in edited]
    result.warnings[:0] = exported_frames(options, keyframe_frames(rewritten), end, got.frame_end)[1]
    if read.as_imported and options.frame_range != "ACTION" and len(frames) != result.model.frame_count:
        result.warnings.append(f"the animation is as imported and is written unchanged (frame count "
                               f"{result.model.frame_count}); the {options.frame_range.lower()} range "
                               f"0..{int(frames[-1])} is not applied")
    return result


def plan_export(context, options: ExportOptions, collection: str | None = None,
                on_read: Callable[[SceneModel], None] | None = None) -> tuple[bpy.types.Object, ExportResult]:
    """The model to export and what the export would write, with every check of the scene done, nothing
    written (the export, and the panel's export check). Raises FormatError naming what cannot be exported."""
    root = root_in_collection(collection) if collection else find_root(context)
    return root, model_of(context, root, options, on_read)


def _side_file(path: str, name: str | None = None) -> str:
    """The ``.wea`` (or the file ``name``) beside a model file. A symbolic link there that leads out of the
    model's folder is refused: the export writes only into the folder the artist chose (a link within it is
    written through)."""
    side = Path(name) if name is not None else Path(path).with_suffix(".wea")
    if side.is_symlink():
        real = Path(os.path.realpath(side))
        if real.parent != Path(os.path.realpath(Path(path).parent)):
            raise PermissionError(errno.EPERM, f"a symbolic link to {printable(str(real))}, outside the model's "
                                               "folder; the file is not written through it: remove the "
                                               "link, or export to another folder", str(side))
    return str(side)


def _target_entry(root, path: str, entry: str | None) -> ImportedEntry | str:
    """The archive entry to replace: the one the model was imported from (by its index, while it still holds
    that name: names may differ only in case), else the entry named ``entry`` or after the model."""
    name = entry or str(root.get(P.MODEL) or f"{root.name}.msh")
    index = P.int_property(root, P.ENTRY_INDEX)
    source = P.stored_path(root, P.SOURCE_PATH)
    if entry is None and index is not None and source is not None \
            and os.path.realpath(str(source)) == os.path.realpath(path):
        return ImportedEntry(index, name)
    return name


@dataclass
class ImportedEntry:
    """The archive entry a model was imported from: its index, and the model's name there."""

    index: int
    name: str


@contextmanager
def _object_mode(context, root):
    """Object Mode while the scene is read: Edit Mode keeps its changes (bones, vertices) out of the data
    until it is left. The mode the user was in is restored afterwards. Raises FormatError for an object of the
    model in Edit Mode that leaving the active object's Edit Mode does not take out of it (a script can leave
    one so): its data is not what it shows, and Blender leaves only the active object's mode."""
    active = context.view_layer.objects.active
    left = active is not None and active.mode == "EDIT"
    stuck = [o for o in editing(root) if not left or o.type != active.type]
    if stuck:
        raise FormatError.single("scene", None, f"object {stuck[0].name!r} is in Edit Mode but is not the active "
                                                "object: leave its Edit Mode (or make it active) and try again")
    if not left:
        yield
        return
    bpy.ops.object.mode_set(mode="OBJECT")
    try:
        yield
    finally:
        if context.view_layer.objects.active == active:
            bpy.ops.object.mode_set(mode="EDIT")


def editing(root) -> list:
    """The model's objects in Edit Mode."""
    return [o for o in (root, *descendants(root)) if o.mode == "EDIT"]


def library_files(materials: MaterialExport | None, options: ExportOptions, read_as: dict,
                   archives: dict | None = None) -> list[tuple[str, bytes]]:
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
            archive = existing_archive(path, read_as, archives)
            for name, payload, type_id, attrs in entries:
                _put(archive, name, payload, type_id, attrs)
            out.append((path, archive.to_bytes()))
    return out


def existing_archive(path: str, read_as: dict, archives: dict | None = None) -> Archive:
    """The archive at ``path``, or a new one when the file does not exist; a model is refused. ``read_as``
    records the file's state as read, so that the write can tell whether something else wrote it meanwhile.
    ``archives`` (real path -> (path, archive)): the archives already read, changed in memory, reused."""
    real = os.path.realpath(path)
    if archives is not None and real in archives:
        return archives[real][1]
    archive = _read_archive(path, read_as)
    if archives is not None:
        archives[real] = (path, archive)
    return archive


def _read_archive(path: str, read_as: dict) -> Archive:
    target = Path(path)
    if not target.exists():
        read_as[path] = None
        return Archive()
    data, read_as[path] = read_with_state(target)
    container = read_container(data, str(target))
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
    """A legacy stride-24 model is copied through unchanged (one retail model, MTCHECK.MSH, has it)."""
    source = root.get(P.SOURCE)
    if source is None:
        return None
    model = Model.parse(bytes(source), str(root.get(P.MODEL, "")))
    if not model.is_legacy:
        return None
    return ExportResult(model, ["legacy 24-byte node table: the model is written back unchanged"], [], False)


def root_in_collection(name: str):
    collection = bpy.data.collections.get(name)
    roots = [o for o in (collection.all_objects if collection else []) if P.MODEL in o]
    if len(roots) != 1:
        raise FormatError.single("scene", None, f"collection {name!r} holds {len(roots)} model roots; it needs one")
    return roots[0]


def _into_archive(path: str, entry: ImportedEntry | str, model: bytes, wear: Wear | None, read_as: dict,
                  states: ControllerWrite | None = None, archives: dict | None = None,
                  check: Callable[[bytes, str], bytes] | None = None) -> bytes:
    """The archive at ``path`` with ``entry`` (and its WEAR list, and its controller's edited states) replaced or
    added. ``check`` gives the bytes to put in place of an existing entry's (given them and its name)."""
    archive = existing_archive(path, read_as, archives)
    name = entry.name if isinstance(entry, ImportedEntry) else entry
    existing = entry_named(archive, entry)
    if existing is not None:
        existing.data = model if check is None else check(bytes(existing.data), existing.name_str)
    else:
        existing = archive.add(name, model, MODEL_TYPE_ID)
    # Another model whose name differs only in case (a.msh beside A.msh) has its own list: never take that one.
    twins = [e for e in archive.models() if e is not existing and _stem(e.name_str) == _stem(name)]
    if wear is not None:
        listed = _exact(archive, f"{_base(name)}.wea", WEAR_TYPE_ID) or (None if twins else
                                                                              wear_entry(archive, name))
        # The archive's only list is this model's only when it is the list the model was imported with.
        if listed is not None and _stem(listed.name_str) != _stem(name) and bytes(listed.data) != wear.raw:
            listed = None
        if listed is not None:
            listed.data = wear.to_bytes()
        else:
            archive.add(f"{_base(name) if twins else _stem(name)}.wea", wear.to_bytes(), WEAR_TYPE_ID,
                        **WEAR_ATTRS)
    if states is not None:
        states.into_archive(archive, existing.name_str, path)
    return archive.to_bytes()


def entry_named(archive: Archive, entry: ImportedEntry | str) -> Entry | None:
    """The imported entry (by index, while it holds the model's name exactly), else the entry of exactly that
    name, else the first of that name in any case (the game's lookup)."""
    if isinstance(entry, ImportedEntry):
        if 0 <= entry.index < len(archive) and archive.entries[entry.index].name_str == entry.name \
                and archive.entries[entry.index].is_model:
            return archive.entries[entry.index]
        entry = entry.name
    return _exact(archive, entry, None) or archive.find(entry)


def _exact(archive: Archive, name: str, type_id: int | None) -> Entry | None:
    return next((e for e in archive.entries if e.name_str == name and (type_id is None or e.type_id == type_id)),
                None)


def _base(name: str) -> str:
    """An entry's name without its extension (core.appearance.wear's stem: an entry name is no path, a ``/`` in it
    is a character like any other)."""
    return name.rsplit(".", 1)[0]


def _stem(name: str) -> str:
    return _base(name).lower()
