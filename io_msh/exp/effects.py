"""Explosion edits made in the scene, for the export to write: an explosion Empty (io_msh.imp.effects) whose
kind, damage, radius or placement property differs from the value it was imported with names its archive and
member; those fields, and only they, are spliced into the archive (core.effects.edit). Effects (FXID) are not
written.

The Empty's record of its values (imported, or as last exported) is undone with the scene; so when the explosion
in the archive is one this process wrote (io_msh.exp.entries_written, a record Ctrl+Z does not take back), the
Empty is compared with the file instead: after an export and an undo, the next export writes what the scene shows
again. An explosion another program changed meanwhile is compared with the Empty's record, so that its change is
kept in the fields the scene does not edit."""

from __future__ import annotations

import json
import os
from collections.abc import Callable

from ...core.container.nres import Archive
from ...core.effects.edit import EDITABLE, edit_explosion
from ...core.effects.exp import EXP_TYPE_ID, parse_exp
from ...core.errors import FormatError, printable
from ...core.write_path import digest
from ..com import props as P
from ..com.hierarchy import children_map, descendants
from . import entries_written

EXPLOSION_PLACES = ("explode", "damage")
# archive's real path -> member -> the bytes the last explosion_files spliced in (remember_written records them)
_SPLICED: dict[str, dict[str, bytes]] = {}


def explosion_objects(roots) -> list:
    """The objects below ``roots`` (a model's root, or a unit's part roots)."""
    roots = list(roots) if isinstance(roots, (list, tuple)) else [roots]
    children = children_map()
    return [obj for root in roots for obj in descendants(root, children)]


def explosion_edits(roots, archive_at: Callable[[str], Archive] | None = None) -> dict[str, dict[str, dict]]:
    """Archive path -> member -> the fields edited, over the explosion Empties below ``roots``: those that differ
    from the Empty's record, or, when ``archive_at(path)`` (the archive as read now) holds the explosion as this
    process wrote it, from the file. FormatError for an edited explosion whose archive is not known, or two
    Empties of one explosion edited to different values (so that no edit is dropped silently)."""
    out: dict[str, dict[str, dict]] = {}
    held: dict[tuple[str, str], dict | None] = {}
    for obj in explosion_objects(roots):
        if obj.get(P.EFFECT_PLACE) not in EXPLOSION_PLACES or P.EFFECT_PARAMS not in obj:
            continue
        path = P.stored_path(obj, P.EFFECT_FILE)
        member = str(obj[P.EFFECT]).split("/", 1)[-1]
        if path and archive_at is not None and (path, member) not in held and entries_written.written(path, member):
            held[path, member] = _ours(archive_at(path), path, member)
        read = held.get((path, member)) or json.loads(obj[P.EFFECT_PARAMS])
        edited = {k: _plain(obj.get(f"{P.EFFECT}_{k}")) for k in EDITABLE
                  if _plain(obj.get(f"{P.EFFECT}_{k}")) != read.get(k)}
        if not edited:
            continue
        if not path:
            raise FormatError.single("scene", None, f"explosion {printable(obj.name)!r} was edited but the archive "
                                                    "it came from is not known: import the model again")
        fields = out.setdefault(path, {}).setdefault(member, {})
        for key, value in edited.items():
            if key in fields and fields[key] != value:  # two copies of one explosion, edited apart
                raise FormatError.single("scene", None, f"explosion {member} is edited twice, {key} {fields[key]!r} "
                                                        f"and {value!r}: make the Empties agree or delete one")
            fields[key] = value
    return out


def explosion_files(roots, archive_at: Callable[[str], Archive], skip: str | None = None) -> list[tuple[str, bytes]]:
    """Each archive holding edited explosions, edits spliced in (``archive_at(path)``: the archive as read now).
    ``skip``: the export's own target, whose archive (the same object from ``archive_at``) the export writes."""
    out = []
    _SPLICED.clear()
    for path, members in explosion_edits(roots, archive_at).items():
        archive = archive_at(path)
        for member, fields in members.items():
            if edit_explosion(archive, member, fields, path):
                _SPLICED.setdefault(os.path.realpath(path), {})[member] = bytes(archive.find(member).data)
        if skip is None or os.path.realpath(path) != os.path.realpath(skip):
            out.append((path, archive.to_bytes()))
    return out


def remember_written(roots, files: list[tuple[str, bytes]] = ()) -> None:
    """After the export wrote ``files``: the explosions it changed in them are recorded as this process's
    (io_msh.exp.entries_written), and each explosion Empty's values are now what its file holds, so that an edit
    taken back later (a value set back to the one imported, or an undo) is an edit too."""
    for path, _data in files:
        for member, data in _SPLICED.pop(os.path.realpath(path), {}).items():
            entries_written.remember(path, member, data)
    for obj in explosion_objects(roots):
        if obj.get(P.EFFECT_PLACE) not in EXPLOSION_PLACES or P.EFFECT_PARAMS not in obj or P.EFFECT_FILE not in obj:
            continue
        read = json.loads(obj[P.EFFECT_PARAMS])
        now = {k: _plain(obj.get(f"{P.EFFECT}_{k}")) for k in EDITABLE}
        if any(read.get(k) != v for k, v in now.items()):
            read.update(now)
            obj[P.EFFECT_PARAMS] = json.dumps(read, sort_keys=True)


def _ours(archive: Archive, path: str, member: str) -> dict | None:
    """The explosion's fields as the archive holds it, when that is what this process wrote there; else None."""
    entry = archive.find(member)
    if entry is None or entry.type_id != EXP_TYPE_ID or \
            digest(bytes(entry.data)) not in entries_written.written(path, member):
        return None
    explosion = parse_exp(entry.data, f"{path}:{member}")
    return {k: getattr(explosion, k) for k in EDITABLE}


def _plain(value):
    """A custom property's value as Python (an IDProperty array or a float kept as it is)."""
    return value.to_list() if hasattr(value, "to_list") else value
