"""Shared set-up of the Blender benchmarks: bpy with the extension registered, a timer, a generated model."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import blender_env  # noqa: E402  (imports bpy with an isolated user folder)

from core.authoring.build import build_model  # noqa: E402
from core.authoring.synth import random_model  # noqa: E402

bpy = blender_env.bpy


def timed(action) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def arguments(description: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--nodes", type=int, default=100)
    parser.add_argument("--frames", type=int, default=1000)
    parser.add_argument("--node-mode", default="ARMATURE", choices=("ARMATURE", "EMPTIES"))
    return parser.parse_args()


def start_blender() -> None:
    blender_env.register()
    bpy.ops.preferences.addon_enable(module="io_scene_gltf2")
    blender_env.clean_scene()


def write_generated(path: Path, nodes: int, frames: int) -> int:
    """A generated animated model (60% of nodes animated); returns its key count."""
    model = build_model(random_model(1, node_count=nodes, frame_count=frames, animated=0.6))
    path.write_bytes(model.to_bytes())
    return len(model.keys)


def run(main) -> None:
    """Run a benchmark's ``main`` and end the process without Blender's teardown (blender_env)."""
    main()
    blender_env.exit_without_teardown(0)
