"""Finding each component's files: record -> slots -> archives -> model, material list, controller, points
and damage table (dragonee/openparkan docs/07-objects.md), and the unit's node tree built from them (mount).

Archives are read through a ``load`` callable (a file name as a slot gives it -> its bytes, or None when there
is no such file), so this module reads no disk itself; core.cli.unit gives one for a game folder.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..animation.sampler import AnimationData
from ..appearance.wear import parse_wear
from ..container.nres import Archive, Entry, name_bytes
from ..errors import Finding, FormatError, error, warning
from ..msh.model import Model
from . import objects
from .cpt import CONSEQUENCE, ControlPoints, parse_cpt
from .dat import UnitTree, tree_parents
from .mount import Assembly, PartNodes, assemble
from .ndp import DamageTable, parse_ndp

Loader = Callable[[str], bytes | None]
STREAM = "unit"
TURRET, GUN = 1, 4


def attach_kind(tag: str | None, kind: int) -> bool:
    """True when the part hangs on a socket node (EXTO), False when it is a controller device (INTO).

    The tag decides (openparkan docs/28-chassis.md); other tags, and a record not found, go by the class: turret or gun.
    """
    if tag == objects.EXTERNAL:
        return True
    if tag == objects.INTERNAL:
        return False
    return kind in (TURRET, GUN)


@dataclass
class Part:
    """One component, resolved as far as its files allow."""

    component: int
    record: str
    tag: str | None = None
    chain: list[str] = field(default_factory=list)          # records read, redirects included
    files: dict[str, tuple[str, str] | None] = field(default_factory=dict)  # extension -> (archive, member)
    model: Model | None = None
    materials: list[str] | None = None
    controller_size: int | None = None
    points: ControlPoints | None = None
    damage: DamageTable | None = None
    missing: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


@dataclass
class Unit:
    tree: UnitTree
    parents: list[int | None]
    parts: list[Part]
    assembly: Assembly
    findings: list[Finding]

    def animations(self) -> list[AnimationData | None]:
        """Each component's sampler input (None where its model is missing or cannot be sampled)."""
        out: list[AnimationData | None] = []
        for part in self.parts:
            try:
                out.append(None if part.model is None else AnimationData.from_model(part.model))
            except FormatError:
                out.append(None)
        return out


class Archives:
    """Archives read once each, by file name (case as the loader treats it); and, within one unit, each record's
    lookups and each member's parsed file, so that components naming one record share its files (a unit of
    thousands of components reads each distinct file once: time and memory follow the distinct files)."""

    def __init__(self, load: Loader) -> None:
        self.load = load
        self._read: dict[str, Archive | FormatError | None] = {}
        self._records: dict[str | bytes, Entry | None] = {}
        self._lookups: dict[tuple[str | bytes, str], objects.Lookup] = {}
        self._members: dict[tuple[str, bytes, str], tuple[object, str | FormatError | None]] = {}

    def get(self, name: str) -> Archive | None:
        """The archive, None when there is no such file; FormatError when it is not an NRes."""
        key = name.lower()
        if key not in self._read:
            data = self.load(name)
            try:
                self._read[key] = None if data is None else Archive.parse(data, name)
            except FormatError as exc:
                self._read[key] = exc
        found = self._read[key]
        if isinstance(found, FormatError):
            raise found
        return found

    def record(self, records: Archive, record: str | bytes) -> Entry | None:
        """objects.rlb's entry of ``record`` (None when there is none)."""
        if record not in self._records:
            try:
                self._records[record] = records.find(record)
            except FormatError:
                self._records[record] = None
        return self._records[record]

    def lookup(self, records: Archive, record: str | bytes, extension: str) -> objects.Lookup:
        key = (record, extension)
        if key not in self._lookups:
            self._lookups[key] = objects.lookup(records, record, extension)
        return self._lookups[key]

    def member(self, slot: objects.Slot, extension: str) -> tuple[object, str | FormatError | None]:
        """The slot's file read as ``extension`` (``_parsed``), or None with why not: the text of a missing file,
        or the FormatError of one that does not read."""
        key = (slot.archive.lower(), bytes(slot.member_raw).lower(), extension)
        if key not in self._members:
            data, why = _member(self, slot)
            if data is None:
                self._members[key] = (None, why)
            else:
                try:
                    self._members[key] = (_parsed(extension, data, f"{slot.archive}:{slot.member}"), None)
                except FormatError as exc:
                    self._members[key] = (None, exc)
        return self._members[key]


def _member(archives: Archives, slot: objects.Slot) -> tuple[bytes | None, str | None]:
    """The member's bytes, or None with why not."""
    try:
        archive = archives.get(slot.archive)
    except FormatError as exc:
        return None, exc.describe()
    if archive is None:
        return None, f"archive {slot.archive!r} not found"
    try:
        entry = archive.find(name_bytes(slot.member))
    except FormatError:
        entry = None
    if entry is None:
        return None, f"no {slot.member!r} in {slot.archive}"
    return bytes(entry.data), None


PART_FIELDS = {".msh": "model", ".wea": "materials", ".ctl": "controller_size", ".cpt": "points", ".ndp": "damage"}


def resolve_part(component: int, record: str | bytes, records: Archive | None, archives: Archives) -> Part:
    shown = record if isinstance(record, str) else record.decode("cp1251", "replace")
    part = Part(component, shown)
    if records is None:
        part.missing.append("objects.rlb")
        return part
    entry = archives.record(records, record)
    if entry is None:
        part.missing.append("record")  # 3 of the 5 708 retail components (cut content): the part is left out
        part.findings.append(warning(STREAM, component, f"no record {shown!r} in objects.rlb: the part is left "
                                                        "out"))
        return part
    part.tag = objects.tag_text(entry.type_id)
    reported: set[str] = set()
    for extension in objects.EXTENSIONS:
        found = archives.lookup(records, record, extension)
        for f in found.findings:
            if f.message not in reported:
                reported.add(f.message)
                part.findings.append(Finding(f.severity, STREAM, component, f.message))
        part.chain = max(part.chain, found.chain, key=len)
        if found.slot is None:
            part.files[extension] = None
            part.missing.append(extension)
            continue
        part.files[extension] = (found.slot.archive, found.slot.member)
        value, why = archives.member(found.slot, extension)
        if isinstance(why, str):
            part.missing.append(extension)
            part.findings.append(error(STREAM, component, f"{extension}: {why}"))
        elif why is not None:
            part.missing.append(extension)
            part.findings += [Finding(f.severity, f.stream, f.index, f"{extension}: {f.message}",
                                      f"component {component}") for f in why.findings]
        else:
            setattr(part, PART_FIELDS[extension], value)
    return part


def _parsed(extension: str, data: bytes, where: str) -> object:
    """The file as the part holds it (shared by every component naming the same file: read, never changed)."""
    if extension == ".msh":
        model = Model.parse(data, where)
        model.nodes  # noqa: B018 -- reads Res1 now, so that a broken node table is this part's finding
        return model
    if extension == ".wea":
        return parse_wear(data, where).materials
    if extension == ".ctl":
        return len(data)
    if extension == ".cpt":
        return parse_cpt(data, where)
    return parse_ndp(data, where)


def resolve_unit(tree: UnitTree, records: Archive | None, load: Loader) -> Unit:
    """Every component's files and the unit's node tree. Never raises for bad data: all goes to findings."""
    archives = Archives(load)
    parents, findings = tree_parents([c.children for c in tree.components])
    findings = [Finding(f.severity, f.stream, f.index, f.message) for f in findings]
    parts = [resolve_part(i, c.record_key, records, archives) for i, c in enumerate(tree.components)]
    nodes: list[PartNodes | None] = []
    for i, (component, part) in enumerate(zip(tree.components, parts)):
        findings += part.findings
        try:
            parent_nodes = None if part.model is None else part.model.nodes["parent"]
        except FormatError as exc:
            findings += [f.located(f"component {i}") for f in exc.findings]
            parent_nodes = None
        if parent_nodes is None:
            nodes.append(None)
            continue
        names = [part.model.node_name(k) for k in range(len(parent_nodes))]
        nodes.append(PartNodes(parent_nodes, attach_kind(part.tag, component.kind), names))
    assembly = assemble(parents, [c.attach for c in tree.components], nodes)
    findings += assembly.findings
    findings += _socket_checks(tree, parents, parts, nodes)
    findings += _table_checks(parts, nodes)
    return Unit(tree, parents, parts, assembly, findings)


def _table_checks(parts: list[Part], nodes: list[PartNodes | None]) -> list[Finding]:
    """Points on nodes the part has, a damage row per node: warnings, as the retail files break both (a chassis
    point without a carrier, 1 of 2 985 points off its mesh, 1 of 542 tables without a row per node:
    spec/retail-envelope.md 8.3, 8.4)."""
    out = []
    for i, (part, part_nodes) in enumerate(zip(parts, nodes)):
        if part_nodes is None:
            continue
        count = len(part_nodes.parents)
        if part.points is not None:
            for what in ("node", "carrier"):
                bad = [int(n) for n in part.points.points[what] if not 0 <= n < count]
                if bad:
                    out.append(warning(STREAM, i, f".cpt: {len(bad)} points name a {what} the model does not have "
                                                  f"(first {bad[0]}; {count} nodes): {CONSEQUENCE[what]}"))
        if part.damage is not None and len(part.damage) != count:
            out.append(warning(STREAM, i, f".ndp: {len(part.damage)} rows for a model of {count} nodes"))
    return out


def _socket_checks(tree: UnitTree, parents: list[int | None], parts: list[Part],
                   nodes: list[PartNodes | None]) -> list[Finding]:
    """An external part's socket is a Base_* node of its parent's mesh (openparkan docs/28-chassis.md: 946/946
    guns, 468/468 turrets); anything else is a warning, not an error: the engine mounts it all the same."""
    out = []
    for i, parent in enumerate(parents):
        if parent is None or nodes[i] is None or not nodes[i].external or nodes[parent] is None:
            continue
        attach = tree.components[i].attach
        host = nodes[parent]
        if 0 <= attach < len(host.names):
            name = host.names[attach] or ""
            if not name.lower().startswith("base_"):
                out.append(warning(STREAM, i, f"socket node {attach} {name!r} of {parts[parent].record!r} is no "
                                              "Base_* node"))
    return out
