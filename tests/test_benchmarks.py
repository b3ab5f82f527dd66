"""Every benchmark script runs at a tiny size, so that a re-layout cannot silently break one.

The figures are not checked here (speed goals live in the scripts' output, never in timed tests): only that
each script runs to its end and prints what it measures.
"""

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"

TINY = {
    "asset_library.py": ["--models", "11", "--units", "1", "--size", "16"],
    "batch_convert.py": ["--models", "3", "--repeat", "1"],
    "bounded_memory.py": ["--cases", "plan-unmapped-1M", "info-aliasing-20k"],
    "cli_sample.py": ["--count", "64"],
    "cli_start.py": ["--repeat", "1"],
    "clip_import.py": ["--nodes", "3", "--frames", "20", "--clips", "2", "--rounds", "1"],
    "clip_edit_soak.py": ["--examples", "2", "--steps", "4", "--seed", "1"],
    "figures_live_planning.py": ["--plan", "3", "8"],
    "clip_planning.py": ["--states", "5", "20"],
    "edges_sweep.py": ["--examples", "2", "--seed", "1"],
    "edit_cycle.py": ["--nodes", "3", "--frames", "8", "--repeat", "1"],
    "export_vs_gltf.py": ["--nodes", "3", "--frames", "8"],
    "figures_cli_map.py": [],  # its own tiny game folder
    "game_scale.py": ["--scale", "tiny", "--repeat", "1"],
    "import_floor.py": ["--nodes", "3", "--frames", "8", "--repeat", "1"],
    "import_vs_gltf.py": ["--nodes", "3", "--frames", "8"],
    "live_check.py": ["--nodes", "3", "--frames", "8"],
    "load_500.py": ["--models", "3"],
    "material_import.py": ["--materials", "2", "--period-ms", "200", "--rounds", "1"],
    "pose_soak.py": ["--examples", "2", "--seed", "1"],
    "map_import.py": ["--grid", "2", "--subdivisions", "1", "--objects", "4", "--kinds", "4", "--repeat", "1"],
    "sampler_throughput.py": ["--nodes", "3", "--frames", "8", "--scalar", "10"],
    "scale.py": ["--parts", "scene", "gltf_scene", "archive", "export", "--models", "6", "--archive-models", "2",
                 "--export-nodes", "4", "--export-frames", "8", "--repeat", "1"],
    "texture_decode.py": ["--size", "16"],
    "validate_overlap.py": ["--count", "16"],
}
SHARED = {"blender_bench.py", "peak_memory.py"}  # imported by the others, not benchmarks
SMOKED_ELSEWHERE = {"unit_scale.py"}  # tests/test_unit_scale.py runs it at a tiny size and reads its rows


def test_every_benchmark_script_has_a_tiny_size():
    scripts = {p.name for p in BENCHMARKS.glob("*.py")} - SHARED - SMOKED_ELSEWHERE
    assert scripts == set(TINY), "give a new benchmark its tiny arguments here"


@pytest.mark.parametrize("script", sorted(TINY))
def test_benchmark_runs_at_a_tiny_size(script, tmp_path):
    run = subprocess.run([sys.executable, str(BENCHMARKS / script), *TINY[script]], capture_output=True,
                         text=True, timeout=600, cwd=tmp_path)
    assert run.returncode == 0, f"{script} failed:\n{run.stdout[-2000:]}\n{run.stderr[-3000:]}"
    assert run.stdout.strip(), f"{script} printed nothing"
    assert "Traceback" not in run.stderr, run.stderr[-3000:]
