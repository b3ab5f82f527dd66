"""Edited controller states written back into the ``.ctl`` (docs/formats/controller.md): a played
state's frame pairs and step length, as the model root's ``msh_state`` properties hold them.

A field is edited when its value, as float32, differs from the value read at import (``P.STATES_IMPORTED``);
only the edited fields are rewritten, every other byte of the controller stays as it is. The controller is the
export target's (the archive's CTLD entry chosen as the import chooses it, or ``STEM.ctl`` beside the model
file); when the target has none, the one the model was imported with, written beside the model (``STEM.ctl``)
or added to the archive (a CTLD entry ``STEM.ctl``). An unedited root reads and writes no controller.
"""

from __future__ import annotations

import hashlib
import json
import numbers
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...core.animation.controller import CTLD_TYPE_ID, read_controller, validate_controller
from ...core.animation.controller.edit import StateEdit, edit_problem, edit_states
from ...core.container.nres import Archive
from ...core.disk import FileState, read_input, read_with_state
from ...core.errors import FormatError, error, printable
from ...core.files import read_container
from ...core.msh.model import Model
from ..com import props as P
from ..imp.clips import controller_beside, controller_entry


@dataclass
class Imported:
    """What the import kept: where the controller was, its digest, and the played states' values."""

    file: str
    entry: str | None
    source: str
    digest: str
    states: dict[int, dict[str, list[float]]]


def imported_states(root) -> Imported | None:
    raw = root.get(P.STATES_IMPORTED)
    if raw is None:
        return None
    try:
        kept = json.loads(str(raw))
        return Imported(str(kept["file"]), kept.get("entry"), str(kept.get("source", kept["file"])),
                        str(kept.get("digest", "")),
                        {int(k): {f: [float(v) for v in vs] for f, vs in fields.items()}
                         for k, fields in kept["states"].items()})
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise FormatError.single("state", None, f"the root's {P.STATES_IMPORTED!r} is not as the import wrote "
                                                f"it ({exc}); import the model again") from None


def state_edits(root, model: Model | None = None) -> list[StateEdit]:
    """The edited fields of the root's states; FormatError naming the state, the field and the property for a
    value the game cannot take (not a number, a negative step length, a frame past ``model``'s timeline).
    A deleted property counts as unedited."""
    imported = imported_states(root)
    if imported is None:
        return []
    edits, problems = [], []
    frame_count = model.frame_count if model is not None else None
    for state, fields in imported.states.items():
        for name, was in fields.items():
            prop = P.state_property(state, name)
            if prop not in root:
                continue
            values = _numbers(root[prop], len(was))
            if values is None:
                problems.append(error("state", state, f"{name}: property {prop!r} on {root.name!r} holds "
                                                      f"{_describe(root[prop])}, needs {len(was)} number(s)"))
                continue
            if _same(values, was):
                continue
            with np.errstate(over="ignore"):
                stored = np.float32(values)
            if np.any(np.isinf(stored) & np.isfinite(values)):
                problems.append(error("state", state, f"{name} {', '.join(f'{v:g}' for v in values)}: too large "
                                                      f"for the file's 32-bit float; property {prop!r} on "
                                                      f"{root.name!r}"))
                continue
            edit = StateEdit(state, name, tuple(float(v) for v in stored))
            problem = edit_problem(edit, frame_count)
            if problem is not None:
                problems.append(error("state", state, f"{problem}; property {prop!r} on {root.name!r}"))
            edits.append(edit)
    if problems:
        raise FormatError(problems)
    return edits


def _numbers(value, size: int) -> list[float] | None:
    items = [value] if size == 1 and not hasattr(value, "__len__") else list(value) \
        if hasattr(value, "__len__") and not isinstance(value, str) else None
    if items is None or len(items) != size:
        return None
    if not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in items):
        return None
    return [float(v) for v in items]


def _describe(value) -> str:
    if isinstance(value, str):
        return f"text {value!r}"
    try:
        return repr(list(value)) if hasattr(value, "__len__") else repr(value)
    except TypeError:
        return type(value).__name__


def _same(values: list[float], was: list[float]) -> bool:
    with np.errstate(over="ignore"):
        a, b = np.float32(values), np.float32(was)
    return bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))


# ------------------------------------------------------------------ the controller written
# The digests of the controllers this process made with edited states: one found on disk is an export's own
# write (a record Ctrl+Z does not take back), not another controller than the imported one.
_MADE: set[str] = set()


@dataclass
class EditedController:
    data: bytes          # the controller's new bytes
    source: str          # where its old bytes came from (for messages)
    warnings: list[str]


def edited_controller(old: bytes, source: str, edits: list[StateEdit], model: Model,
                      imported: Imported) -> EditedController:
    """The controller ``old`` with the edits written in, validated against the exported model (node and frame
    ranges); FormatError naming the controller when it is bad or the edits make it so. Warnings: findings the
    edits add, and a controller that is not the one imported."""
    controller, before = read_controller(old, source)
    before += validate_controller(controller, node_count=model.node_count, frame_count=model.frame_count)
    errors = [f for f in before if f.is_error]
    if errors:
        raise FormatError(errors, source)
    edited = edit_states(controller, edits, model.frame_count, source)
    after = validate_controller(edited, node_count=model.node_count, frame_count=model.frame_count)
    if any(f.is_error for f in after):
        raise FormatError([f for f in after if f.is_error], source)
    known = {f.format() for f in before}
    warnings = [f.format(source) for f in after if f.format() not in known]
    digest = hashlib.sha256(old).hexdigest()
    if imported.digest and digest != imported.digest and digest not in _MADE:
        if source == imported.source:
            warnings.append(f"{printable(source)} changed since the model was imported (another program wrote "
                            "it): the edited state fields were written into it, the rest of it kept as it is now")
        else:
            warnings.append(f"{printable(source)} is not the controller the model was imported with "
                            f"({printable(imported.source)}): the edited state fields were written into it, the "
                            "rest of it kept")
    data = edited.to_bytes()
    _MADE.add(hashlib.sha256(data).hexdigest())
    return EditedController(data, source, warnings)


def _names(edits: list[StateEdit]) -> str:
    return ", ".join(P.state_property(e.state, e.field) for e in edits)


def imported_controller(imported: Imported) -> tuple[bytes | None, str]:
    """The controller the model was imported with, read again from where it was; (None, why) when it is gone."""
    try:
        if imported.entry is None:
            return read_input(imported.file), imported.source
        archive = read_container(read_input(imported.file), imported.file)
        if archive.is_model:
            return None, f"{printable(imported.file)} is no longer an archive"
        entry = next((e for e in archive.archive.entries if e.name_str == imported.entry
                      and e.type_id == CTLD_TYPE_ID), None)
        if entry is None:
            return None, f"{printable(imported.file)} no longer holds the CTLD entry {imported.entry!r}"
        return bytes(entry.data), imported.source
    except FileNotFoundError:
        return None, f"{printable(imported.file)}, the controller the model was imported with, is gone"
    except (OSError, FormatError) as exc:
        return None, f"{printable(imported.file)} cannot be read ({exc})"


@dataclass
class ControllerWrite:
    """The edits to write for an export, decided before anything is written."""

    edits: list[StateEdit]
    imported: Imported
    model: Model
    warnings: list[str]

    def into_archive(self, archive: Archive, model_name: str, path: str) -> None:
        """Write the edits into the archive's controller for ``model_name`` (its CTLD entry as the import
        chooses it), else add the imported controller, edited, as the CTLD entry ``STEM.ctl``."""
        entry = controller_entry(archive, model_name)
        if entry is not None:
            done = edited_controller(bytes(entry.data), f"{path}:{entry.name_str}", self.edits, self.model,
                                     self.imported)
            entry.data = done.data
            self.warnings += done.warnings + _shared(archive, entry, model_name, path, self.edits)
            return
        old, where = imported_controller(self.imported)
        if old is None:
            self._not_written(f"the archive {printable(path)} has no CTLD entry for {model_name!r} and {where}")
            return
        done = edited_controller(old, where, self.edits, self.model, self.imported)
        archive.add(f"{Path(model_name).stem}.ctl", done.data, CTLD_TYPE_ID)
        self.warnings += done.warnings

    def beside(self, path: str, read_as: dict[str, FileState | None]) -> tuple[str, bytes] | None:
        """The ``.ctl`` file to write beside the model file ``path``: the one there (any case), edited, else the
        imported controller, edited, as ``STEM.ctl``; None (and a warning) when neither is found."""
        found = controller_beside(path)
        if found is not None:
            old, read_as[str(found)] = read_with_state(found)
            done = edited_controller(old, str(found), self.edits, self.model, self.imported)
            self.warnings += done.warnings
            return str(found), done.data
        old, where = imported_controller(self.imported)
        if old is None:
            self._not_written(f"there is no {Path(path).stem}.ctl beside {printable(path)} and {where}")
            return None
        done = edited_controller(old, where, self.edits, self.model, self.imported)
        target = str(Path(path).with_suffix(".ctl"))
        read_as[target] = None
        self.warnings += done.warnings
        return target, done.data

    def _not_written(self, why: str) -> None:
        self.warnings.append(f"the edited controller states ({_names(self.edits)}) were not written: {why}")


def _shared(archive: Archive, entry, model_name: str, path: str, edits: list[StateEdit]) -> list[str]:
    """The warning when other models of the archive play the edited controller too (an archive's only CTLD
    entry is every model's that has none named after it): their clips change as well."""
    others = sorted(e.name_str for e in archive.models()
                    if e.name_str != model_name and controller_entry(archive, e.name_str) is entry)
    if not others:
        return []
    return [f"{printable(path)}:{entry.name_str} is the controller of {', '.join(map(printable, others))} too: the "
            f"edited states ({_names(edits)}) change their clips as well"]


def controller_write(root, model: Model) -> ControllerWrite | None:
    """The edits the export writes into a controller (None: none edited); FormatError for bad values."""
    edits = state_edits(root, model)
    if not edits:
        return None
    return ControllerWrite(edits, imported_states(root), model, [])
