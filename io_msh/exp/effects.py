"""Explosion edits made in the scene, for the export to write: an explosion Empty (io_msh.imp.effects) whose
kind, damage, radius or placement property differs from the value it was imported with names its archive and
member; those fields, and only they, are spliced into the archive (core.effects.edit). Effects (FXID) are not
written."""

from __future__ import annotations

import json
import os
from collections.abc import Callable

from ...core.container.nres import Archive
from ...core.effects.edit import EDITABLE, edit_explosion
from ...core.errors import FormatError, printable
from ..com import props as P
from ..com.hierarchy import descendants

EXPLOSION_PLACES = ("explode", "damage")


def explosion_edits(root) -> dict[str, dict[str, dict]]:
    """Archive path -> member -> the fields edited, over the explosion Empties below ``root``. FormatError for an
    edited explosion whose archive is not known, or two Empties of one explosion edited to different values (so
    that no edit is dropped silently)."""
    out: dict[str, dict[str, dict]] = {}
    for obj in descendants(root):
        if obj.get(P.EFFECT_PLACE) not in EXPLOSION_PLACES or P.EFFECT_PARAMS not in obj:
            continue
        read = json.loads(obj[P.EFFECT_PARAMS])
        edited = {k: _plain(obj.get(f"{P.EFFECT}_{k}")) for k in EDITABLE
                  if _plain(obj.get(f"{P.EFFECT}_{k}")) != read.get(k)}
        if not edited:
            continue
        path = P.stored_path(obj, P.EFFECT_FILE)
        if not path:
            raise FormatError.single("scene", None, f"explosion {printable(obj.name)!r} was edited but the archive "
                                                    "it came from is not known: import the model again")
        member = str(obj[P.EFFECT]).split("/", 1)[-1]
        fields = out.setdefault(path, {}).setdefault(member, {})
        for key, value in edited.items():
            if key in fields and fields[key] != value:  # two copies of one explosion, edited apart
                raise FormatError.single("scene", None, f"explosion {member} is edited twice, {key} {fields[key]!r} "
                                                        f"and {value!r}: make the Empties agree or delete one")
            fields[key] = value
    return out


def explosion_files(root, archive_at: Callable[[str], Archive], skip: str | None = None) -> list[tuple[str, bytes]]:
    """Each archive holding edited explosions, edits spliced in (``archive_at(path)``: the archive as read now).
    ``skip``: the export's own target, whose archive (the same object from ``archive_at``) the export writes."""
    out = []
    for path, members in explosion_edits(root).items():
        archive = archive_at(path)
        for member, fields in members.items():
            edit_explosion(archive, member, fields, path)
        if skip is None or os.path.realpath(path) != os.path.realpath(skip):
            out.append((path, archive.to_bytes()))
    return out


def remember_written(root) -> None:
    """After the export wrote its files: each explosion Empty's values are now what its file holds, so that an
    edit taken back later (a value set back to the one imported) is an edit too."""
    for obj in descendants(root):
        if obj.get(P.EFFECT_PLACE) not in EXPLOSION_PLACES or P.EFFECT_PARAMS not in obj or P.EFFECT_FILE not in obj:
            continue
        read = json.loads(obj[P.EFFECT_PARAMS])
        now = {k: _plain(obj.get(f"{P.EFFECT}_{k}")) for k in EDITABLE}
        if any(read.get(k) != v for k, v in now.items()):
            read.update(now)
            obj[P.EFFECT_PARAMS] = json.dumps(read, sort_keys=True)


def _plain(value):
    """A custom property's value as Python (an IDProperty array or a float kept as it is)."""
    return value.to_list() if hasattr(value, "to_list") else value
