"""The editable values of the states a model's clips play, as custom properties on the model root (Object
Properties > Custom Properties): per state its frame pairs A and B and its step length. The values as read,
and where the controller was, are kept in ``P.STATES_IMPORTED`` (JSON), so that the export writes back only
what was edited (io_msh.exp.state_edits)."""

from __future__ import annotations

import hashlib
import json

import bpy

from ..com import props as P
from .clips import ControllerPlan

DESCRIPTIONS = {
    "frames A": "Controller state {index}: pair A, the first and last timeline frame of the pose the step "
                "blends from (a negative frame leaves the pair out, as -1 does in the game's files)",
    "frames B": "Controller state {index}: pair B, the first and last timeline frame the step plays (the pose "
                "shown when fully blended; a negative frame leaves the pair out)",
    "step ms": "Controller state {index}: step length in milliseconds; 0 = set by stride/speed (a fixed-step "
               "state takes it as it is; the game holds a step to 10..5000 ms)",
}


def build_state_properties(root: bpy.types.Object, controller: ControllerPlan, frame_count: int, options) -> None:
    """A property per field of every played state, described, and the values as read (with the clip options
    of the import, for Update Clips)."""
    if not controller.states or controller.found is None:
        return
    last = float(max(frame_count - 1, 0))
    for index, fields in controller.states.items():
        for name, values in fields.items():
            prop = P.state_property(index, name)
            root[prop] = values if name != "step ms" else values[0]
            ui = root.id_properties_ui(prop)
            if name == "step ms":
                ui.update(min=0.0, soft_min=0.0, soft_max=5000.0, precision=1, step=100,
                          description=DESCRIPTIONS[name].format(index=index))
            else:
                ui.update(soft_min=-1.0, soft_max=last, precision=3, step=10,
                          description=DESCRIPTIONS[name].format(index=index))
    found = controller.found
    root[P.STATES_IMPORTED] = json.dumps({
        "file": found.file, "entry": found.entry, "source": found.source,
        "digest": hashlib.sha256(found.data).hexdigest(),
        "states": {str(index): fields for index, fields in controller.states.items()},
        "clips": [[clip.name, sorted(set(clip.states))] for clip in controller.clips],
        "options": {"clips": options.clips, "root_motion": options.root_motion, "frame_rate": options.frame_rate},
    })

