"""Export options past what Blender or the format can hold are refused before anything is allocated."""

import importlib

import numpy as np
import pytest


def test_a_range_past_blender_s_last_frame_is_refused(blender):
    plan = importlib.import_module(f"{blender.ext.__name__}.io_msh.exp.plan")
    options = plan.ExportOptions(frame_range="CUSTOM", end_frame=2_147_483_647)
    with pytest.raises(blender.ext.core.errors.FormatError, match="after Blender's last frame 1,048,574"):
        plan.exported_frames(options, np.zeros(0), 0.0, 250)
    last = plan.ExportOptions(frame_range="CUSTOM", end_frame=1_048_574)
    frames, _warnings = plan.exported_frames(last, np.zeros(0), 0.0, 250)
    assert frames[-1] == 1_048_574
