"""Animated material import speed: a model wearing M materials whose track 0 animates (every
mode, gliding colours and stepping cells, periods of seconds) against the same model whose materials are static
(the same phases, one key), in one process. Prints both imports, their ratio, and the material planner alone
(``plan_material_keys``) in both cases.
    .venv/bin/python benchmarks/material_import.py [--materials 24] [--period-ms 4000] [--rate 24]
"""

from __future__ import annotations

import argparse
import atexit
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
from blender_bench import blender_env, bpy, run, start_blender, timed
from test_materials_blender import model_archive, wear_of, write_game

from core.appearance.mat0 import ANIM_KEY, MAT0_TYPE_ID, AnimBlock, Material, blend_attr1, phase
from core.authoring.synth import sample_libraries


def library(materials: int, period_ms: int, animated: bool) -> dict:
    libraries = sample_libraries()
    rng = np.random.default_rng(7)
    for i in range(materials):
        phases = [phase((*rng.uniform(0, 1, 3), 1.0), "BODY.0", cell=k) for k in range(3)]
        count = 4 + i % 5
        ends = [*np.sort(rng.choice(np.arange(1, period_ms), count - 1, replace=False)).tolist(), period_ms]
        keys = [(k % 3, int(t), 0) for k, t in enumerate(ends)] if animated else [(0, 0, 0)]
        mode, mask = i % 4, (0x02, 0x1F, 0x00, 0x0A)[i % 4]
        material = Material(blend_attr1("OPAQUE", False), phases=np.array(phases),
                            animations=[AnimBlock(mode | mask << 3, np.array(keys, ANIM_KEY))])
        libraries["Material.lib"].add(f"MAT{i}", material.to_bytes(), MAT0_TYPE_ID, attr1=material.attr1,
                                      attr2=material.attr2)
    return libraries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--materials", type=int, default=24)
    parser.add_argument("--period-ms", type=int, default=4000)
    parser.add_argument("--rate", type=float, default=24.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    start_blender()
    plan_module = sys.modules[f"{blender_env.ext.__name__}.io_msh.imp.plan"]
    planner = plan_module.plan_material_keys
    spent = [0.0]

    def timed_planner(*a):  # the material planner's share of the import
        out = []
        spent[0] += timed(lambda: out.append(planner(*a)))
        return out[0]
    plan_module.plan_material_keys = timed_planner
    folder = Path(tempfile.mkdtemp(prefix="io_msh_bench_"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    names = [f"MAT{i}" for i in range(args.materials)]
    units = {}
    for animated in (False, True):
        game = write_game(folder / ("animated" if animated else "static"),
                          library(args.materials, args.period_ms, animated))
        units[animated] = game / "unit.rlb"
        units[animated].write_bytes(model_archive(wear_of(names), args.materials))
    times = {animated: (float("inf"), float("inf")) for animated in units}
    for _ in range(args.rounds + 1):  # the first round warms up; static and animated take turns, so that a busy
        for animated, unit in units.items():  # machine slows both alike
            blender_env.clean_scene()
            spent[0] = 0.0
            took = timed(lambda path=str(unit): bpy.ops.import_scene.parkan_msh(filepath=path, frame_rate=args.rate))
            best, planned = times[animated]
            times[animated] = (min(best, took), min(planned, spent[0]))
    blender_env.clean_scene()
    blender_env.unregister()
    (static, static_plan), (animated, animated_plan) = times[False], times[True]
    print(f"Blender {bpy.app.version_string}; {args.materials} materials, period {args.period_ms} ms, "
          f"{args.rate:g} fps")
    print(f"import, static materials:   {static:7.3f} s")
    print(f"import, animated materials: {animated:7.3f} s")
    print(f"ratio animated/static: {animated / static:.2f}")
    print(f"of which the material planner: static {static_plan:.4f} s, animated {animated_plan:.4f} s")


if __name__ == "__main__":
    run(main)
