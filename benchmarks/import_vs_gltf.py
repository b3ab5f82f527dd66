"""Import speed: a 100-node x 1000-frame model through our importer, and the same animation as .glb
(exported once with Blender's own glTF exporter) through Blender's glTF importer, in one process.

Prints both times and their ratio (ours / glTF). Run with any project venv:
    .venv/bin/python benchmarks/import_vs_gltf.py [--nodes 100] [--frames 1000] [--node-mode ARMATURE]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
os.environ.setdefault("BLENDER_USER_RESOURCES", tempfile.mkdtemp(prefix="io_msh_bench_"))

import blender_env  # noqa: E402  (imports bpy with an isolated user folder)

from core.build import build_model  # noqa: E402
from core.synth import random_model  # noqa: E402

bpy = blender_env.bpy


def timed(action) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=100)
    parser.add_argument("--frames", type=int, default=1000)
    parser.add_argument("--node-mode", default="ARMATURE", choices=("ARMATURE", "EMPTIES"))
    args = parser.parse_args()
    blender_env.register()
    bpy.ops.preferences.addon_enable(module="io_scene_gltf2")
    folder = Path(tempfile.mkdtemp(prefix="io_msh_bench_"))
    msh = folder / "bench.msh"
    glb = folder / "bench.glb"
    model = build_model(random_model(1, node_count=args.nodes, frame_count=args.frames, animated=0.6))
    msh.write_bytes(model.to_bytes())
    keys = len(model.keys)

    blender_env.clean_scene()
    ours = timed(lambda: bpy.ops.import_scene.parkan_msh(filepath=str(msh), node_mode=args.node_mode))
    bpy.ops.export_scene.gltf(filepath=str(glb), export_format="GLB", export_animations=True,
                              export_force_sampling=True)
    blender_env.clean_scene()
    gltf = timed(lambda: bpy.ops.import_scene.gltf(filepath=str(glb)))
    blender_env.clean_scene()
    # A second round, so that one-time start-up costs do not decide the ratio.
    ours2 = timed(lambda: bpy.ops.import_scene.parkan_msh(filepath=str(msh), node_mode=args.node_mode))
    blender_env.clean_scene()
    gltf2 = timed(lambda: bpy.ops.import_scene.gltf(filepath=str(glb)))
    blender_env.clean_scene()
    blender_env.unregister()
    print(f"Blender {bpy.app.version_string}; model: {args.nodes} nodes x {args.frames} frames, {keys} keys; "
          f"node mode {args.node_mode}; .glb {glb.stat().st_size / 1e6:.1f} MB")
    print(f"ours (FAITHFUL, every integer frame): {min(ours, ours2):7.2f} s")
    print(f"Blender glTF importer:                {min(gltf, gltf2):7.2f} s")
    print(f"ratio ours/glTF: {min(ours, ours2) / min(gltf, gltf2):.2f}")


if __name__ == "__main__":
    main()
