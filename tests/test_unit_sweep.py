"""A stateful sweep of careless edit sequences on a unit through the real operators, in both
node modes (tests/unit_sweep.py says what is drawn and the invariant). A small fixed budget here; the soak is
scripts/unit_edit_sweep.py --examples N."""

from hypothesis import HealthCheck, settings
from hypothesis.stateful import run_state_machine_as_test
from unit_sweep import unit_sweep

BUDGET = settings(max_examples=8, stateful_step_count=10, derandomize=True, deadline=None,
                  suppress_health_check=list(HealthCheck))


def test_every_export_writes_every_edit_and_nothing_else_or_is_refused(blender):
    run_state_machine_as_test(unit_sweep(blender.bpy, blender.clean_scene), settings=BUDGET)
