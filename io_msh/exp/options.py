"""What the export is asked for (the dialog's options) and the frames it exports: the input of every stage of
the export pipeline (docs/export-pipeline.md)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...core.animation.keys import Tolerance
from ...core.errors import FormatError
from ..imp.plan import BLENDER_LAST_FRAME

KEY_MODES = ("REDUCED", "EVERY_FRAME", "BLENDER_KEYS")
FRAME_RANGES = ("ACTION", "SCENE", "CUSTOM")
SAME_POSITION = 1e-4  # below these a node's pose counts as its original track's
SAME_ROTATION = 1e-4  # radians


@dataclass
class MaterialOptions:
    material_library: str = ""   # Material.lib to add new materials to ('' = none)
    texture_library: str = ""    # Textures.lib to add their new images to ('' = none)
    texture_format: int = 8888


@dataclass
class ExportOptions:
    keys: str = "REDUCED"
    tolerance: Tolerance = field(default_factory=Tolerance)
    # Below these a node's pose counts as unchanged from its original track.
    same_position: float = SAME_POSITION
    same_rotation: float = SAME_ROTATION  # radians
    materials: MaterialOptions = field(default_factory=MaterialOptions)
    force: bool = False  # replace read-only files
    replace_changed: bool = False  # replace a model another program changed after the import
    # The exported frames are 0 .. an end frame (Blender frame f is MSH time f, as the import shows it):
    # ACTION the end of the actions' frame range (their manual range, else their last keyframe),
    # SCENE the scene's end frame, CUSTOM ``end_frame``.
    frame_range: str = "ACTION"
    end_frame: int = 0


def exported_frames(options: ExportOptions, keyframes: np.ndarray, action_end: float,
                    scene_end: int) -> tuple[np.ndarray, list[str]]:
    """The frames to sample, 0 .. the range's end, and a warning when keyframes lie outside them.

    Frame 0 is the start of the game's clock (time 0), whatever the scene's start frame; frames before
    it cannot be stored.
    """
    if options.frame_range not in FRAME_RANGES:
        raise FormatError.single("scene", None, f"unknown frame range {options.frame_range!r}")
    ends = {"ACTION": int(np.ceil(action_end)), "SCENE": scene_end, "CUSTOM": options.end_frame}
    end = ends[options.frame_range]
    if end < 0:
        raise FormatError.single("scene", None, f"the {options.frame_range.lower()} range ends at frame {end}, "
                                                "before frame 0 (the game's time 0)")
    if end > BLENDER_LAST_FRAME:
        raise FormatError.single("scene", None, f"the {options.frame_range.lower()} range ends at frame {end:,}, "
                                                f"after Blender's last frame {BLENDER_LAST_FRAME:,}")
    warnings = []
    outside = int(((keyframes < 0) | (keyframes > end)).sum())
    if outside:
        warnings.append(f"{outside} keyframe(s) lie outside the exported frames 0..{end} and are not exported "
                        "(frame 0 is the game's time 0)")
    return np.arange(end + 1, dtype=np.float64), warnings
