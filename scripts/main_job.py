"""The main job on a model or archive (default: the bundled sample).

With the core library: show the file, validate it, check the lossless round
trip and sample a few poses. Then headless in Blender (the bpy wheel),
through io_msh/batch.py: import every model to a .blend, render a thumbnail,
export the .blend files again, and check that each export is byte-identical
to the model it came from. Writes into out/ and prints a summary.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.cli import main as core_cli  # noqa: E402
from core.files import open_container  # noqa: E402

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


def batch(*args: str) -> int:
    command = [sys.executable, str(ROOT / "io_msh" / "batch.py"), *args]
    print(f"\n$ {' '.join(Path(c).name if i < 2 else c for i, c in enumerate(command))}", flush=True)
    result = subprocess.run(command, capture_output=True, text=True)
    for line in result.stdout.splitlines():
        if line.startswith(("[", "summary", "  failed", "contact")):
            print(line)
    return result.returncode


def originals(target: Path) -> dict[str, bytes]:
    """Each model of the input by the name batch.py gives its output."""
    container = open_container(target)
    if container.is_model:
        return {target.stem: target.read_bytes()}
    return {f"{target.stem}_{Path(e.name_str).stem}": bytes(e.data) for e in container.model_entries()}


def main(argv: list[str]) -> int:
    target = Path(argv[0] if argv else DEFAULT).resolve()
    worst = core_steps(str(target))
    shutil.rmtree(OUT, ignore_errors=True)
    blends, thumbs, exported = OUT / "blend", OUT / "thumbnails", OUT / "msh"
    worst = max(worst, batch("import", str(target), "-o", str(blends)))
    worst = max(worst, batch("thumbnails", str(target), "-o", str(thumbs)))
    worst = max(worst, batch("export", str(blends), "-o", str(exported)))
    summary = []
    for name, data in originals(target).items():
        written = exported / f"{name}.msh"
        same = written.exists() and written.read_bytes() == data
        summary.append(f"{name}: {blends / (name + '.blend')}, {thumbs / (name + '.png')}, {written}: "
                       f"{'round trip byte-identical' if same else 'round trip DIFFERS'}")
        worst = worst if same else 1
    print("\nsummary:")
    for line in summary:
        print(f"  {line}")
    print(f"  contact sheet: {thumbs / 'contact_sheet.png'}")
    print(f"\nmain job: {'OK' if worst == 0 else 'FAILED'}")
    return 1 if worst else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
