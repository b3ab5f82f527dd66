"""Export speed: our exporter against Blender's glTF exporter on the same animated scene, in one process.

The scene is a generated model imported with our importer (100 nodes x 1000
frames by default). Two of our figures: the lossless path (the scene is
unedited, so every track is kept after comparing every frame) and the full
authoring path (the model's original bytes removed, so every node's keys are
authored and reduced). Prints times and ratios (ours / glTF).
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

from blender_bench import arguments, blender_env, bpy, run, start_blender, timed, write_generated


def main() -> None:
    args = arguments(__doc__.split("\n")[0])
    start_blender()
    folder = Path(tempfile.mkdtemp(prefix="io_msh_bench_"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    msh = folder / "bench.msh"
    write_generated(msh, args.nodes, args.frames)
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
    run(main)
