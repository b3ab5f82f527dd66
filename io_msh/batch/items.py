"""Work items of a batch run: which model or texture goes to which output, with names made unique."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .maps import MISSION_SUFFIX, is_map_file

MODEL_SUFFIXES = (".msh", ".rlb")
UNIT_SUFFIX = ".dat"  # a unit tree: convert and thumbnails give the assembled unit, one output per .dat
UNIT_COMMANDS = ("convert", "thumbnails")
UNIT_MAGIC = b"\xf1\xf0\x00\x00"
# A Land.msh (or Land.map) given to a command that takes models: where maps are taken instead.
MAP_NOT_MODEL = ("the file is a map's (its terrain, not a model): batch convert and batch thumbnails take maps; "
                 "in Blender, File > Import > Parkan Map (Land.msh, data.tma)")


SHEET_NAME = "contact_sheet.png"
STAGE_PREFIX = ".io_msh_stage."  # a run's folder in -o for an item its workers write (pool.py), PID.N after it


@dataclass
class Item:
    source: str            # the file to read
    entry: str | None      # a nested model of an archive
    output: str            # the file to write
    label: str             # how progress lines name it
    error: str | None = None  # known before any work: the input cannot be read
    index: int | None = None  # the archive entry (by index: names may repeat)
    kind: str = ""         # the work: the command's, or "sheet" for the contact sheet
    stage: str = ""        # the folder the worker writes the item's files to; the parent moves them into place
    meta: str = ""         # JSON the work needs besides (batch library: the asset's metadata)


@dataclass
class Result:
    label: str
    ok: bool
    message: str
    seconds: float
    outputs: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    staged: tuple[tuple[str, str], ...] = ()  # (file written in the stage folder, the output it becomes)


def _files(inputs: list[str], suffixes: tuple[str, ...]) -> list[tuple[Path, Path]]:
    """(file, folder it was found under) for every input file or every matching file below a folder."""
    found = []
    for raw in inputs:
        path = Path(raw)
        if path.is_dir():
            found += [(f, path) for f in sorted(path.rglob("*")) if f.suffix.lower() in suffixes and f.is_file()
                      and not any(part.startswith(STAGE_PREFIX) for part in f.relative_to(path).parts)]
        else:
            found.append((path, path.parent))
    return found


def remove_dead_stages(out: Path) -> None:
    """Remove the stage folders a run killed before its clean-up left in ``out`` (its PID after STAGE_PREFIX),
    once that process is gone; on systems without a harmless liveness test (Windows) they stay, and no run
    takes their files for inputs (``_files``)."""
    import shutil

    from ...core.disk import process_gone

    if os.name != "posix":
        return
    for stage in out.glob(f"{STAGE_PREFIX}*"):
        pid = stage.name[len(STAGE_PREFIX):].split(".", 1)[0]
        if pid.isdigit() and process_gone(int(pid)):
            shutil.rmtree(stage, ignore_errors=True)


    return True


def plan_items(args, notes: list[str] | None = None) -> list[Item]:
    """The items of the run, each with a unique output name. ``notes`` receives what was skipped and why."""
    notes = [] if notes is None else notes
    out = Path(args.output)
    if args.command == "textures":
        return _texture_items(args.inputs, out, notes)
    if args.command == "export":
        items = []
        taken: set[str] = set()
        for path, base in _files(args.inputs, (".blend",)):
            target = unique(out / path.relative_to(base).with_suffix(".msh"), taken)
            items.append(Item(str(path), None, str(target), str(path),
                              None if path.is_file() else f"{path}: no such file"))
        return items
    suffix = {"import": ".blend", "thumbnails": ".png"}.get(args.command) or f".{args.format}"
    taken: set[str] = {str(out / SHEET_NAME).lower()} if args.command == "thumbnails" else set()
    from ...core.errors import FormatError
    from ...core.files import open_container
    from ...core.rsli import is_rsli_file

    items = []
    units = args.command in UNIT_COMMANDS
    for path, base in _files(args.inputs, MODEL_SUFFIXES + ((UNIT_SUFFIX, MISSION_SUFFIX) if units else ())):
        stem = path.relative_to(base).with_suffix("")
        if units and is_map_file(path):  # a Land.msh or a mission: the map (io_msh.batch.maps)
            items.append(Item(str(path), None, str(unique(out / stem.with_suffix(suffix), taken)), str(path)))
            continue
        if path.suffix.lower() == UNIT_SUFFIX:
            _unit_item(items, path, str(path) in args.inputs, out / stem.with_suffix(suffix), taken, notes)
            continue
        if is_rsli_file(path):  # gamefont.rlb, sprites.lib: pictures and a font, no model
            why = "an RsLi archive holds no model (batch textures draws its pictures)"
            if str(path) in args.inputs:
                items.append(Item(str(path), None, "", str(path), f"{path}: {why}"))
            else:
                notes.append(f"skipped {path}: {why}")
            continue
        try:
            container = open_container(path)
        except (FormatError, OSError) as exc:
            items.append(Item(str(path), None, "", str(path), _read_error(exc, path)))
            continue
        if container.is_model:
            items.append(Item(str(path), None, str(unique(out / stem.with_suffix(suffix), taken)), str(path)))
            continue
        entries = container.model_entries()
        if not entries:  # in a folder (a game's objects.rlb, sounds): skipped with a note; named, a failed item
            why = MAP_NOT_MODEL if container.map_kind is not None else "the archive holds no model"
            if str(path) in args.inputs:
                items.append(Item(str(path), None, "", str(path), f"{path}: {why}"))
            else:
                notes.append(f"skipped {path}: {why}")
            continue
        chosen = _chosen_entries(entries, getattr(args, "models", ""))
        if entries and not chosen:
            notes.append(f"skipped {path}: no model matches --models {args.models!r}")
        entries = chosen
        index_of = {id(e): i for i, e in enumerate(container.archive.entries)}
        for entry in entries:
            if entry.alias_of is not None:  # the same bytes as an earlier entry: converted once
                continue
            name = stem.with_name(f"{stem.name}_{safe(without_suffix(entry.name_str))}")
            items.append(Item(str(path), entry.name_str, str(unique(out / f"{name}{suffix}", taken)),
                              f"{path}:{entry.name_str}", index=index_of[id(entry)]))
    return items


def _unit_item(items: list[Item], path: Path, named: bool, target: Path, taken: set[str], notes: list[str]) -> None:
    """A unit tree's item (the worker imports the assembled unit, io_msh.batch.worker). A .dat found in a folder that
    is no unit tree (other magic) is skipped with a note; one named on the command line is a failed item."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(4)
    except OSError as exc:
        items.append(Item(str(path), None, "", str(path), _read_error(exc, path)))
        return
    if head != UNIT_MAGIC:
        if named:
            items.append(Item(str(path), None, "", str(path), f"{path}: not a unit tree (no 0xF0F1 magic)"))
        else:
            notes.append(f"skipped {path}: not a unit tree")
        return
    items.append(Item(str(path), None, str(unique(target, taken)), str(path)))


def skip_existing(items: list[Item], notes: list[str]) -> list[Item]:
    """The items whose output does not exist yet (--skip-existing); a note for each one left out. Items that
    fail before any work (unreadable inputs) are kept, so that they are still reported."""
    kept = []
    for item in items:
        if item.output and not item.error and os.path.lexists(item.output):
            notes.append(f"skipped {item.label}: {item.output} exists (--skip-existing)")
        else:
            kept.append(item)
    return kept


def _chosen_entries(entries: list, patterns: str) -> list:
    """The archive's model entries the --models patterns name (all without patterns), as the import dialog's
    Models filter chooses them."""
    if not patterns:
        return entries
    from ..imp.plan import matching_models

    names = set(matching_models([e.name_str for e in entries], patterns))
    return [e for e in entries if e.name_str in names]


def _read_error(exc: Exception, path: Path) -> str:
    from ...core.errors import FormatError

    return exc.describe(str(path)) if isinstance(exc, FormatError) else f"{path}: {exc.strerror or exc}"


def without_suffix(name: str) -> str:
    """An entry name without its suffix (``d0/m.msh`` -> ``d0/m``); any text, even ``''``, ``.`` or ``/``."""
    suffix = Path(name).suffix
    return name[:-len(suffix)] if suffix and name.endswith(suffix) else name


def safe(name: str) -> str:
    """A name usable as (part of) a file name: what a file system may not hold becomes '_', and so does a name
    of dots only (``.``, ``..`` would name a folder)."""
    safe = "".join(c if c.isalnum() or c in "._-+" else "_" for c in name) or "_"
    return "_" * len(safe) if not safe.strip(".") else safe


def unique(path: Path, taken: set[str]) -> Path:
    """``path``, or with ``_2``, ``_3``... before its suffix when a path equal but for case is taken already."""
    candidate, n = path, 1
    while str(candidate).lower() in taken:
        n += 1
        candidate = path.with_name(f"{path.stem}_{n}{path.suffix}")
    taken.add(str(candidate).lower())
    return candidate


def _texture_items(inputs: list[str], out: Path, notes: list[str]) -> list[Item]:
    """One item per Texm entry or font atlas (of an NRes library or an RsLi archive: core.fonts.pictures):
    DIR/FOLDERS/LIBRARY_STEM/ENTRY.png, FOLDERS those between the input folder and the library (characters a file
    name cannot hold become '_'), the entry chosen by its index (names may repeat, or differ only in case).
    Archives without a texture (Material.lib, model archives) are skipped, each with a note."""
    from ...core.disk import read_input
    from ...core.errors import FormatError
    from ...core.fonts.pictures import pictures_in

    items = []
    taken: set[str] = set()
    for path, base in _files(inputs, (".lib", ".rlb")):
        try:
            entries = [(p.index, p.name) for p in pictures_in(read_input(path), str(path))]
        except (FormatError, OSError) as exc:
            items.append(Item(str(path), None, "", str(path), _read_error(exc, path)))
            continue
        if not entries:
            notes.append(f"skipped {path}: the archive holds no texture")
        folder = path.stem if path.stem.strip(".") else safe(path.stem)  # "...lib" must not write to out/..
        # a library found below an input folder keeps the folders above it, as convert and thumbnails do
        folder = path.parent.relative_to(base) / folder
        for index, name in entries:
            target = unique(out / folder / f"{safe(name)}.png", taken)
            items.append(Item(str(path), name, str(target), f"{path}:{name}", index=index))
    return items
