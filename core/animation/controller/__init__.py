"""Robot controllers (``.ctl``, NRes tag CTLD; dragonee/openparkan docs/13-control.md): the lossless codec and its
validator (codec), the transition graph the planner runs over (graph), and what the game makes of them: the clips
an anchor plans back to itself, step timing and the pose at a step (clips)."""

from .clips import (
    Clip,
    ClipStep,
    Step,
    channel_frame,
    clips_of,
    load_costs,
    pose_at_step,
    step_at,
    step_duration_ms,
    stride,
)
from .codec import CTLD_TYPE_ID, Component, Controller, parse_controller, read_controller, validate_controller
from .graph import plan_cycle

__all__ = [
    "CTLD_TYPE_ID", "Clip", "ClipStep", "Component", "Controller", "Step", "channel_frame", "clips_of",
    "load_costs", "parse_controller", "plan_cycle", "pose_at_step", "read_controller", "step_at",
    "step_duration_ms", "stride", "validate_controller",
]
