"""Clip import speed: a walker of N nodes x F frames whose controller has C clips, imported
with Clips: Actions, against the timeline import (Clips: None) of the same model, in one process.

Each clip is a cycle of fixed-step states (pair A unused on the first, blended on the others) playing parts of
the timeline. Prints, per round: the timeline import, the clip import, the node-frames each writes, and the
clips' cost per node-frame as a multiple of the timeline import's; once with the clip planner sampling the whole
clip in one call (now) and once sampling one node at one key per call (before: ``blend_pose`` per node and key,
the planner's old loop), then the clip cost at C/2 clips and at half the clip length (linear in both?).
    .venv/bin/python benchmarks/clip_import.py [--nodes 20] [--frames 401] [--clips 8] [--steps 4]
"""

from __future__ import annotations

import argparse
import atexit
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
from blender_bench import blender_env, bpy, build_model, run, start_blender, timed

from core.animation.controller.codec import ANCHOR, CONTACT, FIXED_STEP, NO_EDGE, Controller
from core.animation.sampler import blend_pose
from core.authoring.controllers import default_params, state
from core.authoring.synth import random_model

RATE = 24.0


def walker_controller(clips: int, steps: int, frames: int, step_ms: float) -> Controller:
    """``clips`` anchors, each a cycle of ``steps`` fixed-step states over its own stretch of the timeline."""
    states, span = [], max(1.0, (frames - 1) / (clips * steps))
    for c in range(clips):
        for k in range(steps):
            start = (c * steps + k) * span
            pair_a = (-1.0, -1.0) if k == 0 else (start - span / 2, start)
            states.append(state((ANCHOR if k == 0 else 0) | FIXED_STEP, pair_a, (start, start + span), step_ms,
                                blend=1.0 if k % 2 else 0.6))
    count = len(states)
    costs = np.full((count, count), NO_EDGE, "<f4")
    for c in range(clips):
        for k in range(steps):
            costs[c * steps + (k + 1) % steps, c * steps + k] = 1.0
    return Controller(default_params(), np.array(states), np.zeros((count, 0), CONTACT), costs)


def per_key_step_poses(module):
    """The planner's sampling before it took a whole clip in one call: one ``blend_pose`` per node per key."""
    unit = module._unit

    def step_poses(anim, frame_a, frame_b, weight, ids):
        rotation = np.tile([1.0, 0, 0, 0], (len(frame_a), len(ids), 1))
        location = np.zeros((len(frame_a), len(ids), 3))
        for k in range(len(frame_a)):
            for row, node in enumerate(ids):
                pose = blend_pose(anim, node, float(frame_a[k]), float(frame_b[k]), float(weight[k]))
                if pose is not None:
                    rotation[k, row], location[k, row] = unit(pose[0]), pose[1]
        return rotation, location
    return step_poses


def import_time(path: Path, clips: str, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        blender_env.clean_scene()
        best = min(best, timed(lambda: bpy.ops.import_scene.parkan_msh(filepath=str(path), clips=clips,
                                                                          frame_rate=RATE)))
    return best


def written_clip_frames() -> int:
    return sum(len(fc.keyframe_points) for a in bpy.data.actions if "msh_clip" in a
               for fc in _curves(a) if fc.data_path.endswith("location") and fc.array_index == 0)


def _curves(action):
    if hasattr(action, "fcurves"):
        return action.fcurves
    return [fc for layer in action.layers for strip in layer.strips for bag in strip.channelbags for fc in bag.fcurves]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=20)
    parser.add_argument("--frames", type=int, default=401)
    parser.add_argument("--clips", type=int, default=8)
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--step-ms", type=float, default=500.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    start_blender()
    module = sys.modules[f"{blender_env.ext.__name__}.io_msh.imp.clips"]
    folder = Path(tempfile.mkdtemp(prefix="io_msh_bench_"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    msh = folder / "walker.msh"
    msh.write_bytes(build_model(random_model(3, node_count=args.nodes, frame_count=args.frames, animated=1.0,
                                             every_frame=True)).to_bytes())

    def with_controller(clips: int, step_ms: float) -> None:
        (folder / "walker.ctl").write_bytes(walker_controller(clips, args.steps, args.frames, step_ms).to_bytes())

    with_controller(args.clips, args.step_ms)
    import_time(msh, "NONE", 1)  # warm-up: the first import in a process pays one-off costs
    timeline = clips = float("inf")
    for _ in range(args.rounds):  # interleaved, each the best of its rounds: the machine's load varies
        timeline = min(timeline, import_time(msh, "NONE", 1))
        clips = min(clips, import_time(msh, "ACTIONS", 1))
    written = written_clip_frames()
    timeline_frames = args.nodes * args.frames
    per_frame = timeline / timeline_frames
    print(f"Blender {bpy.app.version_string}; walker: {args.nodes} nodes x {args.frames} frames, {args.clips} "
          f"clips of {args.steps} steps of {args.step_ms:g} ms at {RATE:g} fps")
    print(f"timeline import (Clips: None):          {timeline:7.3f} s  {timeline_frames} node-frames")

    def line(label: str, seconds: float) -> float:
        ratio = (seconds - timeline) / max(written, 1) / per_frame
        print(f"clips, {label:31s} {seconds:7.3f} s  {written} clip node-frames; clips cost {ratio:6.2f}x the "
              "timeline per node-frame")
        return seconds - timeline
    now = line("whole clip per call (now)", clips)
    fast = module.step_poses
    module.step_poses = per_key_step_poses(module)
    try:
        before = line("one node-key per call (before)", import_time(msh, "ACTIONS", 1))
    finally:
        module.step_poses = fast
    print(f"clip cost now / before: {now / before:.3f}")
    for count, step_ms, what in ((max(1, args.clips // 2), args.step_ms, "half the clips"),
                                 (args.clips, args.step_ms / 2, "half the clip length")):
        with_controller(count, step_ms)
        cost = min(import_time(msh, "ACTIONS", 1) - min(timeline, import_time(msh, "NONE", 1))
                   for _ in range(args.rounds))
        print(f"{what:22s} clip cost {cost:7.3f} s = {cost / max(now, 1e-9):.2f} of the full set's")
    blender_env.unregister()


if __name__ == "__main__":
    run(main)
