"""The pose sweep of tests/test_pose_sweep.py, longer: N random models (2-6 nodes, half of them with keys at half
turns, the rest over the whole sphere, near +-1 or with signs flipped between neighbours; sparse or dense,
integer or fractional times, canonical maps or not), plus every tenth one a chain up to 64 deep or 300 nodes,
each imported in both node modes and every animation mode, compared with the core sampler at every integer frame
and exported untouched.

Prints per node mode the worst error, the worst error / float32 floor (a scene of Empties set to the exact
poses), the exports that changed the file, the failures (with the seed to replay) and the time taken.
    .venv/bin/python benchmarks/pose_soak.py [--examples 200] [--seed 0]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
import traceback
from pathlib import Path

import numpy as np
from blender_bench import blender_env
from pose_sweep import draw_model, measure, model_bytes

KINDS = ["SPHERE", "HALF", "NEAR_ONE", "FLIP"]


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args()


def example(seed: int):
    """(description, model bytes, animations) of example ``seed``."""
    rng = np.random.default_rng(seed)
    if seed % 10 == 9:
        if seed % 20 == 9:
            return "chain 64 deep", model_bytes(draw_model(rng, 64, 64, 6, ["HALF", "SPHERE"])), ("FAITHFUL", "KEYS")
        return "300 nodes", model_bytes(draw_model(rng, 300, 24, 4, KINDS)), ("FAITHFUL",)
    nodes = int(rng.integers(2, 7))
    kinds = ["HALF", *rng.choice(KINDS, int(rng.integers(1, 4)))]
    dense = bool(rng.random() < 0.25)
    model = draw_model(rng, nodes, int(rng.integers(1, nodes + 1)), int(rng.integers(2, 31)), list(kinds),
                       dense=dense, fractional=not dense and bool(rng.random() < 0.5),
                       shuffle_map=bool(rng.random() < 0.3))
    return f"{nodes} nodes", model_bytes(model), ("FAITHFUL", "EDITING", "KEYS")


def main() -> None:
    args = arguments()
    blender_env.register()
    folder = Path(tempfile.mkdtemp(prefix="io_msh_pose_soak_"))
    worst = {mode: [0.0, 0.0, 0.0] for mode in ("ARMATURE", "EMPTIES")}  # error, error / floor, error / bound
    changed = {mode: 0 for mode in worst}
    exports, failures = 0, []
    start = time.perf_counter()
    try:
        for seed in range(args.seed, args.seed + args.examples):
            what, data, animations = example(seed)
            try:
                measured = measure(blender_env, folder, data, animations)
            except Exception:  # a traceback is a failure to report, with the seed to replay
                failures.append(f"seed {seed} ({what}): {traceback.format_exc(limit=3)}")
                continue
            for (animation, mode), (error, limit, floor, same) in measured.items():
                exports += 1
                changed[mode] += not same
                if error > limit:
                    failures.append(f"seed {seed} ({what}) {mode} {animation}: error {error:.3g} > bound {limit:.3g}")
                if animation != "EDITING":  # EDITING is off by its key tolerance, not by float32
                    worst[mode] = [max(worst[mode][0], error), max(worst[mode][1], error / max(floor, 1e-12)),
                                   max(worst[mode][2], error / limit)]
                else:
                    worst[mode][2] = max(worst[mode][2], error / limit)
    finally:
        blender_env.unregister()
        shutil.rmtree(folder, ignore_errors=True)
    elapsed = time.perf_counter() - start
    print(f"{args.examples} models (seeds {args.seed}..{args.seed + args.examples - 1}), {exports} imports and "
          f"untouched exports in {elapsed:.1f} s")
    for mode, (error, ratio, of_bound) in worst.items():
        print(f"{mode:8s} worst error {error:.3g} (FAITHFUL, KEYS); worst error / float32 floor {ratio:.2f}; "
              f"worst error / bound {of_bound:.2f}; exports that changed the file: {changed[mode]}")
    print(f"failures: {len(failures)}")
    for failure in failures[:20]:
        print("  " + failure)


if __name__ == "__main__":
    main()
