"""The one write path: every writer of the project (the model, unit, map and engine exports, the batch tool, the
library, ``core rewrite``) hands its files to ``write``, which owns what every one of them must get right:

- what was read, and when: a target changed on disk since its writer's source read it is refused
  (``ChangedError``), unless it is a file this process wrote itself (``written_here``: a record that Blender's
  undo does not take back) or the caller says to replace changed files;
- which targets, of which kind: a file is replaced only by one of its own kind (core.kinds: no terrain over a
  mission, no glTF over a model), and an existing file that the writer neither read nor owns (the user named
  it, or it belongs to the object exported) is left alone unless the caller says to replace it;
- what is not edited stays as it is: a target whose new bytes are the ones its writer read is not written (a
  change another program made meanwhile is kept), nor is one already holding the new bytes;
- the whole set or nothing: core.disk.write_files, with its recovery of a set a killed writer left half
  replaced.

The Blender side (the scene as the user sees it, the mode put back) is io_msh.exp.write_scene.
"""

from __future__ import annotations

import errno
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from .disk import ChangedError, FileState, InputError, read_input, write_files
from .kinds import described, kind_of, replaceable


class _Unread:
    def __repr__(self) -> str:
        return "UNREAD"

    def __reduce__(self) -> str:  # pickled or copied (a Target sent to a worker), it is still the one UNREAD
        return "UNREAD"


UNREAD = _Unread()  # a target its writer never read


@dataclass(frozen=True)
class Target:
    """One file a writer replaces (or makes)."""

    path: str
    data: bytes
    read: bytes | FileState | _Unread | None = UNREAD  # the file as the writer's source read it (its bytes or
    #                                                    state; None: it did not exist then)
    owned: bool = False     # the user named it, or it belongs to the object exported: replaced whatever it holds
    #                         of its kind, read or not
    kind: str | None = None  # what ``data`` is (core.kinds); None: told from the bytes
    spliced: bool = False   # ``data`` is the file as ``read`` just now with the edits put in (an archive's other
    #                         entries kept): any change since that read refuses, even this process's own write


@dataclass
class Written:
    written: list[str] = field(default_factory=list)    # replaced or made
    unchanged: list[str] = field(default_factory=list)  # left as they are: nothing of the writer's changes them
    notes: list[str] = field(default_factory=list)      # sets a killed writer left, recovered first


_WRITTEN: dict[str, set[str]] = {}  # real path -> digests of the bytes this process wrote there


def written_here(path: str | Path) -> frozenset[str]:
    """The SHA-256 digests of what this process wrote at ``path``."""
    return frozenset(_WRITTEN.get(os.path.realpath(path), ()))


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write(targets: list[Target], force: bool = False, replace_changed: bool = False,
          replace_unread: bool = False) -> Written:
    """Write ``targets`` as one set (all of them or none), after every check above. ``force``: read-only targets
    too; ``replace_changed``: targets changed since they were read too; ``replace_unread``: existing files the
    writer neither read nor owns too. Raises OSError (InputError, ChangedError, PermissionError) naming the file,
    before anything is written."""
    result = Written()
    files: list[tuple[str, bytes]] = []
    states: dict[str, FileState | None] = {}
    for target in targets:
        current = _current(target.path)
        data_digest = digest(target.data)
        if current is not None and current[1].sha256 == data_digest:
            result.unchanged.append(target.path)
            continue
        ours = not target.spliced and current is not None and current[1].sha256 in written_here(target.path)
        if not ours and _unedited(target, data_digest):
            result.unchanged.append(target.path)  # another program's change to it, if any, is kept
            continue
        if current is not None:
            _check_kind(target, current[0])
            if target.read is UNREAD and not target.owned and not replace_unread and not ours:  # ours: written here
                raise InputError(errno.EEXIST, "the file exists and is not one the export read or names: it was "
                                               "not replaced (nothing was written)", target.path)
        if not ours and not replace_changed and target.read is not UNREAD and \
                _differs(current, target.read):
            raise ChangedError(errno.EAGAIN, _CHANGED_SPLICED if target.spliced else _CHANGED, target.path)
        files.append((target.path, target.data))
        states[target.path] = current[1] if current is not None else None
    if files:
        result.notes = write_files(files, force=force, read_as=states)
    for path, data in files:
        _WRITTEN.setdefault(os.path.realpath(path), set()).add(digest(data))
        result.written.append(path)
    return result


_CHANGED = ("it changed on disk after the import read it (another program or export wrote it meanwhile); nothing "
            "was written: import it again, or export with Replace Changed Files to write over that change")
_CHANGED_SPLICED = ("it changed on disk after the export read it (another program or export wrote it meanwhile); "
                    "nothing was written: export again")


def _current(path: str) -> tuple[bytes, FileState] | None:
    """The file's bytes and state now; None when it does not exist. A folder or other non-file is left to
    core.disk's checks (None)."""
    try:
        before = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError:
        return None
    if not Path(path).is_file():
        return None
    data = read_input(path)
    return data, FileState(before.st_size, before.st_mtime_ns, digest(data))


def _unedited(target: Target, data_digest: str) -> bool:
    """Whether the writer writes the bytes it read: nothing of the scene changes this file."""
    read = target.read
    if isinstance(read, bytes | bytearray | memoryview):
        return digest(bytes(read)) == data_digest
    if isinstance(read, FileState):
        return read.sha256 == data_digest
    return False


def _differs(current: tuple[bytes, FileState] | None, read: bytes | FileState | None) -> bool:
    if read is None:
        return current is not None
    if current is None:
        return True
    if isinstance(read, FileState):
        return read.sha256 != current[1].sha256
    return digest(bytes(read)) != current[1].sha256


def _check_kind(target: Target, current: bytes) -> None:
    old, new = kind_of(current), target.kind or kind_of(target.data)
    if not replaceable(old, new):
        raise InputError(errno.EINVAL, f"it holds {described(old)}, and this export writes {described(new)}: it "
                                       f"was not replaced (nothing was written); choose another file",
                         target.path)
