"""Export of a unit imported with Import Unit (io_msh.imp.unit): every part whose model changed is written
into the archive it came from (as the model export writes it), and the ``.dat`` tree is written back, with
``attach`` rewritten for a part moved to another socket of its parent (its mount Empty's Child Of now aims at
another bone or Empty) and that parent's children in the game's order (core.unit.edit). Everything is
checked and made in memory first, then written as one transaction: all files, or none.

Whether a part is written is judged against what its archive entry holds now and what the export last knew
it to hold (the import's bytes, or the digest of the last bytes Export Unit wrote there, P.WRITTEN): an edit
is written, an edit taken back is written back, an unedited part never overwrites its entry (another tool's
change, or a twin part's edit, is kept), and an edited part whose entry changed under it is refused."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field

import bpy

from ...core.cli.unit import game_folder, locate
from ...core.container.nres import Archive, Entry
from ...core.disk import FileState, read_input, write_files
from ...core.errors import FormatError, printable
from ...core.msh.model import Model
from ...core.unit.dat import UnitTree, parse_dat, tree_parents
from ...core.unit.edit import with_attach
from ...core.unit.resolve import GUN, TURRET
from ..com import props as P
from ..imp.unit import ATTACH, COMPONENT, DISPLAY, EXTERNAL, MOUNT, PARTS, RECORD, UNIT, node_handles
from .export import _entry_named, _existing_archive, _ImportedEntry, model_of
from .plan import ExportOptions
from .state_edits import ControllerWrite, controller_write


@dataclass
class UnitExportResult:
    parts_written: list[int] = field(default_factory=list)   # components whose model changed
    moved: dict[int, int] = field(default_factory=dict)      # component (as read) -> new socket node
    warnings: list[str] = field(default_factory=list)


def unit_collection(context, name: str | None = None) -> bpy.types.Collection:
    """The unit's collection: named, else the one holding the active object, else the scene's only one."""
    units = [c for c in bpy.data.collections if UNIT in c]
    if name:
        found = [c for c in units if c.name == name]
    else:
        active = context.view_layer.objects.active
        found = [c for c in units if active is not None and active.name in c.all_objects] or units
    if len(found) != 1:
        raise FormatError.single("scene", None, "no unit to export: import one with File > Import > Parkan Unit"
                                 if not found else f"{len(found)} units in the scene: select an object of the one "
                                                   "to export")
    return found[0]


def export_unit(context, dat_path: str, options: ExportOptions, collection: str | None = None) -> UnitExportResult:
    unit = unit_collection(context, collection)
    source = P.stored_path(unit, UNIT)
    tree = _source_tree(source)
    roots = _part_roots(unit, tree, source)
    _check_target(dat_path, source, roots)
    result = UnitExportResult(warnings=_deleted_parts(unit, tree, roots))
    read_as: dict[str, FileState | None] = {}
    archives: dict[str, tuple[str, Archive]] = {}
    writes: dict[tuple[str, int], _PartWrite] = {}
    entries: dict[int, tuple[str, int]] = {}  # component -> (archive, entry index) of its model
    for component, root in sorted(roots.items()):
        part = _part_write(context, component, root, options, source, archives, read_as)
        result.warnings += part.warnings
        entries[component] = (part.archive, part.entry)
        if part.model is None and part.wear is None and part.states is None:
            continue
        key = (part.archive, part.entry)
        if key in writes and (writes[key].model, writes[key].wear, _state_values(writes[key].states)) != (
                part.model, part.wear, _state_values(part.states)):
            raise FormatError.single("unit", component, f"parts {roots[writes[key].component].name!r} and "
                                                        f"{root.name!r} share one model and were edited "
                                                        "differently; make the same edit on both", source)
        writes.setdefault(key, part)
    for (real, index), part in sorted(writes.items(), key=lambda item: item[1].component):
        archive = archives[real][1]
        if part.model is not None:
            archive.entries[index].data = part.model
        if part.wear is not None:
            part.wear_entry.data = part.wear
        if part.states is not None:  # the edited states into the part's own controller, as the model export
            part.states.into_archive(archive, archive.entries[index].name_str, archives[real][0])
            result.warnings += [f"{roots[part.component].name}: {w}" for w in part.states.warnings]
        result.parts_written.append(part.component)
        sharing = sorted(c for c, key in entries.items() if c != part.component and key == (real, index))
        if sharing:
            result.warnings.append(f"{roots[part.component].name}: components {sharing} use the same model and "
                                   "change with it")
    new_tree, order = _tree_with_moves(tree, roots, source, result)
    files = [(path, archive.to_bytes()) for path, archive in archives.values()
             if any(real == os.path.realpath(path) for real, _ in writes)]
    write_files([*files, (dat_path, new_tree.to_bytes())], force=options.force, read_as=read_as)
    new_index = {old: new for new, old in enumerate(order)}
    for component, root in roots.items():  # the scene now describes the files written
        root[COMPONENT] = new_index[component]
        root[ATTACH] = new_tree.components[new_index[component]].attach
    for part in writes.values():
        root = roots[part.component]
        root[P.ENTRY_INDEX] = part.entry
        if part.model is not None:
            root[P.WRITTEN] = _digest(part.model)
        if part.wear is not None:
            root[P.WRITTEN_WEAR] = _digest(part.wear)
    P.store_path(unit, UNIT, dat_path)
    return result


def _source_tree(source: str | None) -> UnitTree:
    """The unit's ``.dat`` as it is now; FormatError naming it when it cannot be read (moved, deleted)."""
    if not source:
        raise FormatError.single("scene", None, "the unit's collection names no source .dat (msh_unit): import "
                                                "the unit again")
    try:
        return parse_dat(read_input(source), source)
    except OSError as exc:  # gone, a folder now, unreadable: it cannot be read (nothing was written yet)
        raise FormatError.single("unit", None, f"cannot read the unit's source: {exc.strerror or exc}; was it moved "
                                               "or deleted? Export Unit rewrites the .dat it was imported from: "
                                               "put it back, or import the unit again", source) from None


def _part_roots(unit, tree: UnitTree, source: str) -> dict[int, bpy.types.Object]:
    """The unit's part roots by component. Two roots claiming one component (a part copied with Shift+D) are
    refused: a unit export does not add parts. A root whose component the ``.dat`` now holds another part in
    (the ``.dat`` changed since the import) is refused."""
    roots: dict[int, bpy.types.Object] = {}
    for obj in sorted((o for o in unit.all_objects if P.MODEL in o and COMPONENT in o), key=lambda o: o.name):
        component = P.int_property(obj, COMPONENT)
        if component in roots:
            raise FormatError.single("unit", component, f"parts {roots[component].name!r} and {obj.name!r} are both "
                                                        f"component {component} (a copy, made with Shift+D?): "
                                                        "Export Unit cannot add a part to the unit; delete the "
                                                        "copy", source)
        if component >= len(tree.components) or (RECORD in obj and str(obj[RECORD]) != tree.components[
                component].record_key.decode("cp1251", "replace")) or (
                DISPLAY in obj and str(obj[DISPLAY]) != tree.components[component].display):
            now = (f"component {component} is now {tree.components[component].display!r}"
                   if component < len(tree.components) else f"it has only {len(tree.components)} components")
            raise FormatError.single("unit", component, f"the .dat changed since the import: part {obj.name!r} was "
                                                        f"component {component} ({str(obj.get(DISPLAY, ''))!r}), "
                                                        f"{now}; import the unit again", source)
        roots[component] = obj
    return roots


def _check_target(dat_path: str, source: str, roots: dict) -> None:
    """The target must be a unit tree, and none of the unit's other inputs (its parts' archives, objects.rlb)."""
    target = os.path.realpath(dat_path)
    inputs = {os.path.realpath(p): f"the archive of part {r.name!r}" for r in roots.values()
              if (p := P.stored_path(r, P.SOURCE_PATH))}
    objects = locate(game_folder(source), "objects.rlb")
    if objects is not None:
        inputs[os.path.realpath(objects)] = "the unit's records (objects.rlb)"
    if target in inputs and target != os.path.realpath(source):
        raise FormatError.single("unit", None, f"the target is {inputs[target]}, one of the unit's inputs: "
                                               "Export Unit writes a unit tree (.dat); choose a .dat", dat_path)
    if target == os.path.realpath(source) or not os.path.exists(target):
        return
    try:
        parse_dat(read_input(dat_path), dat_path)
    except (FormatError, OSError):
        raise FormatError.single("unit", None, "the target exists and is not a unit tree: Export Unit replaces "
                                               "only a unit tree (.dat); choose another file", dat_path) from None


def _deleted_parts(unit, tree: UnitTree, roots: dict) -> list[str]:
    """A warning for each part the import made that is no longer in the scene: it stays in the unit."""
    imported = [c for c in (unit.get(PARTS) or []) if isinstance(c, int)]
    return [f"component {c} ({tree.components[c].display!r}) is no longer in the scene: the .dat keeps it and "
            "its archive entry is not changed (Export Unit does not remove parts; remove one from the .dat with "
            "another tool)" for c in imported if c not in roots and 0 <= c < len(tree.components)]


@dataclass
class _PartWrite:
    """What one part writes: its model's bytes and its WEAR list's (None: unchanged), into which entry."""

    component: int
    archive: str = ""            # the archive's real path
    entry: int = -1              # the model's entry index there
    model: bytes | None = None
    wear: bytes | None = None
    wear_entry: Entry | None = None
    states: ControllerWrite | None = None  # edited controller states (None: the controller is not touched)
    warnings: list[str] = field(default_factory=list)


def _part_write(context, component: int, root, options: ExportOptions, source: str,
                archives: dict, read_as: dict) -> _PartWrite:
    try:
        exported = model_of(context, root, options)
    except FormatError as exc:
        raise FormatError([f.located(f"part {printable(root.name)}") for f in exc.findings], source) from None
    out = _PartWrite(component, warnings=[f"{root.name}: {w}" for w in exported.warnings])
    try:
        states = controller_write(root, exported.model)
    except FormatError as exc:
        raise FormatError([f.located(f"part {printable(root.name)}") for f in exc.findings], source) from None
    data = exported.model.to_bytes()
    wear = exported.materials.wear if exported.materials else None
    wear_data = wear.to_bytes() if wear is not None else None
    edited = states is not None or _digest(data) != _known(root, P.WRITTEN, P.SOURCE) or (
        wear_data is not None and _digest(wear_data) != _known(root, P.WRITTEN_WEAR, P.WEAR))
    path, index = P.stored_path(root, P.SOURCE_PATH), P.int_property(root, P.ENTRY_INDEX)
    if path is None or index is None:
        if edited:
            raise FormatError.single("unit", component, f"part {root.name!r} was not imported from an archive "
                                                        "entry", source)
        return out
    real = os.path.realpath(path)
    if real not in archives:
        archives[real] = (path, _existing_archive(path, read_as))
    archive = archives[real][1]
    name = str(root.get(P.MODEL) or "")
    entry = _entry_named(archive, _ImportedEntry(index, name))
    if entry is None:
        if edited:
            raise FormatError.single("unit", component, f"part {root.name!r}: {printable(path)} has no entry "
                                                        f"{name!r} any more (the archive changed since the "
                                                        "import); import the unit again", source)
        out.warnings.append(f"{root.name}: {printable(path)} has no entry {name!r} any more; the part is not "
                            "written")
        return out
    out.archive, out.entry, out.states = real, archive.entries.index(entry), states
    out.model = _change(root, component, data, bytes(entry.data), P.WRITTEN, P.SOURCE, name, path,
                        source)
    if wear_data is not None:
        out.wear_entry = archive.find(f"{os.path.splitext(entry.name_str)[0]}.wea")
        if out.wear_entry is not None:
            out.wear = _change(root, component, wear_data, bytes(out.wear_entry.data), P.WRITTEN_WEAR, P.WEAR,
                               out.wear_entry.name_str, path, source)
    return out


def _change(root, component: int, data: bytes, current: bytes, written: str, imported: str, entry: str,
            path: str, source: str) -> bytes | None:
    """``data`` when it is to be written over ``current`` (None: nothing to write). The part is edited when
    ``data`` is not what the export last knew the entry to hold; the entry changed under it when ``current``
    is not that either: an edit is then refused (it would lose the other change), an unedited part is not
    written (the other change is kept)."""
    if data == current:
        return None
    known = _known(root, written, imported)
    if _digest(data) == known:
        return None
    if _digest(current) != known:
        raise FormatError.single("unit", component, f"part {root.name!r}: entry {entry!r} of {printable(path)} "
                                                    "changed since the import (another tool, or another part of "
                                                    "the same model, wrote it); import the unit again to edit it",
                                 source)
    return data


def _state_values(states: ControllerWrite | None) -> list | None:
    return None if states is None else [(e.state, e.field, e.values) for e in states.edits]


def _known(root, written: str, imported: str) -> str:
    """The digest of what the export last knew the entry to hold: what it wrote there, else what was imported."""
    value = root.get(written)
    if isinstance(value, str):
        return value
    raw = root.get(imported)
    return _digest(bytes(raw)) if raw is not None else ""


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _tree_with_moves(tree: UnitTree, roots: dict, source: str, result: UnitExportResult) -> tuple[UnitTree, list[int]]:
    """The tree with every part moved to another socket of its parent given its new attach (the tree as read
    when none moved). A tree the game's rule cannot walk (a child count past its end) is written back as read;
    a part moved in it is refused naming the source."""
    parents, findings = tree_parents([c.children for c in tree.components])
    external = {c for c, r in roots.items() if r.get(EXTERNAL) and parents[c] is not None} | {
        c for c, comp in enumerate(tree.components) if c not in roots and comp.kind in (TURRET, GUN)}
    for component in sorted(c for c in external if c in roots):
        socket = _socket(roots, component, parents[component], source)
        if socket is not None and socket != tree.components[component].attach:
            result.moved[component] = socket
            result.warnings += _kind_warning(roots, component, parents[component], tree.components[component].attach,
                                             socket)
    if not result.moved:
        return tree, list(range(len(tree.components)))
    if findings:
        raise FormatError(findings, source)
    try:
        return with_attach(tree, result.moved, external)
    except FormatError as exc:
        raise FormatError(exc.findings, source) from None


def _socket(roots, component: int, parent: int, source: str) -> int | None:
    """The parent part's node the part's mount Empty now follows (None: no mount to read)."""
    mount = roots[component].parent
    constraint = mount.constraints.get(MOUNT) if mount is not None else None
    host = roots.get(parent)
    if constraint is None or host is None:
        return None
    handles = node_handles(host)
    if host.type == "ARMATURE" and constraint.target == host and constraint.subtarget:
        found = [n for n, bone in handles.items() if bone.name == constraint.subtarget]
    else:
        found = [n for n, obj in handles.items() if obj == constraint.target]
    if not found:
        target = repr(constraint.target.name) if constraint.target else "nothing"
        if constraint.subtarget:
            target += f" {constraint.subtarget!r}"
        raise FormatError.single("unit", component, f"part {roots[component].name!r} hangs on {target}"
                                                    f", not on a node of its parent part {host.name!r}: a part moves "
                                                    "only to another socket of the same parent", source)
    return found[0]


def _kind_warning(roots, component: int, parent: int, old: int, new: int) -> list[str]:
    """A warning when the new socket's label (Res10: what it takes) is not the old one's."""
    labels = Model.parse(bytes(roots[parent][P.SOURCE])).labels
    old_label = labels[old] if 0 <= old < len(labels) else None
    new_label = labels[new] if 0 <= new < len(labels) else None
    if old_label == new_label:
        return []
    shown = [(label or b"").decode("cp1251", "replace") for label in (old_label, new_label)]
    return [f"{roots[component].name}: moved from socket {old} (label {shown[0]!r}) to socket {new} (label "
            f"{shown[1]!r}): check that the new socket takes this part (docs/format-notes.md, units)"]
