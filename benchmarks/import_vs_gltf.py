"""Import speed: a 100-node x 1000-frame model through our importer, and the same animation as .glb
(exported once with Blender's own glTF exporter) through Blender's glTF importer, in one process.

Prints both times and their ratio (ours / glTF); each is the better of two rounds.
    .venv/bin/python benchmarks/import_vs_gltf.py [--nodes 100] [--frames 1000] [--node-mode ARMATURE]
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
    msh, glb = folder / "bench.msh", folder / "bench.glb"
    keys = write_generated(msh, args.nodes, args.frames)
    ours, gltf = [], []
    for _ in range(2):
        ours.append(timed(lambda: bpy.ops.import_scene.parkan_msh(filepath=str(msh), node_mode=args.node_mode)))
        if not glb.exists():
            bpy.ops.export_scene.gltf(filepath=str(glb), export_format="GLB", export_animations=True,
                                      export_force_sampling=True)
        blender_env.clean_scene()
        gltf.append(timed(lambda: bpy.ops.import_scene.gltf(filepath=str(glb))))
        blender_env.clean_scene()
    blender_env.unregister()
    print(f"Blender {bpy.app.version_string}; model: {args.nodes} nodes x {args.frames} frames, {keys} keys; "
          f"node mode {args.node_mode}; .glb {glb.stat().st_size / 1e6:.1f} MB")
    print(f"ours (FAITHFUL):                      {min(ours):7.2f} s")
    print(f"Blender glTF importer:                {min(gltf):7.2f} s")
    print(f"ratio ours/glTF: {min(ours) / min(gltf):.2f}")


if __name__ == "__main__":
    run(main)
