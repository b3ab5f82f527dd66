"""Export of a unit imported with Import Unit (io_msh.imp.unit): every part whose model changed is written
into the archive it came from (as the model export writes it), and the ``.dat`` tree is written back, with
``attach`` rewritten for a part moved to another socket of its parent (its mount Empty's Child Of now aims at
another bone or Empty) and that parent's children in the game's order (core.unit.edit). Everything is
checked and made in memory first, then handed to the one write path (core.write_path): all files, or none.

The tree the export starts from is the one the scene describes (``P.UNIT_TREE``: the ``.dat`` as the import read it,
or as the export last wrote it), so a socket change another program made to the file since is neither taken
for the user's nor undone: a ``.dat`` nothing of the scene changes is not written, one that changed on disk
since it was read is refused naming it (unless the user says to replace changed files).

Whether a part is written is judged against what its archive entry holds now and what the export knows it to
hold: the import's bytes, the digest of the last bytes Export Unit wrote there (P.WRITTEN, on the part's root),
and the digests of what this process wrote into the entry (a record Ctrl+Z does not take back): an edit is
written, an edit taken back (by hand or by Ctrl+Z) is written back, an unedited part never overwrites its
entry (another tool's change, or a twin part's edit, is kept), and an edited part whose entry something else
changed is refused."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field

import bpy

from ...core.cli.unit import game_folder, locate
from ...core.container.nres import Archive, Entry
from ...core.disk import FileState, read_input
from ...core.errors import FormatError, printable
from ...core.msh.model import Model
from ...core.unit.dat import UnitTree, parse_dat, tree_parents
from ...core.unit.edit import with_attach
from ...core.unit.resolve import GUN, TURRET
from ...core.write_path import UNREAD, Target, write
from ..com import props as P
from ..imp.unit import node_handles
from . import entries_written
from .effects import explosion_files, remember_written
from .export import ImportedEntry, entry_named, existing_archive, model_of
from .ground_plan import ground_plan_edits, remember
from .plan import ExportOptions
from .state_edits import ControllerWrite, controller_write


@dataclass
class UnitExportResult:
    parts_written: list[int] = field(default_factory=list)   # components whose model changed
    moved: dict[int, int] = field(default_factory=dict)      # component (as read) -> new socket node
    warnings: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)          # the files replaced or made


def unit_collection(context, name: str | None = None) -> bpy.types.Collection:
    """The unit's collection: named, else the one holding the active object, else the scene's only one."""
    units = [c for c in bpy.data.collections if P.UNIT in c]
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
    """Write the unit of ``collection`` (else the active object's): its changed parts into their archives and its
    tree into ``dat_path``, through the one write path (core.write_path): all of it or nothing. A file changed on
    disk since the import is refused naming it, unless ``options.replace_changed``; one nothing of the scene changes is
    not written (another program's change to it is kept)."""
    unit = unit_collection(context, collection)
    source = P.stored_path(unit, P.UNIT)
    tree, tree_read = _scene_tree(unit, source)
    roots = _part_roots(unit, tree, source)
    _check_target(dat_path, source, roots)
    result = UnitExportResult(warnings=_deleted_parts(unit, tree, roots))
    read_as: dict[str, FileState | None] = {}
    archives: dict[str, tuple[str, Archive]] = {}
    parts = [_part_write(context, component, root, options, source, archives, read_as)
             for component, root in sorted(roots.items())]
    entries = {part.component: (part.archive, part.entry) for part in parts}
    written = _written_pieces(parts, roots, archives, source, options.replace_changed)
    states = _written_states(parts, roots, source)
    for part in states:
        real = part.archive
        archive = archives[real][1]
        part.states.into_archive(archive, archive.entries[part.entry].name_str, archives[real][0])
        result.warnings += [f"{roots[part.component].name}: {w}" for w in part.states.warnings]
    for part in parts:
        result.warnings += part.warnings
    changed = {p.component for pieces in written.values() for p in pieces[1] if p.data == pieces[0]} | \
        {p.component for p in states}
    result.parts_written = sorted(changed)
    for component in result.parts_written:
        sharing = sorted(c for c, key in entries.items() if c != component and key == entries[component]
                         and c not in changed)
        if sharing:
            result.warnings.append(f"{roots[component].name}: components {sharing} use the same model and "
                                   "change with it")
    plans = ground_plan_edits(roots, source, archives, read_as, options.replace_changed)  # the .bas moved
    explosions = explosion_files(list(roots.values()), lambda p: existing_archive(p, read_as, archives))
    exploded = {os.path.realpath(path) for path, _data in explosions}  # archives holding edited .exp fields
    new_tree, order = _tree_with_moves(tree, roots, source, result)
    tree_bytes = new_tree.to_bytes()
    same_file = source is not None and os.path.realpath(dat_path) == os.path.realpath(source)
    targets = [Target(path, archive.to_bytes(), read=read_as.get(path, UNREAD), owned=True)
               for real, (path, archive) in archives.items() if any(r == real for r, _ in written) or
               any(p.archive == real for p in states) or real in plans or real in exploded]
    targets.append(Target(dat_path, tree_bytes, read=tree_read if same_file else UNREAD, owned=True))
    done = write(targets, force=options.force, replace_changed=options.replace_changed)
    result.written, result.warnings = done.written, result.warnings + done.notes
    _remember(written)
    remember(plans)
    remember_written(list(roots.values()), explosions)  # the explosions as written (a record Ctrl+Z keeps)
    new_index = {old: new for new, old in enumerate(order)}
    for component, root in roots.items():  # the scene now describes the files written
        root[P.UNIT_COMPONENT] = new_index[component]
        root[P.UNIT_ATTACH] = new_tree.components[new_index[component]].attach
    for part in parts:
        if part.entry >= 0:
            roots[part.component][P.ENTRY_INDEX] = part.entry
    for (_real, _name), (data, pieces) in written.items():
        for piece in pieces:
            if piece.data == data:
                roots[piece.component][piece.written] = _digest(data)
    P.store_path(unit, P.UNIT, dat_path)
    P.store_bytes(unit, P.UNIT_TREE, tree_bytes)
    return result


def _scene_tree(unit, source: str | None) -> tuple[UnitTree, bytes]:
    """The tree the scene describes (its parts' component indices and attach refer to it): the ``.dat`` as the
    import read it or the export last wrote it (``P.UNIT_TREE``, on the unit's collection), else (a scene imported
    before it was kept) the source as it is now; and those bytes, as read."""
    kept = unit.get(P.UNIT_TREE)
    if kept is not None and source:
        data = bytes(kept)
        try:
            return parse_dat(data, source), data
        except FormatError:
            pass  # edited by hand: the source as it is now
    return _source_tree(source)


def _source_tree(source: str | None) -> tuple[UnitTree, bytes]:
    """The unit's ``.dat`` as it is now, and its bytes; FormatError naming it when it cannot be read (moved,
    deleted)."""
    if not source:
        raise FormatError.single("scene", None, "the unit's collection names no source .dat (msh_unit): import "
                                                "the unit again")
    try:
        data = read_input(source)
        return parse_dat(data, source), data
    except OSError as exc:  # gone, a folder now, unreadable: it cannot be read (nothing was written yet)
        raise FormatError.single("unit", None, f"cannot read the unit's source: {exc.strerror or exc}; was it moved "
                                               "or deleted? Export Unit rewrites the .dat it was imported from: "
                                               "put it back, or import the unit again", source) from None


def _part_roots(unit, tree: UnitTree, source: str) -> dict[int, bpy.types.Object]:
    """The unit's part roots by component. Two roots claiming one component (a part copied with Shift+D) are
    refused: a unit export does not add parts. A root whose component the ``.dat`` now holds another part in
    (the ``.dat`` changed since the import) is refused."""
    roots: dict[int, bpy.types.Object] = {}
    for obj in sorted((o for o in unit.all_objects if P.MODEL in o and P.UNIT_COMPONENT in o), key=lambda o: o.name):
        component = P.int_property(obj, P.UNIT_COMPONENT)
        if component in roots:
            raise FormatError.single("unit", component, f"parts {roots[component].name!r} and {obj.name!r} are both "
                                                        f"component {component} (a copy, made with Shift+D?): "
                                                        "Export Unit cannot add a part to the unit; delete the "
                                                        "copy", source)
        if component >= len(tree.components) or (P.UNIT_RECORD in obj and str(obj[P.UNIT_RECORD]) != tree.components[
                component].record_key.decode("cp1251", "replace")) or (
                P.UNIT_DISPLAY in obj and str(obj[P.UNIT_DISPLAY]) != tree.components[component].display):
            now = (f"component {component} is now {tree.components[component].display!r}"
                   if component < len(tree.components) else f"it has only {len(tree.components)} components")
            raise FormatError.single("unit", component, f"the .dat changed since the import: part {obj.name!r} was "
                                                        f"component {component} "
                                                        f"({str(obj.get(P.UNIT_DISPLAY, ''))!r}), "
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
    imported = [c for c in (unit.get(P.UNIT_PARTS) or []) if isinstance(c, int)]
    return [f"component {c} ({tree.components[c].display!r}) is no longer in the scene: the .dat keeps it and "
            "its archive entry is not changed (Export Unit does not remove parts; remove one from the .dat with "
            "another tool)" for c in imported if c not in roots and 0 <= c < len(tree.components)]


@dataclass
class _Piece:
    """One entry a part writes (its model, or its WEAR list): the bytes the scene now gives it, and what the
    export knows of the bytes it holds."""

    component: int
    real: str                   # the archive's real path
    entry: Entry
    data: bytes                 # as the scene shows it now
    known: set[str]             # digests of what the part was imported with, or last wrote there (its own)
    imported: str               # the digest of what it was imported with
    written: str                # the root's property recording what it wrote (P.WRITTEN, P.WRITTEN_WEAR)
    ours: bool = False          # the entry holds bytes this process wrote there (proof against Ctrl+Z)
    in_step: str = ""           # the digest of what the entry held when it was last in step with the scene:
    #                             what this process last wrote there, else the root's record, else the import

    @property
    def current(self) -> bytes:
        return bytes(self.entry.data)

    @property
    def edited(self) -> bool:
        """The scene gives it other bytes than the entry held when it was last in step (an undo of an edit
        exported is an edit too)."""
        return _digest(self.data) != self.in_step

    @property
    def its_own(self) -> bool:
        """The scene gives it the bytes the part itself was imported or written with (a twin the other twin's
        edit changed shows them)."""
        return _digest(self.data) in self.known

    @property
    def shows_an_edit(self) -> bool:
        """The scene gives it other bytes than it was imported with (edited now, or before the last export)."""
        return _digest(self.data) != self.imported

    @property
    def kept_by_us(self) -> bool:
        """Its bytes are the part's as imported or as this process last wrote them (nothing else changed it)."""
        return self.ours or _digest(self.current) in self.known


@dataclass
class _PartWrite:
    """What one part may write: its model and its WEAR list (pieces), its edited controller states."""

    component: int
    archive: str = ""            # the archive's real path
    entry: int = -1              # the model's entry index there
    pieces: list[_Piece] = field(default_factory=list)
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
    edited = states is not None or _digest(data) not in _known(root, P.WRITTEN, P.SOURCE) or (
        wear_data is not None and _digest(wear_data) not in _known(root, P.WRITTEN_WEAR, P.WEAR))
    path, index = P.stored_path(root, P.SOURCE_PATH), P.int_property(root, P.ENTRY_INDEX)
    if path is None or index is None:
        if edited:
            raise FormatError.single("unit", component, f"part {root.name!r} was not imported from an archive "
                                                        "entry", source)
        return out
    real = os.path.realpath(path)
    if real not in archives:
        archives[real] = (path, existing_archive(path, read_as))
    archive = archives[real][1]
    name = str(root.get(P.MODEL) or "")
    entry = entry_named(archive, ImportedEntry(index, name))
    if entry is None:
        if edited:
            raise FormatError.single("unit", component, f"part {root.name!r}: {printable(path)} has no entry "
                                                        f"{name!r} any more (the archive changed since the "
                                                        "import); import the unit again", source)
        out.warnings.append(f"{root.name}: {printable(path)} has no entry {name!r} any more; the part is not "
                            "written")
        return out
    out.archive, out.entry, out.states = real, archive.entries.index(entry), states
    out.pieces.append(_piece(component, root, real, entry, data, P.WRITTEN, P.SOURCE))
    if wear_data is not None:
        wear_entry = archive.find(f"{os.path.splitext(entry.name_str)[0]}.wea")
        if wear_entry is not None:
            out.pieces.append(_piece(component, root, real, wear_entry, wear_data, P.WRITTEN_WEAR, P.WEAR))
    return out


def _piece(component: int, root, real: str, entry: Entry, data: bytes, written: str, imported: str) -> _Piece:
    """The piece, and whether its entry holds what an export wrote there: this process's record of the entry (not
    of the archive: an archive written carries other programs' entries as they were), or the root's."""
    now = _digest(bytes(entry.data))
    session = entries_written.written(real, entry.name_str)  # this process's exports', the model export's too
    ours = now in session or now == root.get(written)
    raw = root.get(imported)
    first = _digest(bytes(raw)) if raw is not None else ""
    recorded = root.get(written)
    in_step = session[-1] if session else recorded if isinstance(recorded, str) else first
    return _Piece(component, real, entry, data, _known(root, written, imported), first, written, ours, in_step)


def _written_pieces(parts: list[_PartWrite], roots: dict, archives: dict, source: str,
                    replace_changed: bool = False) -> dict[tuple[str, str], tuple[bytes, list[_Piece]]]:
    """The entries to write, by (archive, entry name): their new bytes, and the pieces of the parts that use
    them. A part that does not show what its entry holds writes it when the entry holds what the export knows
    it to hold (what was imported or written: an edit, or an edit taken back by hand or by Ctrl+Z, is written);
    an unedited twin does not, while the other twin shows the entry. An entry something else changed is kept
    when the part is not edited, and refused when it is (writing would lose that change) unless
    ``replace_changed``; two parts of one entry showing two different edits are refused."""
    groups: dict[tuple[str, str], list[_Piece]] = {}
    for part in parts:
        for piece in part.pieces:
            groups.setdefault((piece.real, piece.entry.name_str), []).append(piece)
    out = {}
    for key, pieces in groups.items():
        shows = [p for p in pieces if p.data == p.current]
        wanting = []
        for piece in pieces:
            if piece.data == piece.current or (piece.its_own and shows):
                continue  # as it holds, or an unedited twin of the one that shows what it holds
            if not piece.kept_by_us and not (replace_changed and piece.edited):
                if piece.edited:
                    raise FormatError.single("unit", piece.component, f"part {roots[piece.component].name!r}: "
                                                                      f"entry {piece.entry.name_str!r} of "
                                                                      f"{printable(archives[key[0]][0])} changed "
                                                                      "since the import (another tool, or another "
                                                                      "part of the same model, wrote it); import "
                                                                      "the unit again to edit it, or export "
                                                                      "with Replace Changed Files to write over "
                                                                      "that change", source)
                continue  # another program's change, kept
            wanting.append(piece)
        if not wanting:
            continue
        rivals = wanting + [p for p in shows if p.shows_an_edit]
        if len({p.data for p in rivals}) > 1:
            other = next(p for p in rivals if p.data != rivals[0].data)
            first, second = roots[rivals[0].component].name, roots[other.component].name
            raise FormatError.single("unit", other.component, f"parts {first!r} and {second!r} share one "
                                                              "model and were edited differently; make the "
                                                              "same edit on both", source)
        data = wanting[0].data
        wanting[0].entry.data = data
        out[key] = (data, pieces)
    return out


def _written_states(parts: list[_PartWrite], roots: dict, source: str) -> list[_PartWrite]:
    """The parts whose edited controller states are written (one per model entry: parts sharing one with
    different edits are refused)."""
    by_entry: dict[tuple[str, int], _PartWrite] = {}
    for part in parts:
        if part.states is None or part.entry < 0:
            continue
        key = (part.archive, part.entry)
        if key in by_entry and _state_values(by_entry[key].states) != _state_values(part.states):
            raise FormatError.single("unit", part.component, f"parts {roots[by_entry[key].component].name!r} and "
                                                             f"{roots[part.component].name!r} share one model and "
                                                             "were edited differently; make the same edit on "
                                                             "both", source)
        by_entry.setdefault(key, part)
    return list(by_entry.values())


def _remember(written: dict[tuple[str, str], tuple[bytes, list[_Piece]]]) -> None:
    for (real, name), (data, _pieces) in written.items():
        entries_written.remember(real, name, data)


def _state_values(states: ControllerWrite | None) -> list | None:
    return None if states is None else [(e.state, e.field, e.values) for e in states.edits]


def _known(root, written: str, imported: str) -> set[str]:
    """The digests of what the part knows its entry to have held: what Export Unit last wrote there (while the
    scene keeps that record), and what was imported."""
    known = set()
    value = root.get(written)
    if isinstance(value, str):
        known.add(value)
    raw = root.get(imported)
    if raw is not None:
        known.add(_digest(bytes(raw)))
    return known


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _tree_with_moves(tree: UnitTree, roots: dict, source: str, result: UnitExportResult) -> tuple[UnitTree, list[int]]:
    """The tree with every part moved to another socket of its parent given its new attach (the tree as read
    when none moved). A tree the game's rule cannot walk (a child count past its end) is written back as read;
    a part moved in it is refused naming the source."""
    parents, findings = tree_parents([c.children for c in tree.components])
    external = {c for c, r in roots.items() if r.get(P.UNIT_EXTERNAL) and parents[c] is not None} | {
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
    constraint = mount.constraints.get(P.UNIT_MOUNT) if mount is not None else None
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
            f"{shown[1]!r}): check that the new socket takes this part (docs/formats/units.md)"]
