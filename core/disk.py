"""Files on disk, for every kind of file the project reads or writes: regular files read whole (with a size
limit), folders listed (by lower-case name), and writes that replace their targets whole, one file or several
as one transaction."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import signal
import stat
import threading
import time
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
    replaced get their old contents back (new ones are removed), before the targets' locks are let go. While
    they are replaced a journal beside each target names the set and the old contents' backups, so that a
    writer killed between two replacements leaves a set the next read or write of any of its files puts back
    whole. SIGTERM and Ctrl-C wait for the step under way: the write is then undone (or, past its last
    replacement, finished) and tidied, and Terminated or KeyboardInterrupt raised. Each target is written as
    ``write_atomic`` writes it. Errors (OSError) name the path of the file that failed, as given.
    """
    planned = _planned(files, force)
    with _signals_deferred():
        return _transaction(planned, read_as)


@dataclass
class _Planned:
    path: str                         # as the caller gave it
    target: Path                      # the file it names (symbolic links followed)
    existing: os.stat_result | None   # None: it does not exist
    data: bytes


def _planned(files: list[tuple[str | Path, bytes]], force: bool) -> list[_Planned]:
    planned: list[_Planned] = []
    names: dict[Path, str] = {}
    identities: dict[tuple[int, int], str] = {}
    for path, data in files:
        target = Path(os.path.realpath(path))
        if target in names:
            raise InputError(errno.EINVAL, f"the same file as {printable(names[target])}", str(path))
        names[target] = str(path)
        existing = _checked_target(target, str(path), force)
        if existing is not None:  # a hard link, or a name differing only in case where case is ignored
            identity = (existing.st_dev, existing.st_ino)
            if identity in identities:
                raise InputError(errno.EINVAL, f"the same file as {printable(identities[identity])} (another "
                                               "name of it)", str(path))
            identities[identity] = str(path)
        planned.append(_Planned(str(path), target, existing, data))
    return planned


def _transaction(planned: list[_Planned], read_as: dict[str, FileState | None] | None) -> list[str]:
    temporaries: list[str] = []   # each name listed as its file is made
    backups: dict[int, str] = {}  # by target index, likewise
    replaced: list[int] = []
    journals: list[Path] = []
    notes: list[str] = []
    unrestored: list[str] = []
    current = ""
    targets = [item.target for item in planned]
    try:
        for item in planned:
            current = item.path
            _checkpoint()
            mode = stat.S_IMODE(item.existing.st_mode) if item.existing is not None else 0o666 & ~_umask()
            _written_temporary(item.target, item.data, mode, into=temporaries)
        with _locked_recovered(targets, notes):
            try:
                for i, item in enumerate(planned):
                    current = item.path
                    if read_as is not None and item.path in read_as and changed_since(item.target,
                                                                                      read_as[item.path]):
                        raise ChangedError(errno.EAGAIN, "it changed on disk after the export read it (another "
                                                         "program or export wrote it meanwhile); nothing was "
                                                         "written: export again", item.path)
                    if os.path.lexists(item.target):  # its state now: another writer may have made it meanwhile
                        _backup(item.target, backups, i)
                _checkpoint()
                if len(planned) > 1:
                    _write_journal(targets, temporaries, backups, journals)
                for i, item in enumerate(planned):
                    current = item.path
                    _checkpoint()
                    try:
                        os.replace(temporaries[i], item.target)
                    finally:  # an error raised as os.replace returns: the target was replaced all the same
                        if not os.path.lexists(temporaries[i]):
                            replaced.append(i)
                # every target replaced: what follows only tidies (no checkpoint: the write is done)
                _remove_all(journals)
                _remove_all([Path(b) for b in backups.values()])
                backups.clear()
                _remove_orphans(targets)
            except BaseException:
                if len(replaced) < len(planned):
                    unrestored += _put_back(planned, replaced, backups)
                if not unrestored:  # else they say where the old contents are, for the next read or write
                    _remove_all(journals)
                raise
    except BaseException as exc:
        _remove_all([Path(t) for i, t in enumerate(temporaries) if i not in replaced])
        _remove_all([Path(b) for b in backups.values()])
        if isinstance(exc, OSError) and not isinstance(exc, InputError) and (exc.filename != current or unrestored):
            # A failed write ("File too large", "No space left on device") carries no file name, mkstemp's the
            # temporary's: the error names the file the caller gave, and what could not be put back.
            message = "; ".join([exc.strerror or os.strerror(exc.errno or errno.EIO), *unrestored])
            raise type(exc)(exc.errno or errno.EIO, message, current) from None
        raise
    return notes


def _put_back(planned: list[_Planned], replaced: list[int], backups: dict[int, str]) -> list[str]:
    """The targets already replaced get their old contents back (a new one is removed); what could not be put
    back, in words (its backup is then kept, and named)."""
    unrestored = []
    for i in reversed(replaced):
        backup = backups.pop(i, None)
        try:
            if backup is not None:
                os.replace(backup, planned[i].target)
            else:
                os.unlink(planned[i].target)
        except OSError:  # the old contents stay in the backup, which is named in the error
            unrestored.append(f"{printable(planned[i].path)} could not be put back"
                              + (f" (its old contents are in {printable(backup)})" if backup else ""))
    return unrestored


# ------------------------------------------------------------------ a set killed half-way, and its recovery
JOURNAL_SUFFIX = ".io_msh-journal"  # beside each target of a set while its files are replaced
JOURNAL_VERSION = 2
_JOURNAL_MAX_BYTES = 1 << 20   # far above any set's (a few hundred bytes a file)
_JOURNAL_MAX_FILES = 4096


class InterruptedSetError(InputError):
    """A set of files a killed writer left half replaced, one of which something else has changed since: which
    to keep is the user's choice (the error says where the old contents are). Also a journal beside a file that
    is not one of ours, or is damaged: nothing is changed, and the error names it."""


def journal_of(target: str | Path) -> Path:
    target = Path(target)
    return target.with_name(f".{target.name}{JOURNAL_SUFFIX}")


def _identity(info: os.stat_result) -> list[int]:
    return [info.st_ino, info.st_size, info.st_mtime_ns]


def _write_journal(targets: list[Path], temporaries: list[str], backups: dict[int, str],
                   written: list[Path]) -> None:
    """The set's journal, written (flushed) beside each target before the first replacement: each target with
    its backup (None: it did not exist) and the identities of its old file (the backup's: a hard link keeps the
    inode, and putting a copy back moves the copy's in) and of its new one (the temporary, which keeps its inode
    when renamed onto the target). Each journal is listed in ``written`` before it is made."""
    entries = []
    for i, target in enumerate(targets):
        backup = backups.get(i)
        entries.append({"target": str(target), "backup": backup, "temporary": temporaries[i],
                        "new": _identity(os.stat(temporaries[i])),
                        "old": _identity(os.stat(backup)) if backup is not None else None})
    import json  # this module's write-only imports are made when a write needs them (a read stays light)
    import uuid

    text = json.dumps({"version": JOURNAL_VERSION, "set": uuid.uuid4().hex, "pid": os.getpid(),
                       "files": entries}).encode("utf-8")
    for target in targets:
        journal = journal_of(target)
        written.append(journal)
        made: list[str] = []
        try:
            os.replace(_written_temporary(target, text, 0o644, ".journal.tmp", into=made), journal)
        finally:
            _remove_all([Path(m) for m in made])


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
    since, naming it and where its old contents are, or when the journal is not one this module wrote."""
    journal = journal_of(os.path.realpath(path))
    if not os.path.lexists(journal):
        return []
    with _signals_deferred():
        notes = _recover_alone(journal)
    _RECOVERED.extend(notes)
    return notes


def _recover_alone(journal: Path) -> list[str]:
    """``_recover`` with the locks of the set's files taken here (and the journal read again under them)."""
    for _attempt in range(8):
        found = _journal(journal)
        if found is None:
            return []
        members = _members(found)
        held = _acquire([Path(e["target"]) for e in members])
        try:
            again = _journal(journal)
            if again is None:
                return []
            if again.raw == found.raw and _members(again) == members:
                return _recover(again, members)
        finally:
            _release_all(held)
    raise InputError(errno.EAGAIN, "other exports keep changing the half-written set beside it",
                     str(_journal_target(journal)))


@dataclass
class _Journal:
    path: Path
    raw: bytes
    files: list[dict]


def _journal_target(journal: Path) -> Path:
    return journal.with_name(journal.name[1:-len(JOURNAL_SUFFIX)])


def _journal(journal: Path) -> _Journal | None:
    """The journal at ``journal``, checked; None when it is gone. InterruptedSetError (nothing is touched) when it
    is not a journal this module wrote: not a regular file, empty, cut short, not JSON of our layout, not naming
    the file it is beside, or naming a backup or temporary that is not one of ours beside its target."""
    import json

    target = _journal_target(journal)
    try:
        info = os.lstat(journal)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError("it is not a regular file")
        if info.st_size > _JOURNAL_MAX_BYTES:
            raise ValueError(f"{info.st_size} bytes, more than a journal holds")
        fd = os.open(journal, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as handle:
            raw = handle.read(_JOURNAL_MAX_BYTES + 1)
        files = _journal_files(json.loads(raw), target)
    except FileNotFoundError:  # recovered meanwhile
        return None
    except (OSError, ValueError, TypeError, KeyError, RecursionError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__
        raise InterruptedSetError(errno.EINVAL, f"{printable(journal.name)} beside it is not a journal of a set of "
                                                f"files an export left half written, or it is damaged ({why}): "
                                                "nothing was changed; check the file, then remove "
                                                f"{printable(journal.name)}", str(target)) from None
    return _Journal(journal, raw, files)


def _journal_files(record: object, target: Path) -> list[dict]:
    if not isinstance(record, dict) or not isinstance(record.get("files"), list):
        raise ValueError("no list of files")
    files = record["files"]
    if not 0 < len(files) <= _JOURNAL_MAX_FILES:
        raise ValueError(f"{len(files)} files")
    seen = set()
    for entry in files:
        if not isinstance(entry, dict):
            raise ValueError("a file that is not a record")
        name = entry.get("target")
        if not isinstance(name, str) or "\0" in name or not os.path.isabs(name) or os.path.normpath(name) != name \
                or name in seen:
            raise ValueError(f"a file named {printable(str(name))}")
        seen.add(name)
        for key, suffix, optional in (("backup", ".old.tmp", True), ("temporary", ".tmp", False)):
            value = entry.get(key)
            if value is None and optional:
                continue
            if not isinstance(value, str) or not _is_ours_beside(value, Path(name), suffix):
                raise ValueError(f"the {key} {printable(str(value))} of {printable(name)}")
        for key in ("new", "old"):
            value = entry.get(key)
            if value is None and key == "old":
                continue
            if not (isinstance(value, list) and len(value) == 3 and all(type(v) is int for v in value)):
                raise ValueError(f"the {key} file of {printable(name)}")
        if (entry.get("old") is None) != (entry.get("backup") is None) and "old" in entry:
            raise ValueError(f"the backup of {printable(name)}")
    if str(target) not in seen:
        raise ValueError(f"it does not name {printable(target.name)}")
    return files


def _is_ours_beside(name: str, target: Path, suffix: str) -> bool:
    """Whether ``name`` is a temporary (or backup) of ours beside ``target``: ``.NAME.xxxxxxxx<suffix>``."""
    path = Path(name)
    prefix = f".{target.name}."
    return path.parent == target.parent and path.name.startswith(prefix) and \
        re.fullmatch(r"[a-z0-9_]{8}" + re.escape(suffix), path.name[len(prefix):]) is not None


def _members(found: _Journal) -> list[dict]:
    """The files of the set whose journal beside them is this one. All of them, unless the set is settled: its
    writer was killed while it wrote the journals (none replaced yet) or removed them (all replaced), or a
    recovery was killed as it removed them; a journal beside another file is another set's, or not ours."""
    members = []
    for entry in found.files:
        journal = journal_of(entry["target"])
        if journal == found.path:
            members.append(entry)
            continue
        try:
            if os.path.isfile(journal) and not os.path.islink(journal) and \
                    os.path.getsize(journal) == len(found.raw) and Path(journal).read_bytes() == found.raw:
                members.append(entry)
        except OSError:
            pass
    return members


def _recover(found: _Journal, members: list[dict]) -> list[str]:
    """``recover_beside`` with the locks of the set's files held."""
    entries = found.files
    if len(members) < len(entries):  # settled: only its own journals and leftovers are left to remove
        _tidy(found, members)
        return []
    states = [_state_in_set(e) for e in entries]
    names = [printable(e["target"]) for e in entries]
    kept = [f"{printable(e['target'])}: {printable(e['backup'])}" for e in entries
            if e.get("backup") and os.path.lexists(e["backup"])]
    if "other" in states:
        changed = [n for n, s in zip(names, states, strict=True) if s == "other"]
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
        lost = [printable(e["target"]) for e, s in zip(entries, states, strict=True)
                if s == "new" and e.get("backup") is not None and not _is_backup_of(e)]
        if lost:
            raise InterruptedSetError(errno.EAGAIN, f"an export was stopped while it replaced {', '.join(names)}, "
                                                    f"and the backup holding the old contents of {', '.join(lost)} "
                                                    "is missing or changed; nothing was written. Choose which "
                                                    "files to keep, then remove every "
                                                    f"{JOURNAL_SUFFIX} file beside them", entries[0]["target"])
        for entry, state in zip(entries, states, strict=True):
            if state == "new":
                if entry.get("backup") is not None:
                    os.replace(entry["backup"], entry["target"])
                else:
                    os.unlink(entry["target"])
        note = (f"an export was stopped while it replaced {', '.join(names)}: all of them were put back as they "
                "were before it")
    _tidy(found, members)
    return [note] if note else []


def _tidy(found: _Journal, members: list[dict]) -> None:
    """Remove the set's leftovers beside its files (backups, temporaries), then its journals."""
    for entry in members:
        for leftover in (entry.get("backup"), entry.get("temporary")):
            if leftover:
                with contextlib.suppress(OSError):
                    if not os.path.isdir(leftover):
                        os.unlink(leftover)
    for entry in members:
        journal = journal_of(entry["target"])
        with contextlib.suppress(OSError):
            if journal == found.path or Path(journal).read_bytes() == found.raw:
                os.unlink(journal)


def _is_backup_of(entry: dict) -> bool:
    """Whether the entry's backup still holds the old file, to be put back."""
    try:
        kept = os.lstat(entry["backup"])
    except OSError:
        return False
    if not stat.S_ISREG(kept.st_mode):
        return False
    return entry.get("old") is None or _identity(kept) == list(entry["old"])


def _state_in_set(entry: dict) -> str:
    """"new" (the target is the file the writer wrote), "old" (as before it), or "other" (changed since, or no
    longer a regular file)."""
    target, backup, old = entry["target"], entry.get("backup"), entry.get("old")
    try:
        now = os.lstat(target)
    except FileNotFoundError:
        return "old" if backup is None else "other"
    except OSError:
        return "other"
    if not stat.S_ISREG(now.st_mode):
        return "other"
    if _identity(now) == list(entry["new"]):
        return "new"
    if backup is None:
        return "other"
    if old is not None and _identity(now) == list(old):  # put back (or never replaced), its backup gone or not
        return "old"
    try:
        kept = os.lstat(backup)
        if not stat.S_ISREG(kept.st_mode):
            return "other"
        if (kept.st_ino, kept.st_dev) == (now.st_ino, now.st_dev):  # the backup is a hard link to it
            return "old"
        return "old" if Path(backup).read_bytes() == Path(target).read_bytes() else "other"
    except OSError:
        return "other"


LOCK_SUFFIX = ".io_msh-lock"  # a folder beside a file while one of our writers checks and replaces it
LOCK_STALE = 30.0  # seconds: a lock that old was left by a writer that died (checking and replacing takes ms)
LOCK_WAIT = 60.0   # seconds a writer waits for another's lock before it gives up


def _lock_of(target: Path) -> Path:
    return target.with_name(f".{target.name}{LOCK_SUFFIX}")


def _acquire(targets: list[Path]) -> list[tuple[Path, str]]:
    """Hold every target's lock (``_take``), so that checking a file is as read and replacing it is one step
    against our other writers: two exports into one archive (the batch tool's workers) would otherwise both
    find it unchanged, and the second would replace the first's edit. Locks are taken in one order, so that
    writers of several files do not wait on each other for ever. Each lock is listed before it is taken, so that
    whatever interrupts leaves none held."""
    held: list[tuple[Path, str]] = []
    ours: dict[str, Path] = {}
    try:
        for target in sorted(set(targets)):
            lock, token = _lock_of(target), _new_token()
            held.append((lock, token))
            _take(lock, target, token, ours)
            ours[token] = target
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
    for _attempt in range(8):
        held = _acquire(targets)
        try:
            found = [_journal(journal_of(t)) for t in sorted(set(targets)) if os.path.lexists(journal_of(t))]
            sets = [(f, _members(f)) for f in found if f is not None]
        except BaseException:
            _release_all(held)
            raise
        outside = [f for f, members in sets if not {Path(e["target"]) for e in members} <= set(targets)]
        if not outside:
            try:
                for journal, members in sets:
                    if os.path.lexists(journal.path):  # not removed with an earlier set's
                        notes += _recover(journal, members)
                yield
            finally:
                _release_all(held)
            return
        _release_all(held)
        for journal in outside:
            notes += recover_beside(_journal_target(journal.path))
    raise InputError(errno.EAGAIN, "other exports keep leaving half-written sets beside it", str(targets[0]))


def _new_token() -> str:
    """A lock file's name: ``owner.`` and 32 hex digits, the first 8 the writer's process id, so that the folder a
    writer killed at once after making it (``_take``: empty) tells whose it was."""
    import uuid

    return f"owner.{os.getpid() & 0xFFFFFFFF:08x}{uuid.uuid4().hex[:24]}"


def _take(lock: Path, target: Path, token: str | None = None, ours: dict[str, Path] | None = None) -> str:
    """Take ``lock``; the name of the file in it that says it is ours (``token``, or a new one). A lock is a
    folder holding one file, moved into place whole: renaming a folder onto one that holds a file fails
    everywhere (onto an empty one, which no holder leaves, it succeeds on POSIX), so a held lock is never seen
    empty and only its own file ever names it. The file's age is the lock's: a lock held longer than LOCK_STALE
    was left by a writer that died, and ``_break_if_stale`` removes it. A lock found holding one of ``ours``
    (the tokens of the locks this writer took for other names) is the same file under another name."""
    token = token or _new_token()
    mine = lock.with_name(f"{lock.name}.{token}")
    os.mkdir(mine)
    try:
        (mine / token).write_text(_owner())
        deadline = time.monotonic() + LOCK_WAIT
        while True:
            os.utime(mine / token)  # the lock's age counts from the moment it is taken
            try:
                os.rename(mine, lock)
                return token
            except OSError as exc:
                if not isinstance(exc, FileExistsError) and exc.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                    raise
            same = _same_file(lock, ours or {})
            if same is not None:
                raise InputError(errno.EINVAL, f"the same file as {printable(str(same))} (a name differing in "
                                               "case only, on a disk that ignores case)", str(target))
            if time.monotonic() > deadline:
                raise InputError(errno.EAGAIN, f"another export has been writing it for over {LOCK_WAIT:.0f} s "
                                               f"(or left {lock.name} beside it: remove that folder)", str(target))
            time.sleep(0.001 if _break_if_stale(lock) else 0.005)
            _checkpoint()
    finally:  # taken: ``mine`` is the lock now, and nothing is left under its own name
        with contextlib.suppress(OSError):
            os.unlink(mine / token)
        with contextlib.suppress(OSError):
            os.rmdir(mine)


def _same_file(lock: Path, ours: dict[str, Path]) -> Path | None:
    """The target whose lock this writer holds that ``lock`` is (its file one of ``ours``), if any."""
    try:
        return next((ours[name] for name in os.listdir(lock) if name in ours), None)
    except OSError:
        return None


def _owner() -> str:
    """Who holds a lock, written in its file: this machine and process (asked each time: a forked child is
    another process)."""
    import socket

    return f"{socket.gethostname()} {os.getpid()}"


def _owner_gone(owner: Path) -> bool:
    """Whether the process named in a lock's file is gone, on this machine: its lock is stale at once (a kill
    leaves one; waiting LOCK_STALE for it would hold the next write up for half a minute)."""
    try:
        host, pid = owner.read_text().rsplit(" ", 1)
    except (OSError, ValueError):
        return False
    import socket

    if host != socket.gethostname() or not pid.isdigit():
        return False
    return process_gone(int(pid))


def process_gone(pid: int) -> bool:
    """Whether no process ``pid`` runs on this machine (never this process)."""
    if pid == os.getpid() or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (OSError, OverflowError):  # alive, another user's
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
    import uuid

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


ORPHAN_AGE = 600.0  # seconds: a temporary of ours that old beside its target was left by a writer that was killed
#                    (a live one's is at most LOCK_WAIT old: written just before its lock)
_ORPHAN = re.compile(r"[a-z0-9_]{8}(\.old|\.journal)?\.tmp")  # after ".NAME.": tempfile.mkstemp's 8 letters
_OWN_LOCK = re.compile(r"owner\.[0-9a-f]{32}")  # after ".NAME.io_msh-lock.": a writer's own lock folder


def _remove_orphans(targets: list[Path]) -> None:
    """With the targets' locks held, remove what writers killed before their clean-up left beside them: backups
    and journals' temporaries at once (they are made only under the lock, so none is a live writer's), the new
    files' temporaries once ORPHAN_AGE old (a live writer writes them before it takes the lock), and the folders
    writers make to take a lock (``_take``) once their writer is gone."""
    now = time.time()
    for target in targets:
        prefix = f".{target.name}."
        with contextlib.suppress(OSError), os.scandir(target.parent) as entries:
            for entry in entries:
                if not entry.name.startswith(prefix):
                    continue
                rest = entry.name[len(prefix):]
                with contextlib.suppress(OSError):
                    match = _ORPHAN.fullmatch(rest)
                    if match and entry.is_file(follow_symlinks=False):
                        if match.group(1) or now - entry.stat(follow_symlinks=False).st_mtime > ORPHAN_AGE:
                            os.unlink(entry.path)
                    elif rest.startswith(LOCK_SUFFIX[1:] + ".") and _OWN_LOCK.fullmatch(rest[len(LOCK_SUFFIX):]) \
                            and entry.is_dir(follow_symlinks=False):
                        _remove_own_lock(Path(entry.path), now)


def _remove_own_lock(folder: Path, now: float) -> None:
    """A folder a writer made to take a lock with and was killed before it moved it into place: removed when its
    writer is gone or it is older than a lock can be, or it is empty (made and never filled) and older than
    LOCK_STALE."""
    names = os.listdir(folder)
    if names and names != [folder.name[folder.name.rindex(".owner.") + 1:]]:
        return  # not as our writers leave it
    if names:
        owner = folder / names[0]
        if not (_owner_gone(owner) or now - owner.stat().st_mtime > ORPHAN_AGE):
            return
        os.unlink(owner)
    elif not (process_gone(int(folder.name[-32:-24], 16)) or now - folder.stat().st_mtime > ORPHAN_AGE):
        return
    os.rmdir(folder)


def _written_temporary(target: Path, data: bytes, mode: int, suffix: str = ".tmp",
                       into: list[str] | None = None) -> str:
    """``data`` in a new temporary file beside ``target``, flushed to disk, with ``mode``; its name is added to
    ``into`` as soon as it exists (for the caller to remove whatever stops it)."""
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=suffix, dir=target.parent)
    if into is not None:
        into.append(tmp)
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


def _backup(target: Path, backups: dict[int, str], index: int) -> str:
    """A second name for the target's current file (a hard link; a copy where links are not supported), to
    put it back if a later replacement of the transaction fails; listed in ``backups`` as it is made."""
    import shutil
    import tempfile

    fd, backup = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".old.tmp", dir=target.parent)
    os.close(fd)
    backups[index] = backup
    os.unlink(backup)
    try:
        os.link(target, backup)
    except OSError:
        shutil.copy2(target, backup)
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


# ------------------------------------------------------------------ SIGTERM and Ctrl-C while files are written
class Terminated(SystemExit):
    """SIGTERM arrived while a file was being written (the write was undone)."""


class _Deferred:
    depth = 0
    pending: int | None = None


def _defer(signum, _frame) -> None:
    if _Deferred.pending is None:
        _Deferred.pending = signum


def _interruption(signum: int) -> BaseException:
    return Terminated(128 + signum) if signum == signal.SIGTERM else KeyboardInterrupt()


@contextlib.contextmanager
def _signals_deferred():
    """While files are written or recovered, SIGTERM and Ctrl-C (SIGINT at Python's own handler) wait for the
    step under way: they are raised at the next ``_checkpoint``, where nothing is half done, or, once the
    outermost such block ends (the write undone or finished, everything tidied), there. Only the main thread
    can set handlers, and only there do signals raise; elsewhere nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    outermost = _Deferred.depth == 0
    previous = {}
    if outermost:
        _Deferred.pending = None
        for signum in (signal.SIGTERM, signal.SIGINT):
            if signum == signal.SIGINT and signal.getsignal(signum) is not signal.default_int_handler:
                continue  # a program's own SIGINT handling (Blender's) is left as it is
            previous[signum] = signal.signal(signum, _defer)
    _Deferred.depth += 1
    try:
        yield
    finally:
        _Deferred.depth -= 1
        if outermost:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
            pending, _Deferred.pending = _Deferred.pending, None
            if pending is not None:
                raise _interruption(pending)


def _checkpoint() -> None:
    """Raise the SIGTERM or Ctrl-C that arrived meanwhile (``_signals_deferred``), at a point where the write
    can be undone whole."""
    if _Deferred.pending is not None and threading.current_thread() is threading.main_thread():
        pending, _Deferred.pending = _Deferred.pending, None
        raise _interruption(pending)
