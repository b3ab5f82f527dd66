"""What this process's exports wrote into archive entries (models, their material lists), a record Ctrl+Z does
not take back: the scene's own record of it (a root's P.WRITTEN) is undone with the edit. Only the entry's own
record counts: an archive this process wrote carries other programs' entries as they were, so the archive's
record (core.write_path.written_here) says nothing of them."""

from __future__ import annotations

import os

from ...core.write_path import digest

_WRITTEN: dict[tuple[str, str], list[str]] = {}  # (archive's real path, entry name) -> digests, oldest first


def remember(archive: str, entry: str, data: bytes) -> None:
    """``data`` was written into ``entry`` of the archive at ``archive``."""
    _WRITTEN.setdefault((os.path.realpath(archive), entry), []).append(digest(data))


def written(archive: str, entry: str) -> list[str]:
    """The digests of what this process wrote into ``entry`` of the archive at ``archive``, oldest first."""
    return list(_WRITTEN.get((os.path.realpath(archive), entry), ()))
