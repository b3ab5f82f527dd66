"""``UNITS/**/*.dat`` unit trees (dragonee/openparkan docs/07-objects.md): which parts make a unit and where
each one sits.

Layout: u32 magic 0xF0F1, u32 class word (the unit Type), then 112-byte components with no count field.
The components are the tree in depth-first pre-order: each one owns the next ``children`` subtrees. Every
byte is kept: the 32-byte name blocks hold bytes after their NUL in most retail files, and some have no
NUL at all, so a component writes back its own blocks and only an edited name changes its block.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from ..errors import Finding, FormatError, error, warning
from .text import block_name, block_text, fold_text, with_text

MAGIC = 0x0000F0F1
HEADER = struct.Struct("<II")
COMPONENT = struct.Struct("<32s32sIi32sIi")
COMPONENT_SIZE = COMPONENT.size  # 112
STREAM = "dat"
NO_ATTACH = -1
ARCHIVE = b"objects.rlb"

CLASSES = {0: "chassis", 1: "turret", 2: "armour", 3: "internal", 4: "gun", 5: "ammo clip"}
UNIT_TYPES = {  # dragonee/openparkan docs/30-turrets.md: robots; buildings have bit 31
    0x01008000: "battle robot", 0x01002000: "transport", 0x01004000: "builder", 0x01010000: "HQ",
    0x01020000: "hero", 0x80001000: "bridge",
}


def type_name(word: int) -> str:
    if word in UNIT_TYPES:
        return UNIT_TYPES[word]
    return "building" if word & 0x80000000 else "unknown type"


@dataclass
class Component:
    archive_raw: bytes = ARCHIVE.ljust(32, b"\0")
    record_raw: bytes = bytes(32)
    flags: int = 1
    attach: int = NO_ATTACH
    display_raw: bytes = bytes(32)
    kind: int = 0          # class at +0x68
    children: int = 0      # child count at +0x6C

    @classmethod
    def new(cls, record: str, kind: int, attach: int = NO_ATTACH, display: str = "", children: int = 0,
            flags: int = 1) -> Component:
        """A component with fresh name blocks (zero after each NUL)."""
        return cls(with_text(bytes(32), ARCHIVE), with_text(bytes(32), record), flags, attach,
                   with_text(bytes(32), display), kind, children)

    @property
    def archive(self) -> str:
        return block_text(self.archive_raw)

    @property
    def record(self) -> str:
        return block_text(self.record_raw)

    @property
    def record_key(self) -> bytes:
        """The record name as bytes, for the case-insensitive objects.rlb lookup."""
        return block_name(self.record_raw)

    @property
    def display(self) -> str:
        return block_text(self.display_raw)

    @property
    def class_name(self) -> str:
        return CLASSES.get(self.kind, f"class {self.kind}")

    def set_record(self, name: str | bytes) -> None:
        self.record_raw = with_text(self.record_raw, name)

    def to_bytes(self) -> bytes:
        return COMPONENT.pack(self.archive_raw, self.record_raw, self.flags & 0xFFFFFFFF, self.attach,
                              self.display_raw, self.kind & 0xFFFFFFFF, self.children)


@dataclass
class UnitTree:
    type_word: int = 0x01008000
    components: list[Component] = field(default_factory=list)
    magic: int = MAGIC
    tail: bytes = b""  # bytes past the last whole component (an error; kept so the file still writes back)

    def to_bytes(self) -> bytes:
        return HEADER.pack(self.magic, self.type_word) + b"".join(c.to_bytes() for c in self.components) + self.tail

    def parents(self) -> list[int | None]:
        """Each component's parent index (None for the root). FormatError naming the first broken count."""
        parents, findings = tree_parents([c.children for c in self.components])
        if findings:
            raise FormatError(findings)
        return parents


def tree_parents(counts: list[int]) -> tuple[list[int | None], list[Finding]]:
    """The pre-order tree of child counts: each component's parent, and what breaks the tree.

    One pass with a stack of (component, children still owed); nothing is sized by a count, so a huge or
    negative count costs nothing but its finding.
    """
    parents: list[int | None] = []
    findings: list[Finding] = []
    stack: list[list[int]] = []
    total = len(counts)
    for i, count in enumerate(counts):
        if i and not stack:
            findings.append(error(STREAM, i, f"component lies outside the root's tree: the root's subtree ends "
                                             f"before it ({total - i} components left over)"))
            parents += [None] * (total - i)
            return parents, findings
        parents.append(stack[-1][0] if stack else None)
        if stack:
            stack[-1][1] -= 1
            if stack[-1][1] == 0:
                stack.pop()
                while stack and stack[-1][1] == 0:
                    stack.pop()
        if count < 0:
            findings.append(error(STREAM, i, f"negative child count {count}"))
            continue
        after = total - i - 1
        if count > after:
            findings.append(error(STREAM, i, f"child count {count} runs past the end: {after} components follow"))
            stack.append([i, min(count, after)])  # read on, so that later problems are found too
        elif count:
            stack.append([i, count])
    if stack and not findings:
        owner, owed = stack[-1]
        findings.append(error(STREAM, owner, f"{owed} children of this component are missing at the end of the "
                                             "file"))
    return parents, findings


def parse_dat(data: bytes | memoryview, source: str = "") -> UnitTree:
    """The file's header and components; FormatError when it is not a unit tree at all (too short, bad magic).

    A broken tree still parses (``validate_dat`` names what is wrong), so that it writes back byte for byte.
    """
    raw = bytes(data)
    if len(raw) < HEADER.size:
        raise FormatError.single(STREAM, None, f"{len(raw)} bytes: a unit tree starts with an 8-byte header",
                                 source)
    magic, type_word = HEADER.unpack_from(raw, 0)
    if magic != MAGIC:
        raise FormatError.single(STREAM, None, f"bad magic {magic:#010x}, expected {MAGIC:#010x}", source)
    count = (len(raw) - HEADER.size) // COMPONENT_SIZE
    components = [Component(*COMPONENT.unpack_from(raw, HEADER.size + i * COMPONENT_SIZE)) for i in range(count)]
    return UnitTree(type_word, components, magic, raw[HEADER.size + count * COMPONENT_SIZE:])


def validate_dat(data: bytes | memoryview) -> list[Finding]:
    """Everything the file alone can say: the layout, the tree, the names, the root."""
    try:
        tree = parse_dat(data)
    except FormatError as exc:
        return exc.findings
    out: list[Finding] = []
    if tree.tail:
        out.append(error(STREAM, None, f"{len(tree.tail)} bytes after the last whole 112-byte component"))
    if not tree.components:
        out.append(error(STREAM, None, "no components: a unit needs at least its root"))
        return out
    parents, problems = tree_parents([c.children for c in tree.components])
    out += problems
    if tree.type_word not in UNIT_TYPES and not tree.type_word & 0x80000000:
        out.append(warning(STREAM, None, f"class word {tree.type_word:#010x} is no unit type the sources list"))
    for i, (component, parent) in enumerate(zip(tree.components, parents)):
        if not component.record_key:  # no record: the part is left out, as the 3 retail parts without one
            out.append(warning(STREAM, i, "empty objects.rlb record name: the part is left out"))
        if fold_text(component.archive_raw) != ARCHIVE:
            out.append(warning(STREAM, i, f"archive {component.archive!r}: the game's units name objects.rlb"))
        for what, block in (("archive", component.archive_raw), ("record", component.record_raw)):
            if b"\0" not in block:  # IS2 ships NUL-less name blocks (spec/retail-envelope.md 8.1): read as 32 bytes
                out.append(warning(STREAM, i, f"{what} name has no NUL within its 32 bytes (read as 32 bytes)"))
        if component.kind not in CLASSES:
            out.append(warning(STREAM, i, f"class {component.kind} is none of 0..5"))
        if i == 0 and component.attach != NO_ATTACH:
            out.append(warning(STREAM, 0, f"the root's attach is {component.attach}, -1 on every retail unit"))
        if i and component.attach < 0:  # not measured on the retail parts (spec/retail-envelope.md 17)
            out.append(warning(STREAM, i, f"attach {component.attach}: a part needs a socket node or a component "
                                          "index in its parent"))
        if parent is not None and fold_text(component.record_raw) == fold_text(tree.components[parent].record_raw):
            out.append(warning(STREAM, i, f"names its own parent's record {component.record!r}"))
    return out
