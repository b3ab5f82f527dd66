"""Opening a game file from disk: a model or an archive of models, strict or tolerant reads, and the checks of
every entry of a container."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .appearance.mat0 import MAT0_TYPE_ID, validate_mat0
from .appearance.texm import TEXM_TYPE_ID, validate_texm
from .appearance.wear import WEAR_TYPE_ID, BlankRuns, validate_wear
from .container.nres import Archive, Entry, fold, name_bytes
from .disk import read_input
from .errors import Finding, FormatError, SelectionError, has_errors, printable
from .map.kind import archive_kind
from .msh.model import Model, looks_like_model

# The codecs below are imported when a file needs them (a check, a map), so that opening a file costs what it
# holds. Their type ids as they name them (a test keeps them equal):
CTLD_TYPE_ID = int.from_bytes(b"CTLD", "little")  # core.animation.controller.codec (the clip planner, the sampler)
FXID_TYPE_ID = int.from_bytes(b"FXID", "little")  # core.effects.fxid
EXP_TYPE_ID = int.from_bytes(b"EXPL", "little")   # core.effects.exp
BAS_TYPE_ID = int.from_bytes(b"BASE", "little")   # core.interior.bas


@dataclass
class Container:
    """A file as read: either one model, or an archive holding models (and other entries)."""

    path: str
    archive: Archive
    is_model: bool
    map_kind: str | None = None  # "land" (a Land.msh) or "arealmap" (a Land.map): read by core.map

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
            unreadable = [e.unreadable for e in self.archive.entries if e.unreadable is not None]
            if unreadable:  # a model needs all its streams
                raise FormatError(unreadable, self.path)
            return Model(self.archive, self.file_name)
        return self.open_entry(self.model_entry(entry_name))

    def find_entry(self, name: str) -> Entry | None:
        """Any entry (model or not) named ``name`` (ASCII case-insensitive, the first of equal names), or
        ``#N``: the archive's entry N, for names that repeat. None when there is no such entry."""
        entry = self.archive.find(name)
        if entry is None and name.startswith("#") and name[1:].isdigit() and int(name[1:]) < len(self.archive):
            entry = self.archive.entries[int(name[1:])]
        return entry

    def payload(self, entry: Entry) -> bytes | memoryview:
        """An entry's bytes; FormatError naming it when a tolerant read could not read them."""
        if entry.unreadable is not None:
            raise FormatError([entry.unreadable], self.path)
        return entry.data

    def open_models(self, entries: list[Entry] | None = None) -> tuple[list[tuple[Entry, Model]],
                                                                       list[tuple[Entry, FormatError]]]:
        """Each model entry opened on its own (default: the distinct ones): the models that read, and for each
        one that does not, its entry and the error naming it. One bad model does not keep the others from
        being read."""
        models, failures = [], []
        for entry in self.distinct_model_entries() if entries is None else entries:
            try:
                models.append((entry, self.open_entry(entry)))
            except FormatError as exc:
                failures.append((entry, exc))
        return models, failures

    def open_entry(self, entry: Entry) -> Model:
        """A nested model given by its entry (names may repeat: the entry, not its name, says which)."""
        if entry.unreadable is not None:  # a tolerant read kept the record (its finding names it), not its bytes
            raise FormatError([entry.unreadable], self.path)
        try:
            return Model.parse(entry.data, entry.name_str)
        except FormatError as exc:
            raise FormatError([f.located(entry.name_str) for f in exc.findings], self.path) from None

    def model_entry(self, entry_name: str | None) -> Entry:
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
        entry = self.find_entry(entry_name)
        if entry is not None and not entry.is_model:
            message = f"entry {entry_name!r} ({entry.name_str}) is not a model"
            raise SelectionError.single("entry", self.archive.entries.index(entry), message, self.path)
        if entry is not None:
            return entry
        raise SelectionError.single("entry", None, f"no model named {entry_name!r} in the archive", self.path)

    def replace_model(self, entry_name: str, model: Model) -> None:
        """Put a model's bytes back into the archive in place of the entry named ``entry_name``."""
        entry = self.model_entry(entry_name)
        entry.data = model.to_bytes()

    def to_bytes(self) -> bytes:
        return self.archive.to_bytes()


def read_container(data: bytes, path: str = "", tolerant: bool = False) -> Container:
    """``tolerant``: bad directory records are findings, not a refusal of the whole file (see Archive.parse)."""
    archive = Archive.parse(data, source=path, tolerant=tolerant)
    kind = archive_kind(archive)  # a Land.msh has a model's stream types 1-3 but is no model
    return Container(path, archive, kind is None and looks_like_model(archive), kind)


def open_container(path: str | Path, tolerant: bool = False) -> Container:
    """Read a file; OSError for I/O problems (InputError for what is not a readable file), FormatError for bad
    data. ``tolerant``: a bad directory record is named in ``archive.findings`` and the other entries are read
    (the archive is then not written back)."""
    return read_container(read_input(path), str(path), tolerant)


def read_model(data: bytes, name: str = "", strict: bool = False) -> tuple[Model, list[Finding]]:
    """Read one model NRes and validate it.

    Tolerant (default): returns the model and all findings; raises only when
    the container itself does not parse. Strict: raises FormatError carrying
    every finding when any of them is an error.
    """
    model = Model.parse(data, name)
    findings = model_findings(model)
    if strict and has_errors(findings):
        raise FormatError(findings, name)
    return model, findings


def model_findings(model: Model) -> list[Finding]:
    """The model's streams, and its hall way (stream 17) when it has one."""
    from .interior.hallway import validate_hallway
    from .msh.validate import validate_model

    return validate_model(model) + validate_hallway(model)


def validate_container(container: Container) -> list[Finding]:
    """Every finding of the file: of the model, or of each nested model (located by entry name); of a map's
    Land.msh or Land.map, the invariants core.map.validate checks."""
    if container.map_kind is not None:
        from .map.folder import validate_archive

        return list(container.archive.findings) + validate_archive(container.archive, container.map_kind,
                                                                   container.path)
    if container.is_model:
        return model_findings(container.open_model())
    findings = list(container.archive.findings)  # with the records a tolerant read could not read
    for entry in container.distinct_model_entries():
        if entry.unreadable is not None:
            continue
        try:
            model = Model.parse(entry.data, entry.name_str)
        except FormatError as exc:
            findings += [f.located(entry.name_str) for f in exc.findings]
            continue
        findings += [f.located(entry.name_str) for f in model_findings(model)]
    runs = BlankRuns()  # WEAR entries sharing payload bytes scan each blank run once
    for entry in container.archive.entries:
        check = _LIBRARY_CHECKS.get(entry.type_id)
        if check is not None and entry.alias_of is None and entry.unreadable is None:
            findings += [f.located(entry.name_str) for f in check(entry, runs)]
    return findings


# Entries of textures, materials and material lists are checked by materials-texm.md section 12.3.
_LIBRARY_CHECKS = {
    TEXM_TYPE_ID: lambda entry, runs: validate_texm(entry.data),
    MAT0_TYPE_ID: lambda entry, runs: validate_mat0(entry),
    WEAR_TYPE_ID: lambda entry, runs: validate_wear(entry.data, runs),
    CTLD_TYPE_ID: lambda entry, runs: _validate_ctld(entry.data),  # controllers (docs/formats/controller.md)
    FXID_TYPE_ID: lambda entry, runs: _validate_fxid(entry.data),  # effects (effects.rlb)
    EXP_TYPE_ID: lambda entry, runs: _validate_exp(entry.data),    # explosions (weapon.rlb and others)
    BAS_TYPE_ID: lambda entry, runs: _validate_bas(entry.data),    # buildings' ground plans (fortif.rlb)
}


def _validate_ctld(data: bytes) -> list[Finding]:
    from .animation.controller.codec import validate_ctld

    return validate_ctld(data)


def _validate_fxid(data: bytes) -> list[Finding]:
    from .effects.fxid import validate_fxid

    return validate_fxid(data)


def _validate_exp(data: bytes) -> list[Finding]:
    from .effects.exp import validate_exp

    return validate_exp(data)


def _validate_bas(data: bytes) -> list[Finding]:
    from .interior.bas import validate_bas

    return validate_bas(data)
