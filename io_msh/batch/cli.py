"""The batch command line: its arguments, and the run that plans the items, hands them to the workers and
prints the progress and the summary."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

from .items import SHEET_NAME, STAGE_PREFIX, Item, Result, plan_items, remove_dead_stages, skip_existing
from .library import add_parser as add_library_parser
from .library import run_library
from .pictures import MAX_SIZE
from .pool import WorkerPool
from .results import Interrupt, finish, interrupted, result_lines
from .worker import worker_main


def script_arguments(argv: list[str]) -> list[str]:
    """Our arguments: after ``--`` when Blender runs the script (``blender -b -P SCRIPT -- ...``), else all."""
    return argv[argv.index("--") + 1:] if "--" in argv else argv[1:]


def positive(text: str) -> int:
    """An argparse type: a whole number above 0."""
    if not text.strip().isdigit() or int(text) <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a whole number above 0")
    return int(text)


def picture_size(text: str) -> int:
    """An argparse type: a picture size in pixels, 1 to MAX_SIZE."""
    size = positive(text)
    if size > MAX_SIZE:
        raise argparse.ArgumentTypeError(f"{text!r} is too large: at most {MAX_SIZE} pixels")
    return size


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line; given the ``command`` about to be parsed, the options of the others (the export's load
    the core library, a third of a second) are left out, so that a run's first worker starts sooner."""
    parser = argparse.ArgumentParser(prog="batch", description="Headless batch conversion: many .msh/.rlb files "
                                                               "(or folders) at once.")
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p, inputs_help, output_required=True):
        p.add_argument("inputs", nargs="+", help=inputs_help)
        p.add_argument("-o", "--output", required=output_required,
                       help="output folder, made when it does not exist")
        p.add_argument("--skip-existing", action="store_true",
                       help="leave out every item whose output exists already (default: convert every item, "
                            "replacing its output)")
        p.add_argument("--jobs", type=positive, default=1, help="parallel Blender processes (default: 1)")
        p.add_argument("--timeout", type=positive, default=600,
                       help="seconds one item may take before its worker is stopped (default 600)")
        p.add_argument("--warnings-as-errors", action="store_true",
                       help="an item with warnings counts as failed, exit code 1 (default: warnings are allowed)")

    def import_options(p):
        p.add_argument("--node-mode", default="ARMATURE", choices=("ARMATURE", "EMPTIES"),
                       help="an armature with a bone per node, or an Empty per node (default: ARMATURE)")
        p.add_argument("--animation", default="FAITHFUL", choices=("FAITHFUL", "EDITING", "KEYS", "NONE"),
                       help="the game's pose at every frame, the same with few keys for editing, one keyframe per "
                            "MSH key, or none (default: FAITHFUL)")
        p.add_argument("--slots", default="CHOSEN", choices=("CHOSEN", "ALL"),
                       help="the chosen damage stage and LOD, or every slot (default: CHOSEN)")
        p.add_argument("--stage", type=int, default=0, choices=range(3),
                       help="damage stage, 0 intact (default: 0)")
        p.add_argument("--lod", default="0", choices=("0", "1", "2", "3", "4"),
                       help="LOD, 4 the first-person view (default: 0)")
        p.add_argument("--game-folder", default="",
                       help="where Material.lib, Textures.lib, LightMap.lib are (default: beside the file or above)")
        models_option(p, "which models of each archive, as the import dialog's Models filter")

    def models_option(p, what):
        p.add_argument("--models", default="", help=f"{what}: wildcard patterns separated by commas, "
                                                    "case-insensitive (default: all)")

    p = sub.add_parser("import", help="one .blend per model")
    common(p, ".msh/.rlb files or folders (searched recursively)")
    import_options(p)
    p = sub.add_parser("export", help="every model root of each .blend to .msh, or back into the file it came from")
    common(p, ".blend files or folders", output_required=False)
    if command in (None, "export"):
        export_options(p)
    models_option(p, "which model roots of each .blend to export, by model name (msh_model)")
    p = sub.add_parser("convert", help="models (and .dat units, assembled; maps and missions) to .glb, .fbx or .blend")
    common(p, ".msh/.rlb files, .dat units, Land.msh maps, data.tma missions or folders")
    p.add_argument("--format", required=True, choices=("glb", "fbx", "blend"), help="the output format")
    import_options(p)
    clip_options(p)
    p = sub.add_parser("thumbnails", help="a PNG preview per model (and per .dat unit; a map or mission from "
                                          "above) and a contact sheet")
    common(p, ".msh/.rlb files, .dat units, Land.msh maps, data.tma missions or folders")
    p.add_argument("--size", type=picture_size, default=256, help=f"pixels, 1 to {MAX_SIZE} (default 256)")
    p.add_argument("--game-folder", default="",
                   help="where Material.lib, Textures.lib, LightMap.lib are (default: beside the file or above)")
    models_option(p, "which models of each archive, as the import dialog's Models filter")
    p = sub.add_parser("textures", help="every texture of a library (Textures.lib, LightMap.lib) as a PNG")
    common(p, "texture libraries (.lib, .rlb) or folders of them")
    add_library_parser(sub, positive, picture_size)
    return parser


def clip_options(p: argparse.ArgumentParser) -> None:
    """convert's clip options (io_msh.batch.clip_export)."""
    p.add_argument("--clips", action="store_true",
                   help="glb, fbx: every clip of the model's controller as a named animation ('walk 1'), every "
                        "channel's range ('channel 0 turret'), and in a glb every animated material ('material "
                        "NAME') and belt ('channel 2 leg_l'); blend: the clips as the import's NLA strips "
                        "(default: the model's timeline only)")
    p.add_argument("--root-motion", default="BOTH", choices=("IN_PLACE", "MOVING", "BOTH"),
                   help="with --clips: node 0 in place, moved by the stride, or both (the moving ones named "
                        "'walk 1 moving') (default: BOTH)")
    p.add_argument("--material-animation", action=argparse.BooleanOptionalAction, default=True,
                   help="with --clips, glb: animated materials as KHR_animation_pointer animations: the emission "
                        "and the texture cell (KHR_texture_transform), which Blender's glTF importer (4.2 to 5.0) "
                        "and the Khronos validator take (default: on)")
    p.add_argument("--base-colour-animation", action=argparse.BooleanOptionalAction, default=False,
                   help="with --clips and material animation, glb: the animated base colour (diffuse and alpha) "
                        "too, as baseColorFactor tracks, for readers that apply KHR_animation_pointer to material "
                        "factors (Babylon.js, Khronos' glTF Sample Viewer); Blender's own glTF importer (4.2 to "
                        "5.0) stops with an error on them (textured materials) (default: off)")


def export_options(p: argparse.ArgumentParser) -> None:
    """The export dialog's options, as the export takes them."""
    from ...core.animation.keys import Tolerance
    from ..imp.plan import BLENDER_LAST_FRAME

    def frame(text: str) -> int:
        if not text.strip().isdigit() or int(text) > BLENDER_LAST_FRAME:
            raise argparse.ArgumentTypeError(f"{text!r} must be a whole number, 0 to {BLENDER_LAST_FRAME}")
        return int(text)

    p.add_argument("--into-source", action="store_true",
                   help="write each model back into the file it was imported from (its msh_source_path): into "
                        "an .rlb as the entry it came from, with its material list, atomically as the export "
                        "dialog does; -o is then not needed (default: a .msh per model in -o)")
    p.add_argument("--keys", default="REDUCED", choices=("REDUCED", "EVERY_FRAME", "BLENDER_KEYS"),
                   help="keys of edited nodes: the fewest within the tolerance, one per frame, or at the Blender "
                        "keyframes (default: REDUCED)")
    p.add_argument("--position-tolerance", type=float, default=Tolerance.position,
                   help=f"largest position error of reduced keys, in metres (default: {Tolerance.position:g})")
    p.add_argument("--rotation-tolerance", type=float, default=Tolerance.rotation_deg,
                   help=f"largest rotation error of reduced keys, in degrees (default: {Tolerance.rotation_deg:g})")
    p.add_argument("--frame-range", default="ACTION", choices=("ACTION", "SCENE", "CUSTOM"),
                   help="frames 0 to the end of the model's action, the scene's end frame, or --end-frame "
                        "(default: ACTION)")
    p.add_argument("--end-frame", type=frame, default=100, metavar="N",
                   help=f"last exported frame with --frame-range CUSTOM, 0 to {BLENDER_LAST_FRAME} (default: 100)")
    p.add_argument("--replace-changed", action="store_true",
                   help="with --into-source: write a model into its source even where another program changed its "
                        "entry after the import, as the export dialog's Replace Changed Files (default: such a "
                        "model is refused and its source left as it is)")


def main(argv: list[str]) -> int:
    arguments = script_arguments(argv)
    if arguments[:1] == ["--worker"]:
        return worker_main()
    args = build_parser(arguments[0] if arguments else None).parse_args(arguments)
    return run_library(args) if args.command == "library" else run(args)


def run(args) -> int:
    from ...core.errors import printable

    start = time.perf_counter()
    if getattr(args, "clips", False) and args.node_mode != "ARMATURE" and args.format != "blend":
        print("batch: error: --clips writes each clip as an animation of the armature: it needs --node-mode "
              "ARMATURE", file=sys.stderr)
        return 2
    if not args.output and not getattr(args, "into_source", False):
        print("batch: error: -o/--output is needed (only export --into-source writes no output folder)",
              file=sys.stderr)
        return 2
    temp = Path(tempfile.mkdtemp(prefix="io_msh_batch_run_"))  # the workers' TMPDIR, removed whatever happens
    if not args.output:
        args.output = str(temp / "stage")  # export --into-source: only the items' stage folders go there
    out = Path(args.output)
    if out.exists() and not out.is_dir():
        print(printable(f"batch: error: -o {out}: not a folder"), file=sys.stderr)
        shutil.rmtree(temp, ignore_errors=True)
        return 2
    pool = WorkerPool(args, args.jobs, temp, out)
    interrupt = Interrupt()
    done: list[Result] = []
    total = 0
    previous = interrupt.install()
    try:
        interrupt.check()  # a signal held while the modules loaded
        pool.start(1)  # Blender starts in a worker while the inputs are listed here
        notes: list[str] = []
        items = plan_items(args, notes)
        planned = len(items)
        if getattr(args, "skip_existing", False):
            items = skip_existing(items, notes)
        total = len(items)
        for note in notes:
            print(printable(note), flush=True)
        if planned and not items:
            print(f"nothing to do: all {planned} outputs exist (--skip-existing)")
            return 0
        if not items:
            wanted = {"export": ".blend files", "textures": "texture", "convert": ".msh/.rlb models or .dat units",
                      "thumbnails": ".msh/.rlb models or .dat units"}.get(args.command, ".msh/.rlb models")
            print(printable(f"nothing to convert: no {wanted} found in {', '.join(args.inputs)}"), file=sys.stderr)
            return 2
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            print(printable(f"batch: error: -o {out}: {exc.strerror or exc}"), file=sys.stderr)
            return 2
        remove_dead_stages(out)
        return _convert_all(args, pool, interrupt, items, done, start)
    except (KeyboardInterrupt, RuntimeError) as exc:
        if not interrupted(exc):
            raise
        pool.stop()
        print(f"interrupted: {len(done)} of {total} items finished; nothing of the others was written",
              file=sys.stderr, flush=True)
        return 128 + (interrupt.signum or signal.SIGINT)
    finally:
        interrupt.holding = True  # a second Ctrl-C does not cut the clean-up short
        pool.stop()
        for stage in out.glob(f"{STAGE_PREFIX}{os.getpid()}.*"):  # items of workers that were stopped
            shutil.rmtree(stage, ignore_errors=True)
        shutil.rmtree(temp, ignore_errors=True)
        interrupt.restore(previous)


def _convert_all(args, pool: WorkerPool, interrupt: Interrupt, items: list[Item], results: list[Result],
                 start: float) -> int:
    from ...core.errors import printable

    out = Path(args.output)
    total = len(items)
    taken = {str(Path(item.output)).lower() for item in items if item.output}
    if args.command == "thumbnails":
        taken.add(str(out / SHEET_NAME).lower())

    def report(item: Item, result: Result) -> None:
        finish(args, item, result, taken, interrupt)
        results.append(result)
        state = "ok" if result.ok else "FAILED"
        lines = result_lines(result.message, item)
        print(printable(f"[{len(results)}/{total}] {state:6} {item.label}: {lines[0]} "
                        f"({result.seconds:.2f} s, elapsed {time.perf_counter() - start:.1f} s)"), flush=True)
        for line in lines[1:]:
            print(f"    {line}", flush=True)
        for line in result.warnings:
            print(f"    warning: {result_lines(line, item)[0]}", flush=True)
        interrupt.check()

    todo = []
    for item in items:
        if item.error:
            report(item, Result(item.label, False, item.error, 0.0))
        else:
            todo.append(item)
    pool.run(todo, report)
    if args.command == "thumbnails":
        pictures = [(r.outputs[0], r.label) for r in results if r.ok]
        sheet = Item(json.dumps(pictures), None, str(out / SHEET_NAME), "contact sheet", kind="sheet")
        outcome: list[Result] = []
        if pictures:
            pool.run([sheet], lambda item, result: outcome.append(finish(args, item, result, set(), interrupt)))
            interrupt.check()
        state = (f"{sheet.output} ({len(pictures)} models)" if outcome and outcome[0].ok else
                 f"FAILED: {outcome[0].message}" if outcome else "not made: no thumbnail was made")
        print(printable(f"contact sheet: {state}"))  # a convenience: the thumbnails are written either way
    failed = [r for r in results if not r.ok]
    warned = sum(len(r.warnings) for r in results)
    print(f"summary: {len(results) - len(failed)} of {len(results)} converted, {len(failed)} failed, "
          f"{warned} warning{'s' * (warned != 1)}, {pool.spawned} Blender process{'es' * (pool.spawned != 1)}, "
          f"{time.perf_counter() - start:.1f} s")
    by_label = {item.label: item for item in items}
    for result in failed:
        lines = result_lines(result.message, by_label.get(result.label))
        print(printable(f"  failed: {result.label}: {lines[0]}"))
        for line in lines[1:]:
            print(f"      {line}")
    return 1 if failed else 0
