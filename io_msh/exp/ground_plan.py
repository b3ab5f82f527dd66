"""A building's ground plan (its ``.bas``, shown by Import Unit as the two closed loops ``inner`` and ``outer``)
written back by Export Unit: a plan whose corners moved replaces its entry in the archive the building's record
names (``fortif.rlb``), in the same set of files as the unit's models and tree (core.write_path: all or none). An
unmoved plan writes nothing; a plan whose entry another program changed since the import is refused unless the
user replaces changed files."""

from __future__ import annotations

import os

import bpy
import numpy as np

from ...core.cli.unit import game_folder, locate
from ...core.errors import FormatError, printable
from ...core.write_path import digest
from ..com import props as P
from ..imp.hallway import PLAN_ARCHIVE, PLAN_ENTRY, PLAN_READ
from . import entries_written
from .export import existing_archive
from .hallway_edit import shown_ground_plan


def ground_plan_objects(root) -> list[bpy.types.Object]:
    return [o for o in bpy.data.objects if o.type == "MESH" and P.GROUND_PLAN in o and o.get(P.HALLWAY) == root]


def shown_corners(obj, root) -> tuple[np.ndarray, np.ndarray | None]:
    """The plan object's vertices in the root's frame (from the edit mesh when it is in Edit Mode: the user stays
    there) and its ``ring`` attribute (None when removed)."""
    if obj.mode == "EDIT":
        import bmesh

        mesh = bmesh.from_edit_mesh(obj.data)
        co = np.array([v.co[:] for v in mesh.verts], np.float64).reshape(-1, 3)
        layer = mesh.verts.layers.int.get("ring")
        ring = None if layer is None else np.array([v[layer] for v in mesh.verts], np.int64)
    else:
        mesh = obj.data
        flat = np.zeros(len(mesh.vertices) * 3, np.float32)
        mesh.vertices.foreach_get("co", flat)
        co = flat.reshape(-1, 3).astype(np.float64)
        attribute = mesh.attributes.get("ring")
        ring = None
        if attribute is not None and attribute.domain == "POINT" and attribute.data_type == "INT":
            ring = np.zeros(len(mesh.vertices), np.int32)
            attribute.data.foreach_get("value", ring)
    to_root = np.array(root.matrix_world.inverted_safe() @ obj.matrix_world)
    if not np.allclose(to_root, np.eye(4), atol=1e-6):  # the object itself was moved
        co = co @ to_root[:3, :3].T + to_root[:3, 3]
    return co, ring


def ground_plan_edits(roots: dict, source: str, archives: dict, read_as: dict,
                      replace_changed: bool = False) -> dict[str, list]:
    """Put each part's moved ground plan into its archive (read into ``archives``, real path -> (path, archive),
    its state into ``read_as``, as the unit export reads the parts' archives); the archives changed (real path)
    -> (plan object, entry name, bytes) written there, for ``remember``. The plan is written when the scene
    shows other bytes than the entry holds and the entry holds what the scene was imported with (or last wrote,
    or this process wrote there: an edit exported and taken back by Ctrl+Z is written back); an entry another
    program changed is kept when the scene shows no edit, and refused when it does (unless ``replace_changed``)."""
    changed: dict[str, list] = {}
    folder = game_folder(source)
    for root in roots.values():
        for obj in ground_plan_objects(root):
            raw = obj.get(PLAN_READ)
            if raw is None or PLAN_ENTRY not in obj:
                continue  # imported before plans were written back: shown only
            raw, name = bytes(raw), str(obj[PLAN_ENTRY])
            where = f"{printable(str(obj[P.GROUND_PLAN]))} (object {printable(obj.name)})"
            co, ring = shown_corners(obj, root)
            data = shown_ground_plan(raw, where, co, ring, source)
            path = locate(folder, str(obj[PLAN_ARCHIVE]))
            session = entries_written.written(str(path), name) if path is not None else []
            if data == raw and not session:
                continue  # nothing of the scene changes it (the archive is not even read)
            if path is None:
                raise FormatError.single("bas", None, f"ground plan {where}: its archive "
                                                      f"{printable(str(obj[PLAN_ARCHIVE]))} is not below the game "
                                                      f"folder {printable(str(folder))} any more", source)
            archive = existing_archive(str(path), read_as, archives)
            entry = archive.find(name)
            if entry is None:
                raise FormatError.single("bas", None, f"ground plan {where}: the archive has no entry "
                                                      f"{printable(name)} any more (changed since the import); "
                                                      "import the unit again", str(path))
            now = bytes(entry.data)
            if now == data:
                continue
            if now != raw and digest(now) not in session:  # another program changed it since
                if data == raw:
                    continue  # the scene shows no edit: that change is kept
                if not replace_changed:
                    raise FormatError.single("bas", None, f"ground plan {where} was changed by another program "
                                                          "since the import; writing the scene's would lose that "
                                                          "change (Replace Changed Files overrides)", str(path))
            entry.data = data
            changed.setdefault(os.path.realpath(path), []).append((obj, name, data))
    return changed


def remember(changed: dict[str, list]) -> None:
    """After the write: each plan object now describes the bytes written, and this process's record (which
    Ctrl+Z does not take back) holds them."""
    for real, written in changed.items():
        for obj, name, data in written:
            P.store_bytes(obj, PLAN_READ, data)
            entries_written.remember(real, name, data)
