"""The main job on a model or archive (default: the bundled sample).

Shows the file, validates it, checks the lossless round trip and samples a
few poses with the core library; then, headless in Blender (the bpy wheel),
imports it, saves a .blend, exports it again and checks that the export is
byte-identical. Writes into out/ and prints a summary.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.cli import main as core_cli  # noqa: E402

DEFAULT = ROOT / "samples" / "sample.rlb"
OUT = ROOT / "out"


def core_steps(target: str) -> int:
    worst = 0
    for step in (["info", target], ["validate", target], ["roundtrip", target],
                 ["sample", target, "--times", "0,10.5,20,40", "--nodes", "0,1"]):
        print(f"\n$ python -m core {' '.join(step)}", flush=True)
        worst = max(worst, core_cli(step))
        sys.stdout.flush()
    return worst


def blender_steps(target: Path) -> list[str]:
    os.environ.setdefault("BLENDER_USER_RESOURCES", tempfile.mkdtemp(prefix="io_msh_main_"))
    sys.path.insert(0, str(ROOT / "tests"))
    import blender_env  # the same isolated set-up as the tests

    bpy = blender_env.bpy
    OUT.mkdir(exist_ok=True)
    blend = OUT / f"{target.stem}.blend"
    exported = OUT / f"{target.stem}.roundtrip{target.suffix}"
    if target.suffix.lower() == ".rlb":
        exported.write_bytes(target.read_bytes())  # exporting into an archive replaces the model in a copy
    blender_env.register()
    try:
        blender_env.clean_scene()
        if bpy.ops.import_scene.parkan_msh(filepath=str(target)) != {"FINISHED"}:
            return [f"import of {target} failed"]
        roots = [o for o in bpy.data.objects if "msh_model" in o]
        bpy.ops.wm.save_as_mainfile(filepath=str(blend), copy=True)
        for root in roots:
            for obj in bpy.context.view_layer.objects:
                obj.select_set(obj == root)
            bpy.context.view_layer.objects.active = root
            entry = root["msh_model"] if target.suffix.lower() == ".rlb" else ""
            bpy.ops.export_scene.parkan_msh(filepath=str(exported), entry=entry)
        identical = exported.read_bytes() == target.read_bytes()
        nodes = sum(len(r.data.bones) if r.type == "ARMATURE" else len(r.children) for r in roots)
        return [
            f"imported {len(roots)} model(s) ({', '.join(r['msh_model'] for r in roots)}): {nodes} nodes, "
            f"{sum(o.type == 'MESH' for o in bpy.data.objects)} meshes, frames "
            f"{bpy.context.scene.frame_start}..{bpy.context.scene.frame_end}",
            f"saved {blend}",
            f"exported {exported}: {'byte-identical to the input' if identical else 'DIFFERS from the input'}",
        ] + ([] if identical else ["round trip FAILED"])
    finally:
        blender_env.clean_scene()
        blender_env.unregister()


def main(argv: list[str]) -> int:
    target = Path(argv[0] if argv else DEFAULT).resolve()
    worst = core_steps(str(target))
    print("\n$ Blender (bpy) headless: import, save .blend, export", flush=True)
    summary = blender_steps(target)
    print("\nsummary:")
    for line in summary:
        print(f"  {line}")
    failed = worst != 0 or any("FAILED" in line or "failed" in line for line in summary)
    print(f"\nmain job: {'FAILED' if failed else 'OK'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
