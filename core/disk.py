"""Files on disk, for every kind of file the project reads or writes: regular files read whole (with a size
limit), folders listed (by lower-case name), and writes that replace their targets whole, one file or several
as one transaction."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import stat
import tempfile
import time
import uuid
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .errors import printable

MAX_FILE_BYTES = 1 << 30  # far above any game file (the largest retail archives are tens of MB)


class InputError(OSError):
    """A path that is not a file the library reads: not a regular file, or too large."""


class ChangedError(OSError):
    """A file changed on disk between reading it and replacing it."""


def read_input(path: str | Path) -> bytes:
    """A regular file's bytes; InputError for a device, pipe or folder, or a file over MAX_FILE_BYTES. A set of
    files a killed writer left half replaced, this one among them, is put back first (``recover_beside``)."""
    if os.path.lexists(journal_of(os.path.realpath(path))):
        recover_beside(path)
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise InputError(errno.EINVAL, "not a regular file", str(path))
    if info.st_size > MAX_FILE_BYTES:
        raise InputError(errno.EFBIG, f"{info.st_size} bytes, more than the {MAX_FILE_BYTES} a game file can be",
                         str(path))
    return Path(path).read_bytes()


SETTLED_NS = 2_000_000_000  # a folder changed this recently may change again without a new mtime


def names_in(folder: str | Path) -> dict[str, str]:
    """The names in ``folder`` by their lower-case form (the game's file system ignores case). A batch looks up
    libraries and WEAR files beside every model, so a folder is listed once per modification time; one changed
    in the last 2 s is listed afresh, as mtimes are only as fine as the kernel's clock tick. Raises OSError."""
    mtime_ns = os.stat(folder).st_mtime_ns
    if time.time_ns() - mtime_ns < SETTLED_NS:
        return _listing(str(folder))
    return _settled_listing(str(folder), mtime_ns)


def _listing(folder: str) -> dict[str, str]:
    return {name.lower(): name for name in os.listdir(folder)}


@lru_cache(maxsize=16)
def _settled_listing(folder: str, mtime_ns: int) -> dict[str, str]:
    return _listing(folder)


def write_atomic(path: str | Path, data: bytes, force: bool = False) -> None:
    """Write through a temporary file in the same folder, then rename: never a half-written target.

    The target keeps its identity: its permission bits (a new file gets the umask's), and a symbolic link is
    written through to the file it names, as ``cp`` does. A read-only target is refused unless ``force``.
    SIGTERM during the write, like Ctrl-C, leaves no temporary file. Errors name ``path``, not the temporary.
    """
    write_files([(path, data)], force=force)


@dataclass(frozen=True)
class FileState:
    """A file as it was read: to tell whether something else wrote it since."""

    size: int
    mtime_ns: int
    sha256: str


def read_with_state(path: str | Path) -> tuple[bytes, FileState]:
    """``read_input`` and the state of the file the bytes came from (raises OSError, InputError)."""
    before = os.stat(path)
    data = read_input(path)
    return data, FileState(before.st_size, before.st_mtime_ns, hashlib.sha256(data).hexdigest())


def changed_since(path: str | Path, state: FileState | None) -> bool:
    """Whether the file at ``path`` is no longer the one read with ``state`` (None: it did not exist)."""
    try:
        now = os.stat(path)
    except FileNotFoundError:
        return state is not None
    if state is None:
        return True
    if (now.st_size, now.st_mtime_ns) != (state.size, state.mtime_ns):
        return True
    return hashlib.sha256(Path(path).read_bytes()).hexdigest() != state.sha256


def write_files(files: list[tuple[str | Path, bytes]], force: bool = False,
                read_as: dict[str, FileState | None] | None = None) -> list[str]:
    """Write several files as one transaction: all of them, or none. Returns what was recovered first (see
    ``recover_beside``): a set of files an earlier writer was killed while replacing, put back as it was.

    Every target is checked first (a regular file or none, not read-only unless ``force``, no two paths
    naming one file), then every file is written to a temporary beside its target; only when all are written
    do they replace their targets, one after the other, and when a replacement fails the targets already
    replaced get their old contents back (new ones are removed). While they are replaced a journal beside each
    target names the set and the old contents' backups, so that a writer killed between two replacements
    leaves a set the next read or write of any of its files puts back whole. Each target is written as
    ``write_atomic`` writes it. Errors (OSError) name the path of the file that failed, as given.
    """
    planned = []
    seen: dict[Path, str] = {}
    for path, data in files:
        target = Path(os.path.realpath(path))
        if target in seen:
            raise InputError(errno.EINVAL, f"the same file as {printable(seen[target])}", str(path))
        seen[target] = str(path)
        planned.append((str(path), target, _checked_target(target, str(path), force), data))
    temporaries: list[str] = []
    backups: dict[int, str] = {}
    replaced: list[int] = []
    journal: list[Path] = []
    notes: list[str] = []
    current = ""
    try:
        with _terminate_raises():
            for path, target, existing, data in planned:
                current = path
                mode = stat.S_IMODE(existing.st_mode) if existing is not None else 0o666 & ~_umask()
                temporaries.append(_written_temporary(target, data, mode))
            with _locked_recovered([target for _path, target, _existing, _data in planned], notes):
                for i, (path, target, _existing, _data) in enumerate(planned):
                    current = path
                    if read_as is not None and path in read_as and changed_since(target, read_as[path]):
                        raise ChangedError(errno.EAGAIN, "it changed on disk after the export read it (another "
                                                         "program or export wrote it meanwhile); nothing was "
                                                         "written: export again", path)
                    if os.path.lexists(target):  # its state now: another writer may have made it meanwhile
                        backups[i] = _backup(target)
                if len(planned) > 1:
                    journal = _write_journal([t for _p, t, _e, _d in planned], temporaries, backups)
                for i, (path, target, _existing, _data) in enumerate(planned):
                    current = path
                    try:
                        os.replace(temporaries[i], target)
                    finally:  # SIGTERM or Ctrl-C raising as os.replace returns: the target was replaced
                        if not os.path.lexists(temporaries[i]):
                            replaced.append(i)
                _remove_all(journal)
    except BaseException as exc:
        unrestored = []
        for i in reversed(replaced):  # the earlier targets get their old contents back
            backup = backups.pop(i, None)
            try:
                if backup is not None:
                    os.replace(backup, planned[i][1])
                else:
                    os.unlink(planned[i][1])
            except OSError:  # the old contents stay in the backup, which is named in the error
                unrestored.append(f"{printable(planned[i][0])} could not be put back"
                                  + (f" (its old contents are in {printable(backup)})" if backup else ""))
        if not unrestored:
            _remove_all(journal)
        for leftover in [*temporaries[len(replaced):], *backups.values()]:
            with contextlib.suppress(OSError):
                os.unlink(leftover)
        if isinstance(exc, OSError) and not isinstance(exc, InputError) and (exc.filename != current or unrestored):
            # A failed write ("File too large", "No space left on device") carries no file name, mkstemp's the
            # temporary's: the error names the file the caller gave, and what could not be put back.
            message = "; ".join([exc.strerror or os.strerror(exc.errno or errno.EIO), *unrestored])
            raise type(exc)(exc.errno or errno.EIO, message, current) from None
        raise
    for backup in backups.values():
        with contextlib.suppress(OSError):
            os.unlink(backup)
    for _path, target, _existing, _data in planned:
        _remove_orphans(target)
    return notes


# ------------------------------------------------------------------ a set killed half-way, and its recovery
JOURNAL_SUFFIX = ".io_msh-journal"  # beside each target of a set while its files are replaced


class InterruptedSetError(InputError):
    """A set of files a killed writer left half replaced, one of which something else has changed since: which
    to keep is the user's choice (the error says where the old contents are)."""


def journal_of(target: str | Path) -> Path:
    target = Path(target)
    return target.with_name(f".{target.name}{JOURNAL_SUFFIX}")


def _write_journal(targets: list[Path], temporaries: list[str], backups: dict[int, str]) -> list[Path]:
    """The set's journal, written (flushed) beside each target before the first replacement: each target with
    its backup (None: it did not exist) and the identity of its new file (the temporary, which keeps its inode
    when renamed onto the target)."""
    entries = []
    for i, target in enumerate(targets):
        new = os.stat(temporaries[i])
        entries.append({"target": str(target), "backup": backups.get(i), "temporary": temporaries[i],
                        "new": [new.st_ino, new.st_size, new.st_mtime_ns]})
    text = json.dumps({"version": 1, "pid": os.getpid(), "files": entries}).encode("utf-8")
    written = []
    try:
        for target in targets:
            journal = journal_of(target)
            written.append(journal)  # first: a signal raising as os.replace returns leaves it listed
            os.replace(_written_temporary(target, text, 0o644, ".journal.tmp"), journal)
    except BaseException:
        _remove_all(written)
        raise
    return written


def _remove_all(paths: list[Path]) -> None:
    for path in paths:
        with contextlib.suppress(OSError):
            os.unlink(path)


_RECOVERED: list[str] = []


def recovery_notes() -> list[str]:
    """What reads have recovered since the last call (``recover_beside``), for a program to report."""
    notes = list(_RECOVERED)
    _RECOVERED.clear()
    return notes


def recover_beside(path: str | Path) -> list[str]:
    """Put back the set of files a writer was killed while replacing, when ``path`` is one of them (a journal
    beside it): every file of the set gets its contents from before that write, or, when the writer had replaced
    them all, keeps the new ones. What was done, in words; InterruptedSetError when a file of the set changed
    since, naming it and where its old contents are."""
    journal = journal_of(os.path.realpath(path))
    if not os.path.lexists(journal):
        return []
    try:
        files = [Path(e["target"]) for e in json.loads(journal.read_bytes())["files"]]
    except (OSError, ValueError, KeyError, TypeError):
        files = [Path(os.path.realpath(path))]
    held = _acquire(files)
    try:
        notes = _recover(journal)
    finally:
        _release_all(held)
    _RECOVERED.extend(notes)
    return notes


def _recover(journal: Path) -> list[str]:
    """``recover_beside`` with the set's locks held."""
    try:
        record = json.loads(journal.read_bytes())
        entries = record["files"]
    except FileNotFoundError:  # recovered meanwhile
        return []
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InterruptedSetError(errno.EINVAL, f"{journal.name} beside it, left by an export that was stopped, "
                                                f"cannot be read ({exc}): check the files that export wrote, "
                                                "then remove it", str(journal.with_name(journal.name[1:-len(
                                                    JOURNAL_SUFFIX)]))) from None
    states = [_state_in_set(e) for e in entries]
    names = [printable(e["target"]) for e in entries]
    if "other" in states:
        changed = [n for n, s in zip(names, states, strict=True) if s == "other"]
        kept = [f"{printable(e['target'])}: {printable(e['backup'])}" for e in entries if e.get("backup")]
        raise InterruptedSetError(errno.EAGAIN, f"an export was stopped while it replaced {', '.join(names)}, "
                                                f"and {', '.join(changed)} changed since; nothing was written. "
                                                "The files as they were before that export are kept in "
                                                f"{'; '.join(kept) or 'no backup (they were new)'}: put back "
                                                "those you want, then remove every "
                                                f"{JOURNAL_SUFFIX} file beside them", entries[0]["target"])
    if all(s == "new" for s in states):
        note = f"an export stopped before it had tidied up had written all of {', '.join(names)}: kept"
    elif all(s == "old" for s in states):
        note = ""
    else:
        for entry, state in zip(entries, states, strict=True):
            if state == "new":
                if entry.get("backup"):
                    os.replace(entry["backup"], entry["target"])
                else:
                    os.unlink(entry["target"])
        note = (f"an export was stopped while it replaced {', '.join(names)}: all of them were put back as they "
                "were before it")
    for entry in entries:
        for leftover in (entry.get("backup"), entry.get("temporary")):
            if leftover:
                with contextlib.suppress(OSError):
                    os.unlink(leftover)
    _remove_all([journal_of(e["target"]) for e in entries])
    return [note] if note else []


def _state_in_set(entry: dict) -> str:
    """"new" (the target is the file the writer wrote), "old" (as before it), or "other" (changed since)."""
    target, backup = entry["target"], entry.get("backup")
    try:
        now = os.stat(target)
    except FileNotFoundError:
        return "old" if backup is None else "other"
    if [now.st_ino, now.st_size, now.st_mtime_ns] == list(entry["new"]):
        return "new"
    if backup is None:
        return "other"
    try:
        kept = os.stat(backup)
    except FileNotFoundError:
        return "other"
    if (kept.st_ino, kept.st_dev) == (now.st_ino, now.st_dev):  # the backup is a hard link to it
        return "old"
    return "old" if Path(backup).read_bytes() == Path(target).read_bytes() else "other"


LOCK_SUFFIX = ".io_msh-lock"  # a folder beside a file while one of our writers checks and replaces it
LOCK_STALE = 30.0  # seconds: a lock that old was left by a writer that died (checking and replacing takes ms)
LOCK_WAIT = 60.0   # seconds a writer waits for another's lock before it gives up


def _acquire(targets: list[Path]) -> list[tuple[Path, str]]:
    """Hold every target's lock (``_take``), so that checking a file is as read and replacing it is one step
    against our other writers: two exports into one archive (the batch tool's workers) would otherwise both
    find it unchanged, and the second would replace the first's edit. Locks are taken in one order, so that
    writers of several files do not wait on each other for ever."""
    held: list[tuple[Path, str]] = []
    try:
        for target in sorted(set(targets)):
            lock = target.with_name(f".{target.name}{LOCK_SUFFIX}")
            held.append((lock, _take(lock, target)))
    except BaseException:
        _release_all(held)
        raise
    return held


def _release_all(held: list[tuple[Path, str]]) -> None:
    for lock, token in reversed(held):
        _release(lock, token)


@contextlib.contextmanager
def _locked_recovered(targets: list[Path], notes: list[str]):
    """The targets' locks held, once every set a killed writer left half replaced among them is put back
    (``_recover``; a set reaching past the targets is recovered under its own locks, then these are taken again).
    What was recovered is added to ``notes``."""
    for _attempt in range(4):
        held = _acquire(targets)
        journals = [journal_of(t) for t in sorted(set(targets)) if os.path.lexists(journal_of(t))]
        outside = [j for j in journals if not _set_within(j, targets)]
        if not outside:
            try:
                for journal in journals:
                    notes += _recover(journal)
                yield
            finally:
                _release_all(held)
            return
        _release_all(held)
        for journal in outside:
            notes += recover_beside(journal.with_name(journal.name[1:-len(JOURNAL_SUFFIX)]))
    raise InputError(errno.EAGAIN, "other exports keep leaving half-written sets beside it", str(targets[0]))


def _set_within(journal: Path, targets: list[Path]) -> bool:
    try:
        files = {Path(e["target"]) for e in json.loads(journal.read_bytes())["files"]}
    except (OSError, ValueError, KeyError, TypeError):
        return True  # unreadable: _recover names it
    return files <= set(targets)


def _take(lock: Path, target: Path) -> str:
    """Take ``lock``; the name of the file in it that says it is ours. A lock is a folder holding one file,
    moved into place whole: renaming a folder onto one that holds a file fails everywhere (onto an empty one,
    which no holder leaves, it succeeds on POSIX), so a held lock is never seen empty and only its own file
    ever names it. The file's age is the lock's: a lock held longer than LOCK_STALE was left by a writer that
    died, and ``_break_if_stale`` removes it."""
    token = f"owner.{uuid.uuid4().hex}"
    mine = lock.with_name(f"{lock.name}.{token}")
    os.mkdir(mine)
    try:
        (mine / token).write_text(_OWNER)
        deadline = time.monotonic() + LOCK_WAIT
        while True:
            os.utime(mine / token)  # the lock's age counts from the moment it is taken
            try:
                os.rename(mine, lock)
                return token
            except OSError as exc:
                if not isinstance(exc, FileExistsError) and exc.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                    raise
            if time.monotonic() > deadline:
                raise InputError(errno.EAGAIN, f"another export has been writing it for over {LOCK_WAIT:.0f} s "
                                               f"(or left {lock.name} beside it: remove that folder)", str(target))
            time.sleep(0.001 if _break_if_stale(lock) else 0.005)
    finally:  # taken: ``mine`` is the lock now, and nothing is left under its own name
        with contextlib.suppress(OSError):
            os.unlink(mine / token)
        with contextlib.suppress(OSError):
            os.rmdir(mine)


_OWNER = f"{socket.gethostname()} {os.getpid()}"  # who holds a lock, written in its file


def _owner_gone(owner: Path) -> bool:
    """Whether the process named in a lock's file is gone, on this machine: its lock is stale at once (a kill
    leaves one; waiting LOCK_STALE for it would hold the next write up for half a minute)."""
    try:
        host, pid = owner.read_text().rsplit(" ", 1)
    except (OSError, ValueError):
        return False
    if host != socket.gethostname() or not pid.isdigit() or int(pid) == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:  # alive, another user's
        return False
    return False


def _release(lock: Path, token: str) -> None:
    try:
        os.unlink(lock / token)
    except OSError:  # broken as stale meanwhile (held past LOCK_STALE): nothing of ours is left to remove
        return
    with contextlib.suppress(OSError):  # fails when another writer's lock has already replaced the empty folder
        os.rmdir(lock)


def _break_if_stale(lock: Path) -> bool:
    """Remove ``lock`` when a writer that died left it (its file older than LOCK_STALE); whether to try taking
    it again at once. The stale file is first claimed by renaming it (only one writer can move one file), then
    removed; a claimer that died is claimed from in turn, and a claimer whose claim was taken backs off. Only an
    empty folder is removed (``rmdir``), and no held lock is ever empty."""
    try:
        names = os.listdir(lock)
    except FileNotFoundError:  # released meanwhile
        return True
    except OSError:
        return False
    if not names:  # between a release's two steps, or left by a writer killed in them
        with contextlib.suppress(OSError):
            os.rmdir(lock)
        return True
    try:
        if time.time() - os.stat(lock / names[0]).st_mtime <= LOCK_STALE and not _owner_gone(lock / names[0]):
            return False
    except FileNotFoundError:  # released or claimed meanwhile
        return True
    except OSError:
        return False
    claim = lock / f"claim.{uuid.uuid4().hex}"
    try:
        os.rename(lock / names[0], claim)
        os.unlink(claim)  # fails when a later writer has claimed it from this one
    except OSError:
        return True
    with contextlib.suppress(OSError):
        os.rmdir(lock)
    return True


def _checked_target(target: Path, path: str, force: bool) -> os.stat_result | None:
    """The target's status (None when it does not exist); raises OSError naming ``path`` when it cannot be
    replaced."""
    try:
        existing = os.stat(target)
    except FileNotFoundError:
        existing = None
    except OSError as exc:  # a path through a file, a folder that cannot be searched
        raise _named(exc, path) from None
    if existing is not None and stat.S_ISDIR(existing.st_mode):
        raise InputError(errno.EISDIR, "is a folder; name the file to write", str(path))
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        raise InputError(errno.EINVAL, "not a regular file", path)
    if existing is not None and not existing.st_mode & 0o222 and not force:
        raise PermissionError(errno.EACCES, "the file is read-only (force to replace it)", path)
    if not target.parent.is_dir():
        folder = printable(str(target.parent))
        raise FileNotFoundError(errno.ENOENT, f"{os.strerror(errno.ENOENT)} (no folder {folder})", path)
    if not os.access(target.parent, os.W_OK | os.X_OK):
        raise PermissionError(errno.EACCES, f"its folder {printable(str(target.parent))} is not writable", path)
    return existing


ORPHAN_AGE = 600.0  # seconds: a temporary or backup of ours that old beside its target was left by a writer
#                    that was killed (a live one's is at most LOCK_WAIT old, written just before its lock)
_ORPHAN = re.compile(r"[a-z0-9_]{8}(\.old|\.journal)?\.tmp")  # after ".NAME.": tempfile.mkstemp's 8 letters


def _remove_orphans(target: Path) -> None:
    """Remove the temporaries and backups (``_written_temporary``, ``_backup``) that writers killed before
    their clean-up left beside ``target``, once they are ORPHAN_AGE old."""
    prefix, now = f".{target.name}.", time.time()
    with contextlib.suppress(OSError), os.scandir(target.parent) as entries:
        for entry in entries:
            if entry.name.startswith(prefix) and _ORPHAN.fullmatch(entry.name[len(prefix):]):
                with contextlib.suppress(OSError):
                    if entry.is_file(follow_symlinks=False) and now - entry.stat().st_mtime > ORPHAN_AGE:
                        os.unlink(entry.path)


def _written_temporary(target: Path, data: bytes, mode: int, suffix: str = ".tmp") -> str:
    """``data`` in a new temporary file beside ``target``, flushed to disk, with ``mode``."""
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=suffix, dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return tmp


def _backup(target: Path) -> str:
    """A second name for the target's current file (a hard link; a copy where links are not supported), to
    put it back if a later replacement of the transaction fails."""
    fd, backup = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".old.tmp", dir=target.parent)
    os.close(fd)
    try:
        os.unlink(backup)
        os.link(target, backup)
    except OSError:
        try:
            shutil.copy2(target, backup)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(backup)
            raise
    return backup


def _named(exc: OSError, path: str | Path) -> OSError:
    """The same error, naming ``path`` (errors without an errno keep their text)."""
    if exc.errno is None:
        return OSError(errno.EIO, f"{exc}", str(path))
    return type(exc)(exc.errno, exc.strerror or os.strerror(exc.errno), str(path))


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class Terminated(SystemExit):
    """SIGTERM arrived while a file was being written (the write was undone)."""


@contextlib.contextmanager
def _terminate_raises():
    """While writing, SIGTERM raises Terminated (so the temporary file is removed) instead of ending the
    process on the spot. Only the main thread can set handlers; elsewhere nothing changes."""
    def handler(signum, frame):
        raise Terminated(128 + signum)

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
