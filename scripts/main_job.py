"""The main job on a model or archive (default: the bundled samples).

With the core library: show the file, validate it (and the game libraries
beside it), check the lossless round trip and sample a few poses. Then
headless in Blender (the bpy wheel), through io_msh/batch: import every
model to a .blend with its game materials and textures, render a textured
thumbnail, write the texture library as PNGs, export the .blend files again,
and check that each export (model and material list) is byte-identical to
what it came from. Writes into out/main_job/ (or --out FOLDER) and prints a
summary. Each run replaces only the folders it writes there (blend,
thumbnails, msh, textures; without a file also unit, walker, maps, interior); nothing
else is removed.

Without a file it also tours the feature samples (samples/walker, samples/tower.rlb, samples/unit, samples/maps,
samples/rsli, samples/effects, samples/interior): the core library reads, validates and round-trips each and lists
the walker's clips; then, in Blender (scripts/main_job_features.py), the unit is imported, pictured assembled and
exported back byte for byte, the walker's clips are made, the walker pictured mid-stride and exported back byte for
byte (model and controller), each damage stage of the tower pictured, and the sample mission imported with its map,
its sky and its briefing, pictured from above and exported back byte for byte, and the building's hall way and
ground plan imported and exported back. The tour's thumbnails of the walker, the unit and the mission are the
README's first pictures (docs/pictures/: ``scripts/main_job_features.py OUT --pictures docs/pictures`` refreshes
them).
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.appearance.resolve import find_libraries  # noqa: E402
from core.appearance.wear import wear_entry  # noqa: E402
from core.cli.main import main as core_cli  # noqa: E402
from core.errors import FormatError  # noqa: E402
from core.files import open_container  # noqa: E402

SAMPLES = ROOT / "samples"
DEFAULT = SAMPLES / "sample.rlb"
OUT = ROOT / "out" / "main_job"
MODEL_FOLDERS = ("blend", "thumbnails", "msh", "textures")  # what a run on a file makes in --out
# what the feature tour adds (replaced by main_job_features.py)
FEATURE_FOLDERS = ("unit", "walker", "maps", "interior")
WALKER, TOWER, UNIT = SAMPLES / "walker" / "walker.msh", SAMPLES / "tower.rlb", SAMPLES / "unit"
MAPS = SAMPLES / "maps"
MISSION = MAPS / "MISSIONS" / "SAMPLE" / "data.tma"
RSLI = sorted((SAMPLES / "rsli").glob("*"))  # the font and sprite archives
EFFECTS = [SAMPLES / "effects" / "effects.rlb", SAMPLES / "effects" / "weapon.rlb"]  # effects and explosions
INTERIOR = SAMPLES / "interior" / "fortif.rlb"  # a building with a hall way and its ground plan


def sample_steps(target: str) -> list[list[str]]:
    """A ``sample`` step for each model of the file (archives: each distinct model entry, by index), of its
    first two nodes. A file or model that does not read gets a step too: it reports why."""
    times = ["--times", "0,10.5,20,40"]
    try:
        container = open_container(target)
    except (OSError, FormatError):
        return [["sample", target, *times]]
    if container.is_model:
        return [["sample", target, *times, "--nodes", "0,1"]]
    index = {id(e): i for i, e in enumerate(container.archive.entries)}
    models, failures = container.open_models()
    steps = [(index[id(e)], ["--nodes", ",".join(map(str, range(min(2, m.node_count))))]) for e, m in models]
    steps += [(index[id(e)], []) for e, _ in failures]
    return [["sample", target, "--entry", f"#{i}", *times, *nodes] for i, nodes in sorted(steps)]


def core_steps(target: str, libraries: list[str]) -> int:
    worst = 0
    for step in (["info", target], ["validate", target, *libraries], ["roundtrip", target, *libraries],
                 *sample_steps(target)):
        print(f"\n$ python -m core {shlex.join(step)}", flush=True)
        worst = max(worst, core_cli(step))
        sys.stdout.flush()
    return worst


def feature_steps(out: Path) -> tuple[int, list[str]]:
    """The feature samples: the core library on each, then the tour in Blender; (worst exit code, summary)."""
    worst = 0
    walker_libraries = [str(p) for p in find_libraries(WALKER).values()]
    for step in (["validate", str(WALKER), str(WALKER.with_suffix(".ctl")), *walker_libraries],
                 ["roundtrip", str(WALKER)], ["clips", str(WALKER)], ["info", str(TOWER)],
                 ["validate", str(TOWER)], ["roundtrip", str(TOWER)],
                 ["validate", *map(str, sorted(UNIT.rglob("*.dat")))],
                 ["map", str(MISSION)], ["validate", *map(str, sorted(p for p in MAPS.rglob("*") if p.is_file()))],
                 ["info", *map(str, RSLI[:1])], ["validate", *map(str, RSLI)], ["roundtrip", *map(str, RSLI)],
                 ["info", str(EFFECTS[1])], ["validate", *map(str, EFFECTS)], ["roundtrip", *map(str, EFFECTS)],
                 ["info", str(INTERIOR)], ["validate", str(INTERIOR)], ["roundtrip", str(INTERIOR)]):
        print(f"\n$ python -m core {shlex.join(step)}", flush=True)
        worst = max(worst, core_cli(step))
        sys.stdout.flush()
    command = [sys.executable, str(ROOT / "scripts" / "main_job_features.py"), str(out)]
    print(f"\n$ python scripts/main_job_features.py {out}", flush=True)
    result = subprocess.run(command, capture_output=True, text=True)
    steps = ("unit", "walker", "tower", "mission", "building")  # main_job_features.py's steps, as they name lines
    lines = [line for line in result.stdout.splitlines() if line.startswith(steps)]
    if (result.returncode and not any(line.endswith("FAILED") for line in lines)) or not lines:
        lines.append(f"the feature tour failed (exit {result.returncode}): {result.stderr.strip()[-2000:]}")
        worst = 1
    for line in lines:
        print(line)
    return worst, lines


def batch(*args: str) -> int:
    command = [sys.executable, str(ROOT / "io_msh" / "batch"), *args]
    print(f"\n$ python io_msh/batch {' '.join(args)}", flush=True)
    result = subprocess.run(command, capture_output=True, text=True)
    for line in result.stdout.splitlines():
        if line.startswith(("[", " ", "summary", "contact")):  # progress, its findings and warnings, summary
            print(line)
    return result.returncode


def originals(target: Path) -> dict[str, tuple[bytes, bytes | None]]:
    """Each model of the input (and its material list) by the name the batch gives its output."""
    container = open_container(target)
    if container.is_model:
        return {target.stem: (target.read_bytes(), None)}
    out = {}
    for entry in container.model_entries():
        wear = wear_entry(container.archive, entry.name_str)
        out[f"{target.stem}_{Path(entry.name_str).stem}"] = (bytes(entry.data), bytes(wear.data) if wear else None)
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", nargs="?", help="a model or archive (default: the samples: samples/sample.rlb, "
                                                 "then the feature samples' tour)")
    parser.add_argument("--out", default=str(OUT), help=f"output folder (default: {OUT.relative_to(ROOT)})")
    args = parser.parse_args(argv)
    target = Path(args.file or DEFAULT).resolve()
    out = Path(args.out).resolve()
    libraries = find_libraries(target)
    worst = core_steps(str(target), [str(p) for p in libraries.values()])
    # the previous run's outputs of the folders this run writes; the tour (no file given) replaces its own,
    # and anything else in the folder is the user's
    for folder in MODEL_FOLDERS:
        shutil.rmtree(out / folder, ignore_errors=True)
    blends, thumbs, exported, textures = (out / folder for folder in MODEL_FOLDERS)
    worst = max(worst, batch("import", str(target), "-o", str(blends)))
    worst = max(worst, batch("thumbnails", str(target), "-o", str(thumbs)))
    if "textures" in libraries:
        worst = max(worst, batch("textures", str(libraries["textures"]), "-o", str(textures)))
    worst = max(worst, batch("export", str(blends), "-o", str(exported)))
    summary = [f"libraries: {', '.join(str(p) for p in libraries.values()) or 'none found'}"]
    try:
        sources = originals(target)
    except (OSError, FormatError) as exc:
        sources, worst = {}, 1
        summary.append(f"{target}: cannot read: {exc}")
    for name, (data, wear) in sources.items():
        written = exported / f"{name}.msh"
        same = written.exists() and written.read_bytes() == data
        if wear is not None:
            same = same and written.with_suffix(".wea").exists() and written.with_suffix(".wea").read_bytes() == wear
        summary.append(f"{name}: {blends / (name + '.blend')}, {thumbs / (name + '.png')}, {written}: "
                       f"{'round trip byte-identical' if same else 'round trip DIFFERS'}"
                       f"{' (with its material list)' if wear is not None else ''}")
        worst = worst if same else 1
    if textures.is_dir():
        summary.append(f"textures: {len(list(textures.rglob('*.png')))} PNGs in {textures}")
    if args.file is None:
        tour_worst, tour = feature_steps(out)
        worst = max(worst, tour_worst)
        summary += tour
    print("\nsummary:")
    for line in summary:
        print(f"  {line}")
    print(f"  contact sheet: {thumbs / 'contact_sheet.png'}")
    print(f"\nmain job: {'OK' if worst == 0 else 'FAILED'}")
    return 1 if worst else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
