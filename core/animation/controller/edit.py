"""Edited state values written back into a controller: a state's frame pairs and step length (state record
+0x0C, +0x14, +0x20; dragonee/openparkan docs/24-motion.md). Only the edited fields change; every other byte
of the controller is written as it was read (the codec is lossless).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ...errors import FormatError, error
from .codec import CONTACT, HEADER_BYTES, STATE, Controller

# The editable fields: the name an artist sees -> the state record's field and its number of f32 words.
FIELDS = {"frames A": ("pair_a", 2), "frames B": ("pair_b", 2), "step ms": ("length_ms", 1)}


@dataclass(frozen=True)
class StateEdit:
    """New float32 values of one field of one state."""

    state: int
    field: str                   # a key of FIELDS
    values: tuple[float, ...]    # float32 values (2 frames, or 1 step length in ms)


def field_offset(controller: Controller, state: int, field: str) -> int:
    """The byte offset of a state's field in the controller's bytes (section 1 starts at byte 128; a state is
    156 bytes and its B contacts of 16)."""
    record = STATE.itemsize + CONTACT.itemsize * controller.contacts.shape[1]
    return HEADER_BYTES + state * record + STATE.fields[FIELDS[field][0]][1]


def edit_problem(edit: StateEdit, frame_count: int | None) -> str | None:
    """Why the game cannot take the edit (a sentence), or None: a value that is not a number, a negative step
    length, a frame past the model's timeline (the sampler maps frame t while floor(t) < frame count; a
    negative frame leaves its pair out, as -1 does in the files)."""
    values = np.asarray(edit.values, np.float32)
    if not np.all(np.isfinite(values)):
        return f"{edit.field} {_shown(values)}: not a number"
    if edit.field == "step ms":
        return f"step length {_shown(values)} ms is negative (0 ms: set by stride and speed)" if values[0] < 0 \
            else None
    if frame_count is not None and np.any(values >= frame_count):
        return (f"{edit.field} {_shown(values)} reach past the model's last frame {frame_count - 1} "
                f"({frame_count} frames)")
    return None


def edit_states(controller: Controller, edits: list[StateEdit], frame_count: int | None = None,
                source: str = "") -> Controller:
    """A copy of the controller with the edits' fields replaced; FormatError naming every state and field the
    game cannot take (``edit_problem``), or a state the controller does not have. The input is not changed."""
    problems = []
    for edit in edits:
        if edit.field not in FIELDS:
            problems.append(error("state", edit.state, f"no field {edit.field!r}"))
        elif not 0 <= edit.state < len(controller.states):
            problems.append(error("state", edit.state, f"{edit.field}: the controller has {len(controller.states)} "
                                                       "states"))
        elif len(edit.values) != FIELDS[edit.field][1]:
            problems.append(error("state", edit.state, f"{edit.field}: {len(edit.values)} values, needs "
                                                       f"{FIELDS[edit.field][1]}"))
        else:
            problem = edit_problem(edit, frame_count)
            if problem is not None:
                problems.append(error("state", edit.state, problem))
    if problems:
        raise FormatError(problems, source)
    states = controller.states.copy()
    for edit in edits:
        name, size = FIELDS[edit.field]
        value = np.asarray(edit.values, np.float32)
        states[name][edit.state] = value if size > 1 else value[0]
    return replace(controller, states=states)


def _shown(values: np.ndarray) -> str:
    shown = [f"{float(v):g}" for v in values]
    return shown[0] if len(shown) == 1 else "(" + ", ".join(shown) + ")"
