"""Load: import 500 generated models in one Blender session, remove them, export and re-read them all.

Prints the datablocks left after removal (should be 0), resident memory at
each stage, and the times. Run: .venv/bin/python benchmarks/load_500.py [--models 500]
"""

from __future__ import annotations

import argparse
import atexit
import shutil
import tempfile
import time
from pathlib import Path

from blender_bench import blender_env, bpy
from test_load import rss_mb

from core.authoring.build import build_model
from core.authoring.synth import random_model
from core.files import open_container, validate_container


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, default=500)
    args = parser.parse_args()
    blender_env.register()
    blender_env.clean_scene()
    remove_models = blender_env.ext.io_msh.imp.build.remove_models
    folder = Path(tempfile.mkdtemp(prefix="io_msh_load_"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    paths = []
    for i in range(args.models):
        path = folder / f"m{i:03d}.msh"
        path.write_bytes(build_model(random_model(i, node_count=3 + i % 40, frame_count=10 + i % 200)).to_bytes())
        paths.append(path)
    baseline_counts, baseline_rss = blender_env.datablock_counts(), rss_mb()
    start = time.perf_counter()
    for path in paths:
        bpy.ops.import_scene.parkan_msh(filepath=str(path))
    imported = time.perf_counter() - start
    loaded_rss = rss_mb()
    out = folder / "out"
    out.mkdir()
    roots = [o for o in bpy.data.objects if "msh_model" in o]
    start = time.perf_counter()
    for root in roots:
        for obj in bpy.context.view_layer.objects:
            obj.select_set(obj == root)
        bpy.context.view_layer.objects.active = root
        bpy.ops.export_scene.parkan_msh(filepath=str(out / root["msh_model"]))
    exported = time.perf_counter() - start
    identical = sum((out / p.name).read_bytes() == p.read_bytes() for p in paths)
    valid = sum(not any(f.is_error for f in validate_container(open_container(out / p.name))) for p in paths)
    start = time.perf_counter()
    remove_models(roots)
    removed = time.perf_counter() - start
    left = {k: v - baseline_counts[k] for k, v in blender_env.datablock_counts().items() if v != baseline_counts[k]}
    print(f"Blender {bpy.app.version_string}: {args.models} models")
    print(f"import {imported:.1f} s, export {exported:.1f} s, removal {removed:.1f} s")
    print(f"re-read: {identical} byte-identical, {valid} valid of {args.models}")
    print(f"datablocks left after removal: {left or 'none'}")
    print(f"resident memory: baseline {baseline_rss:.0f} MB, loaded {loaded_rss:.0f} MB, "
          f"after removal {rss_mb():.0f} MB")
    blender_env.unregister()


if __name__ == "__main__":
    main()
