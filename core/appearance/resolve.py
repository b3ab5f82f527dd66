"""How a model's batches look in the game: the chain batch -> WEAR -> MAT0 -> Texm, resolved to plain data.

Res13 batch material word: low byte = row of the model's WEAR list, high
byte = row of its LIGHTMAPS list (0xFF: none). A WEAR row names a MAT0
entry of ``Material.lib`` (missing: ``DEFAULT``, then entry 0); its phase 0
names a Texm entry of ``Textures.lib``; a lightmap row names a Texm entry of
``LightMap.lib``. The libraries are found next to the model, in its parent
folders, or in folders the caller names (a game folder).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..container.nres import Archive, Entry, lookup_key
from ..disk import names_in, read_input
from ..errors import FormatError
from .mat0 import MAT0_TYPE_ID, OPAQUE, Material, material_of
from .texm import BYTES_PER_PIXEL, Texture, parse_texm
from .wear import NO_LIGHTMAP, Wear, own_list

LIBRARY_FILES = {"materials": "material.lib", "textures": "textures.lib", "lightmaps": "lightmap.lib"}
DEFAULT_MATERIAL = "DEFAULT"


def placeholder_name(wear_index: int) -> str:
    """The name of a batch material the model's WEAR list does not name."""
    return f"material_{wear_index}"


def find_libraries(model_path: str | Path, folders: list[str | Path] = ()) -> dict[str, Path]:
    """Each library (by kind) found next to the model, in its parent folders, then in ``folders``.

    File names compare case-insensitively, as on the game's own file system.
    """
    start = Path(model_path).resolve().parent
    search = [start, *start.parents, *(Path(f) for f in folders if str(f))]
    found: dict[str, Path] = {}
    for folder in search:
        try:
            names = names_in(folder)
        except OSError:
            continue
        for kind, filename in LIBRARY_FILES.items():
            if kind not in found and filename in names and (folder / names[filename]).is_file():
                found[kind] = folder / names[filename]
        if len(found) == len(LIBRARY_FILES):
            break
    return found


@lru_cache(maxsize=8)
def _read_library(path: str, mtime_ns: int, size: int) -> Archive:
    return Archive.parse(read_input(path), source=path)


def open_library(path: str | Path) -> Archive:
    """A library archive, read once per file version (shared by every model of an import or a batch)."""
    stat = os.stat(path)
    return _read_library(str(path), stat.st_mtime_ns, stat.st_size)


def library_entry(archive: Archive, name: str) -> Entry | None:
    """``archive.find(name)`` in a library archive (``open_library``'s, which nobody edits), through a name index
    made once per archive: a library holds hundreds of entries, and ``find`` walks them all on every call."""
    key = lookup_key(name)
    return None if key is None else _name_index(archive).get(key)


@lru_cache(maxsize=8)  # the libraries _read_library keeps
def _name_index(archive: Archive) -> dict[bytes, Entry]:
    return archive.name_index()


@dataclass(frozen=True)
class TextureRef:
    """A Texm entry of a library: the key under which its picture is decoded and cached."""

    library: str
    entry: str

    def load(self) -> Texture:
        entry = library_entry(open_library(self.library), self.entry)
        if entry is None:
            raise FormatError.single("Texm", None, f"no texture {self.entry!r}", self.library)
        return parse_texm(entry.data, f"{self.library}:{self.entry}")


@dataclass
class Look:
    """What one batch material word shows."""

    word: int
    wear_index: int
    name: str                        # the WEAR row's name, or a placeholder
    material_entry: str | None       # the MAT0 entry used (after the DEFAULT / entry 0 fallback)
    listed: bool = False             # ``name`` comes from the WEAR list
    blend: str = OPAQUE
    lit_skin: bool = False
    diffuse: tuple[float, float, float, float] = (0.8, 0.8, 0.8, 1.0)
    texture: TextureRef | None = None
    cell: tuple[float, float, float, float] | None = None  # Direct3D (u0, v0, du, dv); None: whole texture
    lightmap_index: int | None = None
    lightmap_name: str | None = None
    lightmap: TextureRef | None = None

    @property
    def label(self) -> str:
        if self.lightmap_index is None:
            return self.name
        return f"{self.name} + {self.lightmap_name or f'lightmap {self.lightmap_index}'}"


class Libraries:
    """The game's material, texture and lightmap libraries, as far as they were found."""

    def __init__(self, paths: dict[str, Path]) -> None:
        self.paths = {kind: str(path) for kind, path in paths.items()}
        self.warnings: list[str] = []
        self._archives: dict[str, Archive | None] = {}

    def archive(self, kind: str) -> Archive | None:
        if kind not in self._archives:
            path = self.paths.get(kind)
            archive = None
            if path is not None:
                try:
                    archive = open_library(path)
                except (OSError, FormatError) as exc:
                    reason = exc.describe(path) if isinstance(exc, FormatError) else f"{path}: {exc}"
                    self.warnings.append(f"{LIBRARY_FILES[kind]} cannot be read: {reason}")
            self._archives[kind] = archive
        return self._archives[kind]

    def find(self, kind: str, name: str) -> Entry | None:
        """The entry of that name in a library (None without the library)."""
        archive = self.archive(kind)
        return None if archive is None else library_entry(archive, name)

    def material(self, name: str) -> tuple[Entry | None, str | None]:
        """The MAT0 entry for a WEAR name with the runtime's fallback (section 6.6), and a note when it fell back."""
        archive = self.archive("materials")
        if archive is None:
            return None, None
        entry = library_entry(archive, name)
        if entry is not None and entry.type_id == MAT0_TYPE_ID:
            return entry, None
        fallback = library_entry(archive, DEFAULT_MATERIAL) or (archive.entries[0] if archive.entries else None)
        used = fallback.name_str if fallback is not None else "nothing"
        return fallback, f"material {name!r} is not in {LIBRARY_FILES['materials']}; the game uses {used}"

    def texture(self, kind: str, name: str) -> tuple[TextureRef | None, Texture | None, str | None]:
        """The named texture of a library (its reference and header), or a note saying why there is none."""
        archive = self.archive(kind)
        if archive is None or not name:
            return None, None, None
        entry = library_entry(archive, name)
        if entry is None:
            return None, None, f"texture {name!r} is not in {LIBRARY_FILES[kind]}"
        try:
            texture = parse_texm(entry.data)
        except FormatError as exc:
            return None, None, f"texture {name!r} in {LIBRARY_FILES[kind]} is unreadable: {exc.findings[0].message}"
        if texture.format not in BYTES_PER_PIXEL:
            return None, None, f"texture {name!r} has format {texture.format}, which the game does not read"
        return TextureRef(self.paths[kind], entry.name_str), texture, None


def resolve_looks(words: list[int], wear: Wear | None, libraries: Libraries) -> tuple[dict[int, Look], list[str]]:
    """A Look for every batch material word, with warnings for every link of the chain that is missing."""
    looks, notes = {}, []
    for word in sorted(set(words)):
        wear_index, lightmap_index = word & 0xFF, word >> 8
        names = wear.materials if wear is not None else []
        listed = wear_index < len(names)
        look = Look(word, wear_index, names[wear_index] if listed else placeholder_name(wear_index), None, listed)
        if wear is not None and not listed:
            notes.append(f"batch material {wear_index} has no row in the {len(names)}-row WEAR list")
        if listed:
            _apply_material(look, libraries, notes)
        if lightmap_index != NO_LIGHTMAP:
            look.lightmap_index = lightmap_index
            lightmaps = (wear.lightmaps or []) if wear is not None else []
            if lightmap_index < len(lightmaps):
                look.lightmap_name = lightmaps[lightmap_index]
                look.lightmap, _, note = libraries.texture("lightmaps", look.lightmap_name)
                notes += [note] if note else []
        looks[word] = look
    return looks, notes + libraries.warnings


def _apply_material(look: Look, libraries: Libraries, notes: list[str]) -> None:
    entry, note = libraries.material(look.name)
    notes += [note] if note else []
    if entry is None:
        return
    try:
        material: Material = material_of(entry, f"{libraries.paths['materials']}:{entry.name_str}")
    except FormatError as exc:
        notes.append(f"material {entry.name_str!r} is unreadable: {exc.findings[0].message}")
        return
    look.material_entry = entry.name_str
    look.blend, look.lit_skin, look.diffuse = material.blend, material.lit_skin, material.diffuse(0)
    look.texture, texture, note = libraries.texture("textures", material.texture_name(0))
    notes += [note] if note else []
    if texture is not None:
        box = texture.cell(material.cell(0))
        look.cell = None if box == (0.0, 0.0, 1.0, 1.0) else box


def decoded(ref: TextureRef) -> np.ndarray:
    """Level 0 of a referenced texture as RGBA8 (height, width, 4)."""
    return ref.load().decode(0)


def wear_file(model_path: str | Path) -> Path | None:
    """The material list beside a model file (``STEM.wea``, see wear.own_list): of exactly its name, else
    the only one of its name in any case that is not another model's there (``a.wea`` beside ``A.msh`` and
    ``a.msh`` is ``a.msh``'s). None when there is none, several in other cases, or the folder cannot be read."""
    path = Path(model_path)
    try:
        names = os.listdir(path.parent)
    except OSError:
        return None
    lists = [n for n in names if n.lower().endswith(".wea")]
    models = [os.fsencode(n) for n in names if n.lower().endswith(".msh")]
    chosen = own_list(os.fsencode(path.name), [os.fsencode(n) for n in lists], models)
    return None if chosen is None else path.parent / lists[chosen]
