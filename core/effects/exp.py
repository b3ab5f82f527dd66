"""``.exp`` explosions (NRes type EXPL; dragonee/openparkan docs/11-effects.md ".exp", docs/26-damage.md):
a fixed 792-byte record, all fields named but two constant words (kept as read).

+0 i32 hit kind (1 effect only, 2 whole damage to the struck node, 3 area blast, 4 shields only), +4 f32
damage, +8 f32 radius, +12 and +16 f32 unread (1.0 on every retail file), +20 i32 placement (which axis orients
the effect, 0..7), +24 twelve (archive, member) pairs of 32-byte names: slot 0 the effect, slot s + 1 the
effect for struck surface class s.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..container.nres import name_bytes
from ..errors import Finding, FormatError, warning
from ..unit.text import BLOCK, block_name, block_text, with_text

STREAM = "exp"
EXP_TYPE_ID = int.from_bytes(b"EXPL", "little")
SLOT_COUNT = 12
SLOT = np.dtype([("archive", (np.void, BLOCK)), ("member", (np.void, BLOCK))])
RECORD = np.dtype([("kind", "<i4"), ("damage", "<f4"), ("radius", "<f4"), ("unread", "<f4", (2,)),
                   ("placement", "<i4"), ("slots", SLOT, (SLOT_COUNT,))])
SIZE = RECORD.itemsize  # 792 on all 144 retail explosions
assert SIZE == 792

HIT_KINDS = {1: "effect only", 2: "whole damage to the struck node", 3: "area blast", 4: "shields only"}
PLACEMENTS = {0: "node's second axis", 1: "node's first axis", 2: "node's first axis", 3: "node's third axis",
              4: "object's axes", 5: "object's axes", 6: "object's axes", 7: "struck face's vector"}
# The struck surface class each slot 1..11 answers (slot s + 1 for class s), by the retail member tags.
SURFACE_TAGS = ("sn", "st", "gr", "sw", "ic", "mt", "gr", "wt", "al", "an", "sh")


@dataclass
class Explosion:
    """One ``.exp`` as read: the record keeps every byte, so an unedited explosion writes back identically."""

    record: np.ndarray = field(default_factory=lambda: _blank())

    @property
    def kind(self) -> int:
        return int(self.record["kind"])

    @property
    def damage(self) -> float:
        return float(self.record["damage"])

    @property
    def radius(self) -> float:
        return float(self.record["radius"])

    @property
    def placement(self) -> int:
        return int(self.record["placement"])

    def set(self, name: str, value: float | int) -> None:
        """Set kind, damage, radius or placement; a value equal to the one read keeps its bytes."""
        if name not in ("kind", "damage", "radius", "placement"):
            raise FormatError.single(STREAM, None, f"{name!r} is not a field of an explosion")
        old = self.record[name].copy()
        new = np.array(value, RECORD.fields[name][0])
        same_nan = new.dtype.kind == "f" and np.isnan(new) and np.isnan(old)
        if new.tobytes() != old.tobytes() and new != old and not same_nan:
            self.record[name] = new

    def slot(self, index: int) -> tuple[str, str]:
        """Slot ``index``'s (archive, member) as text; ("", "") when the slot is empty."""
        s = self.record["slots"][index]
        return block_text(bytes(s["archive"])), block_text(bytes(s["member"]))

    def set_slot(self, index: int, archive: str | bytes, member: str | bytes) -> None:
        """Name slot ``index``; the bytes after each name's NUL are kept (FormatError for a name past 31 bytes)."""
        if not 0 <= index < SLOT_COUNT:
            raise FormatError.single(STREAM, index, f"an explosion has {SLOT_COUNT} slots")
        s = self.record["slots"][index]
        for part, text in (("archive", archive), ("member", member)):
            raw = bytes(s[part])
            if block_name(raw) != name_bytes(text):
                s[part] = np.void(with_text(raw, text))

    @property
    def filled(self) -> list[int]:
        """The slots that name a member."""
        return [i for i in range(SLOT_COUNT) if block_name(bytes(self.record["slots"][i]["member"]))]

    def to_bytes(self) -> bytes:
        return self.record.tobytes()

    def summary(self) -> dict:
        return {"kind": self.kind, "kind_meaning": HIT_KINDS.get(self.kind, "unknown"), "damage": self.damage,
                "radius": self.radius, "unread": [float(v) for v in self.record["unread"]],
                "placement": self.placement, "placement_meaning": PLACEMENTS.get(self.placement, "unknown"),
                "slots": [{"slot": i, "archive": self.slot(i)[0], "member": self.slot(i)[1]} for i in self.filled]}


def _blank() -> np.ndarray:
    record = np.zeros((), RECORD)
    record["unread"] = (1.0, 1.0)
    return record


def explosion_of(kind: int, damage: float, radius: float, placement: int,
                 slots: list[tuple[str, str]]) -> Explosion:
    """A new explosion: the two unread words 1.0 as the game ships them, ``slots`` filled from slot 0."""
    if len(slots) > SLOT_COUNT:
        raise FormatError.single(STREAM, None, f"{len(slots)} slots given; an explosion has {SLOT_COUNT}")
    out = Explosion()
    out.record["kind"], out.record["damage"], out.record["radius"] = kind, damage, radius
    out.record["placement"] = placement
    for i, (archive, member) in enumerate(slots):
        out.set_slot(i, archive, member)
    return out


def parse_exp(data: bytes | memoryview, source: str = "") -> Explosion:
    """FormatError unless the record is exactly 792 bytes (the size of all 144 retail explosions)."""
    raw = bytes(data)
    if len(raw) != SIZE:
        raise FormatError.single(STREAM, None, f"{len(raw)} bytes: an explosion is {SIZE} bytes", source)
    return Explosion(np.frombuffer(raw, RECORD, 1)[0].copy())


def read_exp(data: bytes | memoryview, source: str = "") -> tuple[Explosion, list[Finding]]:
    """The explosion and the warnings about its values (kept as read): FormatError only for the size."""
    explosion = parse_exp(data, source)
    return explosion, _value_checks(explosion)


def validate_exp(data: bytes | memoryview) -> list[Finding]:
    """The size (an error); warnings for values no retail explosion has (kept: the game reads them as they are)."""
    try:
        return read_exp(data)[1]
    except FormatError as exc:
        return exc.findings


def _value_checks(e: Explosion) -> list[Finding]:
    out: list[Finding] = []
    if e.kind not in HIT_KINDS:
        out.append(warning(STREAM, None, f"hit kind {e.kind} is none of 1-4 (kept)"))
    if not (np.isfinite(e.damage) and np.isfinite(e.radius)):
        out.append(warning(STREAM, None, "damage or radius is not finite (kept)"))
    elif e.damage < 0 or e.radius < 0:
        out.append(warning(STREAM, None, f"negative damage {e.damage} or radius {e.radius} (kept)"))
    if e.placement not in PLACEMENTS:
        out.append(warning(STREAM, None, f"placement {e.placement} is none of 0-7 (kept)"))
    for i in range(SLOT_COUNT):
        s = e.record["slots"][i]
        for part in ("archive", "member"):
            if b"\0" not in bytes(s[part]):
                out.append(warning(STREAM, i, f"slot {part} name has no NUL within its {BLOCK} bytes"))
        if bool(block_name(bytes(s["archive"]))) != bool(block_name(bytes(s["member"]))):
            out.append(warning(STREAM, i, "slot names an archive or a member but not both"))
    return out

