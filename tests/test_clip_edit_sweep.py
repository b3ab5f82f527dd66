"""The careless clip edit sweep (tests/clip_sweep.py) with a small fixed budget; the soak is
scripts/clip_edit_soak.py --examples N."""

from clip_sweep import sweep_machine, walker_folder
from hypothesis import HealthCheck, settings
from hypothesis.stateful import run_state_machine_as_test


def test_careless_clip_edits_are_written_or_refused(blender, tmp_path):
    data = walker_folder(tmp_path)
    machine = sweep_machine(blender, tmp_path, data)
    run_state_machine_as_test(machine, settings=settings(
        derandomize=True, max_examples=25, stateful_step_count=15, deadline=None,
        suppress_health_check=list(HealthCheck)))
