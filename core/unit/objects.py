"""``objects.rlb``: the records a unit's components name (dragonee/openparkan docs/07-objects.md,
openparkan/assembly.py).

An NRes archive. Each entry is one record: the entry name is the record key (looked up case-insensitively),
the entry type its tag, and the payload a list of 64-byte slots ``char archive[32], char member[32]``. A
file is chosen by its member's extension. A member without a suffix names another record that supplies
what this one lacks (FORT buildings: op:openparkan/assembly.py follows at most three such hops).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..container.nres import Archive, Entry, name_bytes
from ..errors import Finding, FormatError, error, warning
from .text import BLOCK, block_name, block_text

SLOT_SIZE = 2 * BLOCK
STREAM = "objects.rlb"
MAX_HOPS = 3  # redirects followed; every retail placed object reaches its .msh within 3 (spec/retail-envelope.md 8.2)
EXTENSIONS = (".msh", ".wea", ".cpt", ".ndp", ".ctl")


def tag_id(tag: str) -> int:
    return int.from_bytes(tag.encode("ascii"), "little")


def tag_text(type_id: int) -> str:
    raw = (type_id & 0xFFFFFFFF).to_bytes(4, "little")
    return raw.decode("ascii") if all(32 <= b < 127 for b in raw) else f"{type_id:#x}"


# Slot counts by tag on the retail objects.rlb (measured by dragonee/openparkan).
SLOT_COUNTS = {"STAT": (6,), "INTO": (5,), "EXTO": (5,), "BULL": (5,), "WPNS": (5,), "BTLU": (5, 7),
               "FORT": (2,), "SUNO": (2,)}
# How a part's attach is read (dragonee/openparkan docs/28-chassis.md): EXTO = a socket node of the parent's
# mesh, INTO = a component index in the parent's controller. Other tags are read as their class says (see
# resolve.attach_kind).
EXTERNAL, INTERNAL = "EXTO", "INTO"


@dataclass
class Slot:
    archive_raw: bytes
    member_raw: bytes

    @property
    def archive(self) -> str:
        return block_text(self.archive_raw)

    @property
    def member(self) -> str:
        return block_text(self.member_raw)

    @property
    def empty(self) -> bool:
        return not block_name(self.archive_raw) and not block_name(self.member_raw)

    @property
    def extension(self) -> str:
        """The member's suffix in lower case (``.msh``), '' for a suffix-less redirect."""
        name = block_name(self.member_raw).lower()
        dot = name.rfind(b".")
        return name[dot:].decode("latin-1") if dot > 0 else ""

    def to_bytes(self) -> bytes:
        return self.archive_raw + self.member_raw


@dataclass
class Record:
    key: str
    tag: str
    slots: list[Slot]

    def slot(self, extension: str) -> Slot | None:
        return next((s for s in self.slots if not s.empty and s.extension == extension), None)

    def redirects(self) -> list[Slot]:
        return [s for s in self.slots if not s.empty and not s.extension]

    def to_bytes(self) -> bytes:
        return b"".join(s.to_bytes() for s in self.slots)


def parse_record(entry: Entry) -> Record:
    data = bytes(entry.data)
    if len(data) % SLOT_SIZE:
        raise FormatError.single(STREAM, None, f"record {entry.name_str!r}: {len(data)} bytes is not a whole number "
                                               f"of {SLOT_SIZE}-byte slots")
    slots = [Slot(data[i:i + BLOCK], data[i + BLOCK:i + SLOT_SIZE]) for i in range(0, len(data), SLOT_SIZE)]
    return Record(entry.name_str, tag_text(entry.type_id), slots)


@dataclass
class Lookup:
    """Where a record's file of one extension lies, and the records read to find it."""

    slot: Slot | None
    chain: list[str]
    findings: list[Finding]


def find_record(archive: Archive, key: str | bytes) -> Record | None:
    """The record named ``key`` (ASCII case-insensitive); FormatError when its payload is not slots."""
    entry = archive.find(key)
    return None if entry is None else parse_record(entry)


def lookup(archive: Archive, key: str | bytes, extension: str) -> Lookup:
    """The slot holding ``key``'s member of ``extension``, following suffix-less redirects depth first, in
    slot order.

    At most MAX_HOPS redirects deep; a redirect back to a record on the current path (itself included) is a
    cycle. A cycle, a missing or broken record and a chain too long are error findings; a record reached
    twice along different paths is read once. Work is bounded by the archive's records and slots.
    """
    findings: list[Finding] = []
    path: list[tuple[bytes, str]] = []   # (folded key, shown key) of the records being followed
    visited: list[str] = []
    done: set[bytes] = set()

    def visit(name: bytes | str, hops: int) -> Slot | None:
        try:
            raw = name_bytes(name)
        except FormatError as exc:
            findings.extend(exc.findings)
            return None
        folded = raw.lower()
        if any(folded == key for key, _shown in path):
            route = " -> ".join([shown for _key, shown in path] + [block_text(raw)])
            findings.append(error(STREAM, None, f"record {block_text(raw)!r}: redirects run in a cycle ({route})"))
            return None
        if folded in done:
            return None
        done.add(folded)
        try:
            record = find_record(archive, raw)
        except FormatError as exc:
            findings.extend(exc.findings)
            return None
        if record is None:
            where = f" (redirected from {path[-1][1]!r})" if path else ""
            findings.append(error(STREAM, None, f"no record {block_text(raw)!r}{where}"))
            return None
        path.append((folded, record.key))
        visited.append(record.key)
        slot = record.slot(extension)
        if slot is not None:
            return slot
        for redirect in record.redirects():
            if hops >= MAX_HOPS:
                findings.append(error(STREAM, None, f"record {record.key!r}: more than {MAX_HOPS} redirects "
                                                    f"looking for {extension}"))
                break
            found = visit(block_name(redirect.member_raw), hops + 1)
            if found is not None:
                return found
        path.pop()
        return None

    slot = visit(key, 0)
    chain = [shown for _key, shown in path] if slot is not None else visited
    return Lookup(slot, chain, findings)


def validate_objects(archive: Archive) -> list[Finding]:
    """Every record: slots whole, names terminated, slot counts as the tag has them, redirects resolving."""
    out: list[Finding] = []
    seen: dict[bytes, int] = {}
    for i, entry in enumerate(archive.entries):
        name = entry.name_str
        key = entry.name.lower()
        if key in seen:
            out.append(warning(STREAM, i, f"record {name!r} repeats record {seen[key]} (names ignore case); "
                                          "lookups find the first"))
            continue
        seen[key] = i
        try:
            record = parse_record(entry)
        except FormatError as exc:
            out += [Finding(f.severity, f.stream, i, f.message) for f in exc.findings]
            continue
        tag = record.tag
        if tag not in SLOT_COUNTS:
            out.append(warning(STREAM, i, f"record {name!r}: tag {tag} is none the sources list"))
        elif len(record.slots) not in SLOT_COUNTS[tag]:
            counts = " or ".join(map(str, SLOT_COUNTS[tag]))
            out.append(warning(STREAM, i, f"record {name!r}: {len(record.slots)} slots, {tag} has {counts}"))
        for s, slot in enumerate(record.slots):
            if b"\0" not in slot.archive_raw or b"\0" not in slot.member_raw:  # unmeasured: read as 32 bytes
                out.append(warning(STREAM, i, f"record {name!r} slot {s}: a name has no NUL within its 32 bytes "
                                              "(read as 32 bytes)"))
        if record.redirects():
            reported = set()
            for extension in EXTENSIONS:
                if record.slot(extension) is None:
                    for f in lookup(archive, record.key, extension).findings:
                        if f.message not in reported:
                            reported.add(f.message)
                            out.append(Finding(f.severity, f.stream, i, f.message))
    return out
