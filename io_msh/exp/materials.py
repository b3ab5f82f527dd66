"""Export decisions for materials, in plain Python (the scene read back by io_msh.exp.readback).

- The WEAR list: the imported list with its rows renamed where the artist
  renamed a material, and a row appended for every new material (faces
  without a material get a ``DEFAULT`` row: the game's own fallback). An
  unchanged list writes back its own bytes; a name cp1251 cannot hold is
  refused naming every such material (``name_problem``), before any file is written.
- The batch material word of every material: WEAR row, and LIGHTMAPS row in
  the high byte (0xFF: none).
- On request, new MAT0 entries for materials made in Blender, and new Texm
  entries for their images, for the libraries the artist chose. Their
  diffuse colour is Blender's linear colour turned back into the sRGB bytes
  the game multiplies (io_msh.com.colours, the inverse of the import's).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...core.appearance.mat0 import Material, blend_attr1, phase, texture_name_problem
from ...core.appearance.resolve import placeholder_name
from ...core.appearance.texm import Texture, encode_texm
from ...core.appearance.wear import NO_LIGHTMAP, Wear, parse_wear
from ...core.container.nres import game_bytes
from ...core.errors import FormatError, error
from ..com.colours import display_rgba
from ..com.names import family, unnumbered
from .options import MaterialOptions
from .scene_model import SceneMaterial

DEFAULT_ROW = "DEFAULT"
TEXTURE_FORMATS = (8888, 565)


@dataclass
class MaterialExport:
    wear: Wear | None             # the list to write; None when the model has none and needs none
    words: list[int]              # batch material word by material key
    new_materials: list[tuple[str, Material]] = field(default_factory=list)
    new_textures: list[tuple[str, Texture]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def plan_materials(materials: list[SceneMaterial], source_wear: bytes | None,
                   options: MaterialOptions) -> MaterialExport:
    unstorable = [error("scene", None, problem) for problem in map(name_problem, materials) if problem]
    if unstorable:  # every one, so that the panel's check lists each (the list's encoding names only a character)
        raise FormatError(unstorable)
    wear = _source_wear(source_wear)
    shown_rows = list(wear.materials) if wear is not None else []
    rows = list(shown_rows)
    changed = False  # a row the import did not show: a new or renamed material
    words = []
    for material in materials:
        name = row_name(material)
        if material.wear_index is not None:
            index = material.wear_index
            shown = shown_rows[index] if index < len(shown_rows) else placeholder_name(index)
            changed |= name != shown
            rows += [DEFAULT_ROW] * (index + 1 - len(rows))
            rows[index] = name
        else:
            index = rows.index(name) if name in rows else len(rows)
            if index == len(rows):
                rows.append(name)
            changed = True
        if index > 0xFF:
            raise FormatError.single("scene", None, f"material {material.name!r} would be WEAR row {index}; "
                                                    "a batch names at most 256 materials")
        lightmap = NO_LIGHTMAP if material.lightmap is None else material.lightmap
        words.append(lightmap << 8 | index)
    result = MaterialExport(None, words)
    if wear is not None or changed:
        result.wear = wear or Wear()
        result.wear.materials = rows if changed else shown_rows  # unchanged: no row for a batch past the list
    _new_library_entries(materials, options, result)
    result.warnings += [f"material {m.name!r}: its animation's F-curves were edited; MAT0 tracks are not written, "
                        "so the game plays the track in Material.lib as before"
                        for m in materials if m.animation_edited]
    return result


def name_problem(material: SceneMaterial) -> str | None:
    """Why the material's WEAR name (``row_name``) cannot be written, naming the material; None when it can."""
    name = row_name(material)
    try:
        game_bytes(name)
    except UnicodeEncodeError as exc:
        return (f"material {material.name!r}: its name cannot be stored in code page 1251, as the game's material "
                f"list needs (character U+{ord(name[exc.start]):04X} is not in it): rename the material")
    return None


def _source_wear(data: bytes | None) -> Wear | None:
    if data is None:
        return None
    try:
        return parse_wear(data)
    except FormatError:
        return None


def row_name(material: SceneMaterial) -> str:
    """The WEAR name of a material: its imported row name while the artist kept the name the import gave, else its
    own name (without the ``.001`` of a Blender duplicate)."""
    if not material.name:
        return DEFAULT_ROW
    imported = material.wear_name
    if imported is None and material.wear_index is not None:  # imported without a list: a placeholder name
        imported = placeholder_name(material.wear_index)
    if imported is not None and _named_by_the_import(material, imported):
        return imported
    return unnumbered(material.name)


def _named_by_the_import(material: SceneMaterial, row: str) -> bool:
    """Whether the material's name is what Blender made of the name the import asked for: the row's name (a
    lightmapped one ``NAME + LIGHTMAP``), cut to Blender's name length, and numbered if the name was taken. Blender
    numbers ``GLASS.001`` as it numbers ``GLASS`` (``GLASS.002``): it takes a row's own ``.1`` for a number."""
    name = material.name
    if name == row:
        return True
    base = unnumbered(name)
    numbered = base != name
    stem = f"{row} + " if material.lightmap is not None else row
    if material.lightmap is not None and name.startswith(stem):  # numbered or not: the number follows the stem
        return True
    if material.lightmap is None and numbered and base == family(row):
        return True
    cut = len(base.encode("utf-8")) > material.name_bytes - len(".001") - 4  # 4: the longest UTF-8 character
    return cut and stem.startswith(base)


def _new_library_entries(materials: list[SceneMaterial], options: MaterialOptions, result: MaterialExport) -> None:
    """MAT0 and Texm entries for the materials made in Blender (not imported)."""
    new = [m for m in materials if m.name and m.wear_index is None]
    if not new:
        return
    if not options.material_library:
        names = ", ".join(repr(row_name(m)) for m in new)
        result.warnings.append(f"new materials {names} are not in Material.lib: the game draws them with DEFAULT "
                               "unless you export with a material library")
        return
    if options.texture_format not in TEXTURE_FORMATS:
        raise FormatError.single("scene", None, f"texture format {options.texture_format} is not one of "
                                                f"{TEXTURE_FORMATS}")
    textures: dict[str, Texture] = {}
    for material in new:
        texture = ""
        image = material.image
        if image is not None and image.texture is not None:
            texture = image.texture.split("|", 1)[1]
        elif image is not None and image.pixels is not None:
            texture = texture_name(image.name)
            if not options.texture_library:
                result.warnings.append(f"image {image.name!r} of material {material.name!r} is not written: "
                                       "choose a texture library")
            elif texture not in textures:
                textures[texture] = encode_texm(image.pixels, options.texture_format)
        record = phase(display_rgba(material.diffuse), texture)
        result.new_materials.append((row_name(material), Material(blend_attr1(material.blend), phases=record[None])))
    result.new_textures = list(textures.items())


def texture_name(image_name: str) -> str:
    """A texture entry name the runtime accepts (a '.' within the first 17 characters, 15 bytes at most)."""
    base = unnumbered(image_name)
    stem, dot, suffix = base.rpartition(".")
    if not dot or not 1 <= len(suffix) <= 2:  # keep a game-style suffix (NAME.0); a file extension is not one
        stem, suffix = (stem if dot else base), "0"
    name = f"{stem[:14 - len(suffix)]}.{suffix}"
    problem = texture_name_problem(name)
    try:
        name.encode("cp1251")
    except UnicodeEncodeError:
        problem = f"image name {image_name!r} cannot be stored in code page 1251"
    if problem:
        raise FormatError.single("scene", None, f"{problem}: rename the image")
    return name
