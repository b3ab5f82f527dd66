"""Opening a file from disk: a model or an archive of models, and strict or tolerant reads."""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import stat
import tempfile
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .animation.controller.codec import CTLD_TYPE_ID, validate_ctld
from .appearance.mat0 import MAT0_TYPE_ID, validate_mat0
from .appearance.texm import TEXM_TYPE_ID, validate_texm
from .appearance.wear import WEAR_TYPE_ID, validate_wear
from .container.nres import Archive, Entry, fold, name_bytes
from .errors import Finding, FormatError, SelectionError, has_errors, printable
from .msh.model import Model, looks_like_model
from .msh.validate import validate_model


@dataclass
class Container:
    """A file as read: either one model, or an archive holding models (and other entries)."""

    path: str
    archive: Archive
    is_model: bool

    @property
    def source(self) -> str:
        return self.path

    def model_entries(self) -> list[Entry]:
        return [] if self.is_model else self.archive.models()

    def distinct_model_entries(self) -> list[Entry]:
        """The model entries, each payload once (entries aliasing an earlier one's bytes are left out)."""
        return [e for e in self.model_entries() if e.alias_of is None]

    def model_names(self) -> list[str]:
        return [self.file_name] if self.is_model else [e.name_str for e in self.model_entries()]

    @property
    def file_name(self) -> str:
        """The file's name, printable (a model file's model is named after it)."""
        return printable(Path(self.path).name)

    def open_model(self, entry_name: str | None = None) -> Model:
        """The model itself, or the nested model named ``entry_name`` (ASCII case-insensitive).

        An archive holding exactly one model needs no name.
        """
        if self.is_model:
            if entry_name is not None:
                raise SelectionError.single("entry", None, "--entry names a nested model, but this file is a model",
                                            self.path)
            return Model(self.archive, self.file_name)
        return self.open_entry(self._model_entry(entry_name))

    def open_entry(self, entry: Entry) -> Model:
        """A nested model given by its entry (names may repeat: the entry, not its name, says which)."""
        try:
            return Model.parse(entry.data, entry.name_str)
        except FormatError as exc:
            raise FormatError([f.located(entry.name_str) for f in exc.findings], self.path) from None

    def _model_entry(self, entry_name: str | None) -> Entry:
        """The model named ``entry_name`` (ASCII case-insensitive; the first of equal names), or ``#N``:
        the archive's entry N, for names that repeat."""
        models = self.model_entries()
        if entry_name is None:
            if len(models) == 1:
                return models[0]
            names = ", ".join(e.name_str for e in models) or "none"
            message = f"archive holds {len(models)} models ({names}); choose one with --entry"
            raise SelectionError.single("entry", None, message, self.path)
        try:
            key = fold(name_bytes(entry_name))
        except FormatError:
            key = None
        for entry in models:
            if fold(entry.name) == key:
                return entry
        entry = self.archive.find(entry_name)
        if entry is not None:
            return entry
        if entry_name.startswith("#") and entry_name[1:].isdigit() and int(entry_name[1:]) < len(self.archive):
            return self.archive.entries[int(entry_name[1:])]
        raise SelectionError.single("entry", None, f"no model named {entry_name!r} in the archive", self.path)

    def replace_model(self, entry_name: str, model: Model) -> None:
        """Put a model's bytes back into the archive in place of the entry named ``entry_name``."""
        entry = self._model_entry(entry_name)
        entry.data = model.to_bytes()

    def to_bytes(self) -> bytes:
        return self.archive.to_bytes()


def read_container(data: bytes, path: str = "") -> Container:
    archive = Archive.parse(data, source=path)
    return Container(path, archive, looks_like_model(archive))


MAX_FILE_BYTES = 1 << 30  # far above any game file (the largest retail archives are tens of MB)


class InputError(OSError):
    """A path that is not a file the library reads: not a regular file, or too large."""


def read_input(path: str | Path) -> bytes:
    """A regular file's bytes; InputError for a device, pipe or folder, or a file over MAX_FILE_BYTES."""
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise InputError(errno.EINVAL, "not a regular file", str(path))
    if info.st_size > MAX_FILE_BYTES:
        raise InputError(errno.EFBIG, f"{info.st_size} bytes, more than the {MAX_FILE_BYTES} a game file can be",
                         str(path))
    return Path(path).read_bytes()


def open_container(path: str | Path) -> Container:
    """Read a file; OSError for I/O problems (InputError for what is not a readable file), FormatError for bad
    data."""
    return read_container(read_input(path), str(path))


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


def read_model(data: bytes, name: str = "", strict: bool = False) -> tuple[Model, list[Finding]]:
    """Read one model NRes and validate it.

    Tolerant (default): returns the model and all findings; raises only when
    the container itself does not parse. Strict: raises FormatError carrying
    every finding when any of them is an error.
    """
    model = Model.parse(data, name)
    findings = validate_model(model)
    if strict and has_errors(findings):
        raise FormatError(findings, name)
    return model, findings


def validate_container(container: Container) -> list[Finding]:
    """Every finding of the file: of the model, or of each nested model (located by entry name)."""
    if container.is_model:
        return validate_model(container.open_model())
    findings = list(container.archive.findings)
    for entry in container.distinct_model_entries():
        try:
            model = Model.parse(entry.data, entry.name_str)
        except FormatError as exc:
            findings += [f.located(entry.name_str) for f in exc.findings]
            continue
        findings += [f.located(entry.name_str) for f in validate_model(model)]
    for entry in container.archive.entries:
        check = _LIBRARY_CHECKS.get(entry.type_id)
        if check is not None and entry.alias_of is None:
            findings += [f.located(entry.name_str) for f in check(entry)]
    return findings


# Entries of textures, materials and material lists are checked by materials-texm.md section 12.3.
_LIBRARY_CHECKS = {
    TEXM_TYPE_ID: lambda entry: validate_texm(entry.data),
    MAT0_TYPE_ID: validate_mat0,
    WEAR_TYPE_ID: lambda entry: validate_wear(entry.data),
    CTLD_TYPE_ID: lambda entry: validate_ctld(entry.data),  # controllers: units-clips-digest 2
}


def write_atomic(path: str | Path, data: bytes, force: bool = False) -> None:
    """Write through a temporary file in the same folder, then rename: never a half-written target.

    The target keeps its identity: its permission bits (a new file gets the umask's), and a symbolic link is
    written through to the file it names, as ``cp`` does. A read-only target is refused unless ``force``.
    SIGTERM during the write, like Ctrl-C, leaves no temporary file. Errors name ``path``, not the temporary.
    """
    target = Path(os.path.realpath(path))
    try:
        existing = os.stat(target)
    except FileNotFoundError:
        existing = None
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        raise InputError(errno.EINVAL, "not a regular file", str(path))
    if existing is not None and not existing.st_mode & 0o222 and not force:
        raise PermissionError(errno.EACCES, "the file is read-only (force to replace it)", str(path))
    mode = stat.S_IMODE(existing.st_mode) if existing is not None else 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with _terminate_raises(), os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
            os.chmod(tmp, mode)
            os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and exc.filename in (tmp, str(target)):
            raise type(exc)(exc.errno, exc.strerror, str(path)) from None
        raise


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
