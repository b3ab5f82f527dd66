"""Rewrite a file through the codecs and compare: the lossless check of ``python -m core roundtrip``."""

from __future__ import annotations

from ..animation.controller.codec import CTLD_TYPE_ID, read_controller
from ..appearance.mat0 import MAT0_TYPE_ID, material_of
from ..appearance.texm import TEXM_TYPE_ID, parse_texm
from ..container.nres import Archive
from ..errors import FormatError
from ..files import Container, read_container
from ..fonts import is_font, parse_font
from ..map.folder import rewritten_archive
from ..msh.model import Model
from .effects import EFFECT_TYPES, rewritten_member
from .interior import BAS_TYPE_ID, rewritten_plan, with_hallway_rewritten


def rewritten(container: Container) -> bytes:
    """The file's bytes as the writer produces them after decoding every stream."""
    if container.map_kind is not None:
        return rewritten_archive(container.archive, container.map_kind, container.path)
    if container.is_model:
        return with_hallway_rewritten(container.open_model().reencoded()).to_bytes()
    archive = Archive.parse(container.to_bytes(), container.path)
    for entry in archive.models():
        if entry.alias_of is not None:  # rewritten with the entry it aliases
            entry.data = entry.alias_of.data
            continue
        try:
            entry.data = with_hallway_rewritten(Model.parse(entry.data, entry.name_str).reencoded()).to_bytes()
        except FormatError as exc:
            raise FormatError([f.located(entry.name_str) for f in exc.findings], container.path) from None
    for entry in archive.entries:
        # Textures and materials go through their codecs too; one that does not decode stays raw (validate says why).
        if entry.alias_of is not None:
            entry.data = entry.alias_of.data
            continue
        try:
            if entry.type_id == TEXM_TYPE_ID:
                entry.data = parse_texm(entry.data).to_bytes()
            elif entry.type_id == MAT0_TYPE_ID:
                entry.data = material_of(entry).to_bytes()
            elif entry.type_id == CTLD_TYPE_ID:
                entry.data = read_controller(entry.data)[0].to_bytes()
            elif entry.type_id in EFFECT_TYPES:
                entry.data = rewritten_member(entry)
            elif entry.type_id == BAS_TYPE_ID:
                entry.data = rewritten_plan(entry)
            elif is_font(entry.data):  # sys.lib's and ui/font.lib's fonts
                entry.data = parse_font(entry.data).to_bytes()
        except FormatError:
            continue
    return archive.to_bytes()


def first_difference(a: bytes, b: bytes) -> int | None:
    if a == b:
        return None
    limit = min(len(a), len(b))
    step = 4096
    for base in range(0, limit, step):
        if a[base:base + step] != b[base:base + step]:
            return next(i for i in range(base, min(base + step, limit)) if a[i] != b[i])
    return limit


def describe_offset(data: bytes, offset: int) -> str:
    """Where ``offset`` lies in the NRes ``data``: header, directory, or an entry (recursively)."""
    try:
        archive = read_container(data).archive
    except FormatError:
        return f"byte {offset}"
    label, entry, inner = archive.region_at(offset)
    text = f"{label} at +{inner}"
    if entry is not None and bytes(entry.data[:4]) == b"NRes":
        text += ", " + describe_offset(bytes(entry.data), inner)
    elif entry is not None and entry.type_id < 0x100:
        text = f"stream Res{entry.type_id} (entry {entry.name_str!r}) at +{inner}"
    return text
