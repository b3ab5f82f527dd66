"""What a new user meets in the first hour, outside Blender: the command line's ranges, the batch's folders,
the contact sheet's labels, the main job's outputs, the Russian README against the interface's words."""

from pathlib import Path

import pytest
from fixtures import run_cli

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("weight", ["2", "-0.5", "1.0001"])
def test_blend_refuses_a_weight_outside_0_to_1(capsys, weight):
    code, out, err = run_cli(capsys, "blend", ROOT / "samples" / "sample.msh", "--node", "0", "--ta", "0",
                             "--tb", "1", f"--weight={weight}")
    assert code == 2 and err.startswith("usage error:") and "outside 0 to 1" in err and out == ""


@pytest.mark.parametrize("weight", ["0", "1", "0.25"])
def test_blend_takes_a_weight_from_0_to_1(capsys, weight):
    code, _, err = run_cli(capsys, "blend", ROOT / "samples" / "sample.msh", "--node", "0", "--ta", "0",
                           "--tb", "1", f"--weight={weight}")
    assert code == 0, err
