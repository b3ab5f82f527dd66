"""What an asset library of a game folder holds (``batch library``), in plain Python (no Blender): one asset per
model and per unit tree, each with its key (where it comes from), the fingerprint of the bytes it is made of,
its description, tags and catalogue; and the catalogue file Blender reads beside the library.

Catalogues (docs/manual/batch.md): units by what their tree's type word says (robots by type, buildings),
models by the class the game gives them: the class a unit's component gives the record that names the model
(turret, gun, chassis...), else the objects.rlb tag of that record, else the archive the model is in.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from ...core.errors import FormatError, printable
from .items import UNIT_SUFFIX, Item, plan_items

VERSION = 1  # of what an asset holds: a change here re-does every asset
CATALOG_FILE = "blender_assets.cats.txt"
NAMESPACE = uuid.UUID("6f0d3a52-30a1-4c2e-9e55-7061726b616e")  # the catalogues' UUIDs derive from their paths
LIBRARIES = ("material.lib", "textures.lib", "lightmap.lib")  # a model's look: part of every fingerprint

TAG_CLASSES = {"BTLU": "chassis", "EXTO": "external part", "INTO": "internal part", "BULL": "projectile",
               "WPNS": "weapon", "STAT": "building", "FORT": "building"}  # objects.rlb tags (core.unit.objects)
ROBOTS, BUILDINGS, PARTS, OTHER = "Robots", "Buildings", "Parts", "Other models"


@dataclass
class AssetMeta:
    key: str                # where it comes from: the file below the game folder, and the archive entry
    kind: str               # "model" or "unit"
    name: str               # the asset's (collection's) name
    description: str
    tags: list[str] = field(default_factory=list)
    catalog: str = ""       # the catalogue path, 'Robots/battle robot'
    fingerprint: str = ""   # of every byte the asset is made of, and of the options that change it


def catalog_uuid(path: str) -> str:
    """A catalogue's UUID: the same path gets the same UUID in every run (so assets keep their catalogue)."""
    return str(uuid.uuid5(NAMESPACE, path))


CATALOG_HEADER = ["# This is an Asset Catalog Definition file for Blender.", "#",
                  "# Written by io_msh (batch library): every run adds the catalogues its assets need and keeps "
                  "every other line.", "#",
                  "# Other lines are of the format \"UUID:catalog/path/for/assets:simple catalog name\"", "",
                  "VERSION 1", ""]


def catalog_text(paths: set[str], old: str = "") -> str:
    """``blender_assets.cats.txt``: the ``old`` file's text with each catalogue of ``paths``, and each of its
    parents, added where the file does not define it yet. A catalogue is known by its UUID, so the catalogues the
    user made in Blender, and ours as the user renamed or moved them, stay as they are. A file Blender cannot read
    (``_readable``) is kept below a new header, as comments."""
    lines = _lines(old)
    if not _readable(lines):
        kept = ["# Kept from the file that was here, which Blender could not read:", *(f"# {line}" for line in lines),
                ""] if lines else []
        lines = [*CATALOG_HEADER, *kept]
    lines += [f"{catalog_uuid(p)}:{p}:{p.replace('/', '-')}" for p in _undefined(paths, lines)]
    return "\n".join(lines) + "\n"


def catalogs_defined(paths: set[str], text: str) -> bool:
    """Whether the catalogue file ``text`` is one Blender reads and defines each catalogue of ``paths`` and each
    of its parents (``catalog_text`` would add nothing)."""
    lines = _lines(text)
    return _readable(lines) and not _undefined(paths, lines)


def _lines(text: str) -> list[str]:
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    if lines[-1] == "":
        lines.pop()  # the last line's end
    return lines


def _undefined(paths: set[str], lines: list[str]) -> list[str]:
    """The catalogues of ``paths`` and their parents that the file's ``lines`` do not define, in order."""
    every = set()
    for path in paths:
        parts = path.split("/")
        every.update("/".join(parts[:n]) for n in range(1, len(parts) + 1))
    defined = {line.strip().split(":", 1)[0].strip().lower() for line in lines
               if ":" in line and not line.strip().startswith("#")}
    return [p for p in sorted(every) if catalog_uuid(p) not in defined]


def _readable(lines: list[str]) -> bool:
    """Whether Blender reads a catalogue file of these lines: its first line that is neither blank nor a comment
    (each stripped) is ``VERSION 1``."""
    first = next((line.strip() for line in lines if line.strip() and not line.strip().startswith("#")), None)
    return first == "VERSION 1"


class _Hasher:
    """Each file's bytes hashed once a run."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}

    def file(self, path: Path) -> str:
        key = str(path)
        if key not in self.files:
            digest = hashlib.sha256()
            try:
                with open(path, "rb") as handle:
                    for block in iter(lambda: handle.read(1 << 20), b""):
                        digest.update(block)
                self.files[key] = digest.hexdigest()
            except OSError:
                self.files[key] = "missing"
        return self.files[key]


def plan_library(folder: str, size: int, notes: list[str]) -> list[tuple[Item, AssetMeta]]:
    """Every model and unit of the game folder, as convert and thumbnails find them, with its asset's metadata."""
    import argparse

    root = Path(folder)
    found = plan_items(argparse.Namespace(command="thumbnails", inputs=[folder], output=str(root), models=""), notes)
    hasher = _Hasher()
    looks = "".join(hasher.file(f) for f in sorted(root.iterdir(), key=lambda p: p.name.lower())
                    if f.name.lower() in LIBRARIES and f.is_file()) if root.is_dir() else ""
    salt = f"{VERSION}:{size}:{looks}"
    records, classes, trees = _records(root, notes)
    out = []
    for item in found:
        source = Path(item.source)
        relative = source.relative_to(root).as_posix() if source.is_relative_to(root) else source.name
        if item.error:
            out.append((item, shown(AssetMeta(relative, "model", source.stem, ""))))
            continue
        if source.suffix.lower() == UNIT_SUFFIX:
            meta = _unit_meta(relative, source, trees.get(str(source)), hasher, salt)
        else:
            meta = _model_meta(relative, item, records, classes, hasher, salt)
        out.append((item, shown(meta)))
    return out


def shown(meta: AssetMeta) -> AssetMeta:
    """The asset's texts as Blender holds them: UTF-8 (the bytes of a file name that is not are written
    ``\\xNN``, as are control characters, core.errors.printable) and its catalogue a path Blender reads back as
    written (``catalog_path``)."""
    return AssetMeta(printable(meta.key), meta.kind, printable(meta.name), printable(meta.description),
                     [printable(tag) for tag in meta.tags], catalog_path(meta.catalog), meta.fingerprint)


def catalog_path(path: str) -> str:
    """A catalogue path as Blender keeps it (its AssetCatalogPath::cleanup): components without the colon (the
    catalogue file's separator: ``-`` instead), line breaks or other control characters (``\\xNN``), spaces
    around them, or empty ones (an all-empty path is ``_``)."""
    parts = [printable(part).replace(":", "-").strip() for part in path.split("/")]
    return "/".join(part for part in parts if part) or "_"


def _records(root: Path, notes: list[str]) -> tuple[dict, dict, dict]:
    """(archive file name, member) folded -> (record key, tag) of each objects.rlb record naming a .msh;
    record key folded -> the class a unit's component gives it; .dat path -> its tree."""
    from ...core.cli.unit import locate
    from ...core.container.nres import Archive
    from ...core.disk import read_input
    from ...core.unit.dat import parse_dat
    from ...core.unit.objects import parse_record

    records, classes, trees = {}, {}, {}
    objects = locate(root, "objects.rlb") if root.is_dir() else None
    if objects is not None:
        try:
            for entry in Archive.parse(read_input(objects), str(objects)).entries:
                try:
                    record = parse_record(entry)
                except FormatError:
                    continue
                slot = record.slot(".msh")
                if slot is not None:
                    archive = slot.archive.replace("\\", "/").rsplit("/", 1)[-1].lower()
                    records.setdefault((archive, slot.member.lower()), (record.key, record.tag))
        except (FormatError, OSError) as exc:
            notes.append(f"objects.rlb left out of the catalogues: {exc}")
    for dat in sorted(root.rglob("*")) if root.is_dir() else []:
        if dat.suffix.lower() != UNIT_SUFFIX or not dat.is_file():
            continue
        try:
            tree = parse_dat(read_input(dat), str(dat))
        except (FormatError, OSError):
            continue
        trees[str(dat)] = tree
        for component in tree.components:
            classes.setdefault(component.record.lower(), component.class_name)
    return records, classes, trees


def _model_meta(relative: str, item: Item, records: dict, classes: dict, hasher: _Hasher, salt: str) -> AssetMeta:
    from ...core.files import open_container
    from ...core.model_controller import controller_entry

    source = Path(item.source)
    digest = hashlib.sha256(salt.encode())
    member = item.entry or source.name
    if item.entry is None:  # the file and the files of its stem beside it (walker.wea, walker.ctl)
        stem = source.stem.lower()
        for path in [source, *sorted(p for p in source.parent.iterdir() if p != source and p.is_file()
                                     and p.stem.lower() == stem)]:
            digest.update(f"{path.name}:{hasher.file(path)}".encode("utf-8", "surrogateescape"))  # any file name
    else:  # the entry, the entries of its stem (material list) and its controller: another entry may change alone
        archive = open_container(source).archive
        stem = Path(member).stem.lower()
        controller = controller_entry(archive, member)
        for n, entry in enumerate(archive.entries):
            if n == item.index or Path(entry.name_str).stem.lower() == stem or entry is controller:
                digest.update(f"{n}:{entry.name_str}:{entry.type_id}:".encode())
                digest.update(bytes(entry.data))
    record = records.get((source.name.lower(), member.lower()))
    name = Path(member).stem
    tags = ["model"]
    if record is not None:
        key, tag = record
        kind = classes.get(key.lower()) or TAG_CLASSES.get(tag, tag.lower())
        tags += [kind, tag]
        catalog = BUILDINGS + "/models" if kind == "building" else f"{PARTS}/{kind}"
        description = f"{key} ({kind}), {relative}:{member}"
    else:
        catalog = f"{OTHER}/{source.stem}"
        description = f"{relative}:{member}" if item.entry is not None else relative
    key = f"{relative}:{item.index}:{member}" if item.entry is not None else relative
    return AssetMeta(key, "model", name, description, tags, catalog, digest.hexdigest())


def _unit_meta(relative: str, source: Path, tree, hasher: _Hasher, salt: str) -> AssetMeta:
    """A unit: its description is its root component's display name (cp1251, core.unit.text); its fingerprint
    covers the .dat, objects.rlb and every file its parts are read from."""
    from ...core.cli.unit import game_folder, locate
    from ...core.unit.dat import type_name

    digest = hashlib.sha256(salt.encode())
    digest.update(hasher.file(source).encode())
    folder = game_folder(str(source))
    objects = locate(folder, "objects.rlb")
    names = {"objects.rlb"}
    if objects is not None:
        digest.update(hasher.file(objects).encode())
        names |= _part_archives(tree, objects)
    for name in sorted(names - {"objects.rlb"}):
        place = locate(folder, name)
        digest.update(f"{name}:{hasher.file(place) if place else 'missing'}".encode())
    if tree is None:
        return AssetMeta(relative, "unit", source.stem, source.stem, ["unit"], f"{ROBOTS}/unknown type",
                         digest.hexdigest())
    kind = type_name(tree.type_word)
    building = bool(tree.type_word & 0x80000000)
    display = tree.components[0].display if tree.components else ""
    tags = ["unit", kind, *sorted({c.class_name for c in tree.components})]
    catalog = f"{BUILDINGS}/{kind}" if building else f"{ROBOTS}/{kind}"
    return AssetMeta(relative, "unit", source.stem, display or source.stem, tags, catalog, digest.hexdigest())


def _part_archives(tree, objects: Path) -> set[str]:
    """The archive files the unit's records name (following redirects), by the name a slot gives."""
    from ...core.container.nres import Archive
    from ...core.disk import read_input
    from ...core.unit.objects import EXTENSIONS, lookup

    if tree is None:
        return set()
    try:
        archive = Archive.parse(read_input(objects), str(objects))
    except (FormatError, OSError):
        return set()
    names = set()
    for component in tree.components:
        for extension in EXTENSIONS:
            try:
                slot = lookup(archive, component.record_key, extension).slot
            except FormatError:
                continue
            if slot is not None:
                names.add(slot.archive)
    return names
