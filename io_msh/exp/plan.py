"""The export's plan in plain Python: the stages run in order, from a scene read back (io_msh.exp.readback) to
the model to write (docs/export-pipeline.md). Each stage takes the earlier stages' data and returns its own:

1. ``scene_read``: the scene made ready (a scale baked, the poses at the exported frames, the source parsed);
2. ``node_decisions``: per node untouched, edited or new, and why; the materials; what is refused;
3. ``track_authoring``: the new tracks of the edited and new nodes;
4. ``assemble``: the model, spliced into the source or built from the scene, validated.

The export's options and result are named here as well, for the dialogs, the check and the writers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .assemble import ExportResult, assemble, refuse_oversized
from .node_decisions import decide
from .options import FRAME_RANGES, KEY_MODES, ExportOptions, exported_frames
from .scene_model import SceneModel
from .scene_read import read_for_export
from .track_authoring import author_node_tracks

if TYPE_CHECKING:
    from .check_cache import PlanMemo

__all__ = ["FRAME_RANGES", "KEY_MODES", "ExportOptions", "ExportResult", "export_model", "exported_frames",
           "refuse_oversized"]


def export_model(scene: SceneModel, options: ExportOptions, memo: PlanMemo | None = None) -> ExportResult:
    """The model to write; raises FormatError naming what cannot be written. ``memo``: what the last export
    check planned, for the next check (io_msh.exp.check_cache; the export passes none)."""
    read = read_for_export(scene, options)
    decisions = decide(read, options)
    authored = author_node_tracks(read, decisions, options, memo)
    return assemble(read, decisions, authored, options, memo)
