"""Export of a unit imported with Import Unit (io_msh.imp.unit): every part whose model changed is written
into the archive it came from (as the model export writes it), and the ``.dat`` tree is written back, with
``attach`` rewritten for a part moved to another socket of its parent (its mount Empty's Child Of now aims at
another bone or Empty) and that parent's children in the game's order (core.unit.edit). Everything is
checked and made in memory first, then written as one transaction: all files, or none."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import bpy

from ...core.disk import FileState, read_input, write_files
from ...core.errors import FormatError, printable
from ...core.msh.model import Model
from ...core.unit.dat import parse_dat
from ...core.unit.edit import with_attach
from ...core.unit.resolve import GUN, TURRET
from ..com import props as P
from ..imp.unit import ATTACH, COMPONENT, EXTERNAL, MOUNT, UNIT, node_handles
from .export import _existing_archive, model_of
from .plan import ExportOptions


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
    tree = parse_dat(read_input(source), source)
    parents = tree.parents()
    roots = {int(o[COMPONENT]): o for o in unit.all_objects if P.MODEL in o and COMPONENT in o}
    result = UnitExportResult()
    read_as: dict[str, FileState | None] = {}
    archives: dict[str, tuple[str, object]] = {}
    written: dict[tuple[str, int], tuple[bytes, int]] = {}
    for component, root in sorted(roots.items()):
        if component >= len(tree.components):
            raise FormatError.single("unit", component, f"part {root.name!r} names a component the unit does not "
                                                        "have", source)
        try:
            exported = model_of(context, root, options)
        except FormatError as exc:
            raise FormatError([f.located(f"part {printable(root.name)}") for f in exc.findings], source) from None
        result.warnings += [f"{root.name}: {w}" for w in exported.warnings]
        data = exported.model.to_bytes()
        wear = exported.materials.wear if exported.materials else None
        wear_changed = wear is not None and wear.to_bytes() != bytes(root.get(P.WEAR, b""))
        if data == bytes(root[P.SOURCE]) and not wear_changed:
            continue
        path, index = P.stored_path(root, P.SOURCE_PATH), root.get(P.ENTRY_INDEX)
        if index is None:
            raise FormatError.single("unit", component, f"part {root.name!r} was not imported from an archive entry",
                                     source)
        real = os.path.realpath(path)
        if (real, int(index)) in written and written[(real, int(index))][0] != data:
            raise FormatError.single("unit", component, f"parts {roots[written[(real, int(index))][1]].name!r} and "
                                                        f"{root.name!r} share one model and were edited differently; "
                                                        "make the same edit on both", source)
        if real not in archives:
            archives[real] = (path, _existing_archive(path, read_as))
        archive = archives[real][1]
        if not 0 <= int(index) < len(archive.entries):
            raise FormatError.single("unit", component, f"{path} has no entry {int(index)} any more", source)
        entry = archive.entries[int(index)]
        entry.data = data
        if wear_changed:
            listed = archive.find(f"{os.path.splitext(entry.name_str)[0]}.wea")
            if listed is not None:
                listed.data = wear.to_bytes()
        written[(real, int(index))] = (data, component)
        result.parts_written.append(component)
        sharing = [c for c, r in roots.items() if c != component and r.get(P.ENTRY_INDEX) == index
                   and os.path.realpath(P.stored_path(r, P.SOURCE_PATH)) == real]
        if sharing:
            result.warnings.append(f"{root.name}: components {sharing} use the same model and change with it")
    external = {c for c, r in roots.items() if r.get(EXTERNAL) and parents[c] is not None} | {
        c for c, comp in enumerate(tree.components) if c not in roots and comp.kind in (TURRET, GUN)}
    for component in sorted(c for c in external if c in roots):
        socket = _socket(roots, component, parents[component], source)
        if socket is not None and socket != tree.components[component].attach:
            result.moved[component] = socket
            result.warnings += _kind_warning(roots, component, parents[component], tree.components[component].attach,
                                             socket)
    new_tree, order = with_attach(tree, result.moved, external) if result.moved else (tree, list(range(
        len(tree.components))))
    files = [(path, archive.to_bytes()) for path, archive in archives.values()]
    write_files([*files, (dat_path, new_tree.to_bytes())], force=options.force, read_as=read_as)
    new_index = {old: new for new, old in enumerate(order)}
    for component, root in roots.items():  # the scene now describes the file written
        root[COMPONENT] = new_index[component]
        root[ATTACH] = new_tree.components[new_index[component]].attach
    P.store_path(unit, UNIT, dat_path)
    return result


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
