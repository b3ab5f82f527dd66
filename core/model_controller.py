"""A model's controller: where it is found (beside a model file, or a CTLD entry of its archive) and the check of
it against the model. ``python -m core clips`` / ``sample --clip`` and the Blender import both use these, so
they take the same controller and say the same words about it (docs/formats/controller.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .animation.controller.codec import CTLD_TYPE_ID, Controller, read_controller, validate_controller
from .container.nres import Entry
from .disk import names_in, read_input
from .errors import Finding
from .files import Container
from .msh.model import Model

CONTROLLER_SUFFIX = ".ctl"


@dataclass
class FoundController:
    """A model's controller as found: its bytes, where they came from (for messages), the file holding them and,
    in an archive, the CTLD entry's name."""

    data: bytes
    source: str
    file: str
    entry: str | None = None


def controller_beside(path: str | Path) -> Path | None:
    """``STEM.ctl`` beside a model file (any case, as the game's file system), or None."""
    path = Path(path)
    try:
        name = names_in(path.parent).get(path.stem.lower() + CONTROLLER_SUFFIX)
    except OSError:
        return None
    return path.parent / name if name else None


def controller_entry(archive, model_name: str | None) -> Entry | None:
    """An archive's CTLD entry for the model named ``model_name``: the one named like it (stem, any case), else
    the archive's only one unless it is named like another model of the archive; None when neither."""
    found = [e for e in archive.entries if e.type_id == CTLD_TYPE_ID]
    stem = Path(model_name).stem.lower() if model_name else ""
    named = [e for e in found if Path(e.name_str).stem.lower() == stem]
    others = {Path(e.name_str).stem.lower() for e in archive.entries
              if e.type_id != CTLD_TYPE_ID and Path(e.name_str).suffix.lower() == ".msh"} - {stem}
    chosen = named[:1] or (found if len(found) == 1 and Path(found[0].name_str).stem.lower() not in others else [])
    return chosen[0] if chosen else None


def locate_controller(container: Container, entry: Entry | None) -> FoundController | None:
    """The controller of the model file ``container`` or of its model ``entry``; None when it has none."""
    if container.is_model:
        path = controller_beside(container.path)
        return FoundController(read_input(str(path)), str(path), str(path)) if path is not None else None
    chosen = controller_entry(container.archive, entry.name_str if entry is not None else None)
    if chosen is None:
        return None
    return FoundController(bytes(container.payload(chosen)), f"{container.path}:{chosen.name_str}",
                           container.path, chosen.name_str)


def where_looked(container: Container) -> str:
    """Where ``locate_controller`` looks, for a message that none was found."""
    if container.is_model:
        return f"{Path(container.path).stem}{CONTROLLER_SUFFIX} beside the model"
    return "a CTLD entry named like the model, or the archive's only one"


def read_for_model(data: bytes, source: str, model: Model | None) -> tuple[Controller, list[Finding]]:
    """The controller and its findings, checked against the model's nodes and frames when there is a model
    (``validate_controller``). Every state, channel and component is kept: one whose index cannot be resolved
    is reported, not a reason to drop the file. FormatError only when the sections do not fit the bytes."""
    controller, findings = read_controller(data, source)
    if model is not None:
        findings = validate_controller(controller, node_count=model.node_count, frame_count=model.frame_count)
    return controller, findings
