"""The effect chain across archives: a node's ``.ndp`` row names an ``.exp``, the ``.exp``'s slots name FXID
effects in ``effects.rlb``, each emitter names a material (``Material.lib``) or a sound (``sounds.lib``).

Archives are read through a ``load`` callable (a file name as a reference gives it -> its bytes, or None), so this
module reads no disk itself. Names that do not resolve are warnings: retail data has some (14 of 2 203 node
explosions, one sound that was never shipped).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..container.nres import Archive, Entry, fold, name_bytes
from ..errors import Finding, FormatError, warning
from .exp import EXP_TYPE_ID, Explosion, validate_exp
from .fxid import FXID_TYPE_ID, Effect, read_fxid, validate_fxid

Loader = Callable[[str], bytes | None]
STREAM = "chain"


def validate_members(archive: Archive) -> list[Finding]:
    """Each FXID and EXPL entry's findings, placed at the entry (other entries are left to their own checks)."""
    out: list[Finding] = []
    for entry in archive:
        if entry.unreadable is not None:
            continue
        check = {FXID_TYPE_ID: validate_fxid, EXP_TYPE_ID: validate_exp}.get(entry.type_id)
        if check is not None:
            out.extend(f.located(entry.name_str) for f in check(entry.data))
    return out


def has_effects(archive: Archive) -> bool:
    return any(e.type_id in (FXID_TYPE_ID, EXP_TYPE_ID) for e in archive)


@dataclass
class Archives:
    """Archives by folded file name, each read once."""

    load: Loader
    read: dict[bytes, Archive | None] = field(default_factory=dict)

    def entry(self, archive: str, member: str) -> Entry | None:
        key = fold(name_bytes(archive))
        if key not in self.read:
            data = self.load(archive)
            try:
                self.read[key] = None if data is None else Archive.parse(data, archive)
            except FormatError:
                self.read[key] = None
        found = self.read[key]
        return None if found is None else found.find(member)


def resolve_explosion(explosion: Explosion, archives: Archives, source: str = "") -> tuple[list[dict], list[Finding]]:
    """Per filled slot: the effect it names, read, and whether each emitter's material or sound is there."""
    slots, out = [], []
    for i in explosion.filled:
        archive, member = explosion.slot(i)
        entry = archives.entry(archive, member)
        row: dict = {"slot": i, "archive": archive, "member": member, "found": entry is not None}
        if entry is None:
            out.append(warning(STREAM, i, f"{source}: slot {i} names {archive}/{member}, which is not there"))
        else:
            try:
                effect, _ = read_fxid(entry.data, f"{archive}/{member}")
            except FormatError as exc:
                out.extend(exc.findings)
                effect = None
            if effect is not None:
                row["references"], missing = effect_references(effect, archives)
                out.extend(warning(STREAM, i, f"{archive}/{member}: emitter {e} names {a}/{m}, which is not there")
                           for e, a, m in missing)
        slots.append(row)
    return slots, out


def effect_references(effect: Effect, archives: Archives) -> tuple[list[dict], list[tuple[int, str, str]]]:
    rows, missing = [], []
    for i, emitter in enumerate(effect.emitters):
        if emitter.reference is None:
            continue
        archive, member = emitter.reference
        found = archives.entry(archive, member) is not None
        rows.append({"emitter": i, "archive": archive, "member": member, "found": found})
        if not found:
            missing.append((i, archive, member))
    return rows, missing
