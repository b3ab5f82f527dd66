"""Export speed: our exporter against Blender's glTF exporter on the same animated scene, in one process.

The scene is a generated model imported with our importer (100 nodes x 1000
frames by default). Two of our figures: the lossless path (the scene is
unedited, so every track is kept after comparing every frame) and the full
authoring path (the model's original bytes removed, so every node's keys are
authored and reduced). Prints times and ratios (ours / glTF).
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
    msh.write_bytes(build_model(random_model(1, node_count=args.nodes, frame_count=args.frames,
                                             animated=0.6)).to_bytes())
    blender_env.clean_scene()
    bpy.ops.import_scene.parkan_msh(filepath=str(msh), node_mode=args.node_mode)
    lossless = timed(lambda: bpy.ops.export_scene.parkan_msh(filepath=str(folder / "same.msh")))
    same = (folder / "same.msh").read_bytes() == msh.read_bytes()
    gltf = timed(lambda: bpy.ops.export_scene.gltf(filepath=str(folder / "bench.glb"), export_format="GLB",
                                                   export_animations=True))
    root = next(o for o in bpy.data.objects if "msh_model" in o)
    del root["msh_source"]
    authored = timed(lambda: bpy.ops.export_scene.parkan_msh(filepath=str(folder / "authored.msh")))
    blender_env.clean_scene()
    blender_env.unregister()
    print(f"Blender {bpy.app.version_string}; {args.nodes} nodes x {args.frames} frames; node mode {args.node_mode}")
    print(f"ours, unedited (lossless path):   {lossless:7.2f} s  (byte-identical: {same})")
    print(f"ours, every track authored:       {authored:7.2f} s")
    print(f"Blender glTF exporter:            {gltf:7.2f} s")
    print(f"ratio ours/glTF: lossless {lossless / gltf:.2f}, authored {authored / gltf:.2f}")


if __name__ == "__main__":
    main()
