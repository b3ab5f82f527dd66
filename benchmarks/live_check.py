"""The panel's live export check on an imported N-node x F-frame model: after each of a few
edits (a key moved, a vertex moved, a bone renamed), the live check driven as its timer drives it, step by step.

Prints, per edit, the longest single step (the longest Blender is held; and the most processor time a step took on
the main thread, which a busy machine does not stretch), the number of steps and the total until
the result, against the export of the same scene and the full check on demand (the Check button) after it; then the
Check button right after the same edit once more, as with Live off. Both keep what the last check read and planned
(io_msh.exp.check_cache); the curves and meshes the Check button read again are printed.
    .venv/bin/python benchmarks/live_check.py [--nodes 60] [--frames 1000]
"""

from __future__ import annotations

import argparse
import atexit
import shutil
import sys
import tempfile
import time
from pathlib import Path

from blender_bench import blender_env, bpy, run, start_blender, timed, write_generated

GOAL = 1 / 60  # no step longer than one 60 Hz frame


def settle(panel) -> tuple[float, float, int, float]:
    """Drive the live check as its timer would, until it is done: (longest step, the most processor time a step
    took on the main thread, steps, total seconds). On a busy machine the first is longer than Blender alone would
    take; the second is what the step costs."""
    if bpy.app.timers.is_registered(panel._live_check):
        bpy.app.timers.unregister(panel._live_check)
    longest, cpu, steps, start = 0.0, 0.0, 0, time.perf_counter()
    while True:
        began, began_cpu = time.perf_counter(), time.thread_time()
        again = panel._live_check()
        longest, steps = max(longest, time.perf_counter() - began), steps + 1
        cpu = max(cpu, time.thread_time() - began_cpu)
        if again is None:
            return longest, cpu, steps, time.perf_counter() - start
        time.sleep(again)


def edits(root):
    """(what, edit) pairs, each a change an artist makes."""
    def key():
        action = root.animation_data.action
        curves = action.fcurves if hasattr(action, "fcurves") else [
            c for layer in action.layers for strip in layer.strips for bag in strip.channelbags for c in bag.fcurves]
        curve = [c for c in curves if c.data_path.endswith("location")][len(curves) // 20]
        curve.keyframe_points[len(curve.keyframe_points) // 2].co.y += 0.3
        curve.update()

    def vertex():
        mesh = next(o for o in root.children if o.type == "MESH")
        mesh.data.vertices[0].co.x += 0.25
        mesh.data.update()

    def rename():
        root.data.bones[len(root.data.bones) // 2].name += "_x"
    return [("a key moved", key), ("a vertex moved", vertex), ("a bone renamed", rename)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=60)
    parser.add_argument("--frames", type=int, default=1000)
    args = parser.parse_args()
    start_blender()
    panel = sys.modules[f"{blender_env.ext.__name__}.io_msh.ui.panel"]
    cache = sys.modules[f"{blender_env.ext.__name__}.io_msh.exp.check_cache"]
    folder = Path(tempfile.mkdtemp(prefix="io_msh_bench_"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    msh = folder / "bench.msh"
    write_generated(msh, args.nodes, args.frames)
    bpy.ops.import_scene.parkan_msh(filepath=str(msh), node_mode="ARMATURE")
    root = next(o for o in bpy.data.objects if "msh_model" in o)
    for obj in bpy.context.selected_objects:
        obj.select_set(False)
    bpy.context.view_layer.objects.active = root
    root.select_set(True)
    bpy.context.view_layer.update()
    settle(panel)  # warm-up
    panel.run_check(bpy.context, root)  # the Check button once: the next checks keep what did not change
    print(f"Blender {bpy.app.version_string}; {args.nodes} nodes x {args.frames} frames, armature")
    for what, edit in edits(root):
        edit()
        bpy.context.view_layer.update()
        longest, cpu, steps, total = settle(panel)
        live = panel.CHECKS.current(root.name)
        export = timed(lambda: bpy.ops.export_scene.parkan_msh(filepath=str(folder / "out.msh")))
        bpy.context.view_layer.update()
        full = timed(lambda: panel.run_check(bpy.context, root))
        reread = cache.kept_counts(root.name)
        same = [(x.level, x.message) for x in live.lines] == [(x.level, x.message) for x in panel.CHECKS.current(
            root.name).lines]
        print(f"{what:15s} live check: longest step {longest * 1000:6.1f} ms (processor {cpu * 1000:5.1f} ms; goal "
              f"{GOAL * 1000:.1f}), {steps:3d} steps, total {total:6.3f} s;"
              f" export {export:6.3f} s; then the Check button {full:6.3f} s = {full / export:.2f} of the export "
              f"(re-read {reread}); live = full: {same}")
        edit()  # the same edit again, checked at once (Live off): only the last Check's cache helps
        bpy.context.view_layer.update()
        full = timed(lambda: panel.run_check(bpy.context, root))
        reread = cache.kept_counts(root.name)
        export = timed(lambda: bpy.ops.export_scene.parkan_msh(filepath=str(folder / "out.msh")))
        bpy.context.view_layer.update()
        print(f"{'':15s} Live off: the Check button at once {full:6.3f} s = {full / export:.2f} of the export "
              f"{export:6.3f} s (re-read {reread})")
    blender_env.clean_scene()
    blender_env.unregister()


if __name__ == "__main__":
    run(main)
