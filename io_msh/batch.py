"""Headless batch conversion: many .msh/.rlb files (or folders) at once.

Usable both ways:
    blender -b --factory-startup -P io_msh/batch.py -- COMMAND ...
    .venv/bin/python io_msh/batch.py COMMAND ...          (the bpy wheel)

Commands:
    import INPUT... -o DIR [--node-mode M] [--animation A] [--slots S] [--stage N] [--lod N] [--game-folder D]
    export BLEND... -o DIR [--keys K]                                     every model root to .msh
    convert INPUT... -o DIR --format glb|fbx|blend [import options]       through Blender's exporters
    thumbnails INPUT... -o DIR [--size PX]                                a PNG per model + contact_sheet.png
    textures LIB... -o DIR                                                a PNG per texture of a library
Every command takes --jobs N (N Blender processes). A bad file is skipped
with its reason; the run goes on; exit 1 when any file failed, else 0.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

MODEL_SUFFIXES = (".msh", ".rlb")
RESULT_TAG = "@@io_msh "


@dataclass
class Item:
    source: str            # the file to read
    entry: str | None      # a nested model of an archive
    output: str            # the file to write
    label: str             # how progress lines name it
    error: str | None = None  # known before any work: the input cannot be read
    index: int | None = None  # the archive entry (by index: names may repeat)
    kind: str = ""         # the work: the command's, or "sheet" for the contact sheet


@dataclass
class Result:
    label: str
    ok: bool
    message: str
    seconds: float
    outputs: tuple[str, ...] = ()


# --------------------------------------------------------------------- arguments
def script_arguments(argv: list[str]) -> list[str]:
    """Our arguments: after ``--`` when Blender runs the script (``-b -P batch.py -- ...``), else all."""
    return argv[argv.index("--") + 1:] if "--" in argv else argv[1:]


def positive(text: str) -> int:
    """An argparse type: a whole number above 0."""
    if not text.strip().isdigit() or int(text) <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a whole number above 0")
    return int(text)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="batch.py", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p, inputs_help):
        p.add_argument("inputs", nargs="+", help=inputs_help)
        p.add_argument("-o", "--output", required=True, help="output folder")
        p.add_argument("--jobs", type=positive, default=1, help="parallel Blender processes")
        p.add_argument("--timeout", type=positive, default=600,
                       help="seconds one item may take before its worker is stopped (default 600)")

    def import_options(p):
        p.add_argument("--node-mode", default="ARMATURE", choices=("ARMATURE", "EMPTIES"))
        p.add_argument("--animation", default="FAITHFUL", choices=("FAITHFUL", "EDITING", "KEYS", "NONE"))
        p.add_argument("--slots", default="CHOSEN", choices=("CHOSEN", "ALL"))
        p.add_argument("--stage", type=int, default=0, choices=range(3), help="damage stage (0: intact)")
        p.add_argument("--lod", default="0", choices=("0", "1", "2", "3", "4"), help="LOD (4: first-person view)")
        p.add_argument("--game-folder", default="", help="where Material.lib, Textures.lib, LightMap.lib are")

    p = sub.add_parser("import", help="one .blend per model")
    common(p, ".msh/.rlb files or folders (searched recursively)")
    import_options(p)
    p = sub.add_parser("export", help="every model root of each .blend to .msh")
    common(p, ".blend files or folders")
    p.add_argument("--keys", default="REDUCED", choices=("REDUCED", "EVERY_FRAME", "BLENDER_KEYS"))
    p = sub.add_parser("convert", help="models to .glb, .fbx or .blend")
    common(p, ".msh/.rlb files or folders")
    p.add_argument("--format", required=True, choices=("glb", "fbx", "blend"))
    import_options(p)
    p = sub.add_parser("thumbnails", help="a PNG preview per model and a contact sheet")
    common(p, ".msh/.rlb files or folders")
    p.add_argument("--size", type=positive, default=256)
    p.add_argument("--game-folder", default="", help="where Material.lib, Textures.lib, LightMap.lib are")
    p = sub.add_parser("textures", help="every texture of a library (Textures.lib, LightMap.lib) as a PNG")
    common(p, "texture libraries (.lib, .rlb) or folders of them")
    return parser


# --------------------------------------------------------------------- work items
def _files(inputs: list[str], suffixes: tuple[str, ...]) -> list[tuple[Path, Path]]:
    """(file, folder it was found under) for every input file or every matching file below a folder."""
    found = []
    for raw in inputs:
        path = Path(raw)
        if path.is_dir():
            found += [(f, path) for f in sorted(path.rglob("*")) if f.suffix.lower() in suffixes and f.is_file()]
        else:
            found.append((path, path.parent))
    return found


def plan_items(args) -> list[Item]:
    out = Path(args.output)
    if args.command == "textures":
        return _texture_items(args.inputs, out)
    if args.command == "export":
        items = []
        taken: set[str] = set()
        for path, base in _files(args.inputs, (".blend",)):
            target = _unique(out / path.relative_to(base).with_suffix(".msh"), taken)
            items.append(Item(str(path), None, str(target), str(path),
                              None if path.is_file() else "no such file"))
        return items
    suffix = {"import": ".blend", "thumbnails": ".png"}.get(args.command) or f".{args.format}"
    taken: set[str] = set()
    from ..core.errors import FormatError
    from ..core.files import open_container

    items = []
    for path, base in _files(args.inputs, MODEL_SUFFIXES):
        stem = path.relative_to(base).with_suffix("")
        try:
            container = open_container(path)
        except (FormatError, OSError) as exc:
            reason = exc.describe(str(path)) if isinstance(exc, FormatError) else f"{path}: {exc.strerror or exc}"
            items.append(Item(str(path), None, "", str(path), reason))
            continue
        if container.is_model:
            items.append(Item(str(path), None, str(_unique(out / stem.with_suffix(suffix), taken)), str(path)))
            continue
        entries = container.model_entries()
        if not entries:
            items.append(Item(str(path), None, "", str(path), f"{path}: the archive holds no model"))
        index_of = {id(e): i for i, e in enumerate(container.archive.entries)}
        for entry in entries:
            if entry.alias_of is not None:  # the same bytes as an earlier entry: converted once
                continue
            name = stem.with_name(f"{stem.name}_{_safe(Path(entry.name_str).with_suffix('').as_posix())}")
            items.append(Item(str(path), entry.name_str, str(_unique(out / name.with_suffix(suffix), taken)),
                              f"{path}:{entry.name_str}", index=index_of[id(entry)]))
    return items


def _safe(name: str) -> str:
    """A name usable as (part of) a file name: what a file system may not hold becomes '_'."""
    return "".join(c if c.isalnum() or c in "._-+" else "_" for c in name) or "_"


def _unique(path: Path, taken: set[str]) -> Path:
    """``path``, or with ``_2``, ``_3``... before its suffix when a path equal but for case is taken already."""
    candidate, n = path, 1
    while str(candidate).lower() in taken:
        n += 1
        candidate = path.with_name(f"{path.stem}_{n}{path.suffix}")
    taken.add(str(candidate).lower())
    return candidate


def _texture_items(inputs: list[str], out: Path) -> list[Item]:
    """One item per Texm entry: DIR/LIBRARY_STEM/ENTRY.png (characters a file name cannot hold become '_')."""
    from ..core.appearance.texm import TEXM_TYPE_ID
    from ..core.errors import FormatError
    from ..core.files import open_container

    items = []
    taken: set[str] = set()
    for path, _base in _files(inputs, (".lib", ".rlb")):
        try:
            entries = [e for e in open_container(path).archive.entries if e.type_id == TEXM_TYPE_ID]
        except (FormatError, OSError) as exc:
            reason = exc.describe(str(path)) if isinstance(exc, FormatError) else f"{path}: {exc.strerror or exc}"
            items.append(Item(str(path), None, "", str(path), reason))
            continue
        if not entries:
            items.append(Item(str(path), None, "", str(path), f"{path}: the archive holds no texture"))
        for entry in entries:
            target = _unique(out / path.stem / f"{_safe(entry.name_str)}.png", taken)
            items.append(Item(str(path), entry.name_str, str(target), f"{path}:{entry.name_str}"))
    return items


# --------------------------------------------------------------------- running
def run(args) -> int:
    start = time.perf_counter()
    pool = WorkerPool(args, args.jobs)
    pool.start()  # Blender starts in the workers while the inputs are listed here
    from ..core.errors import printable

    items = plan_items(args)
    Path(args.output).mkdir(parents=True, exist_ok=True)
    total = len(items)
    results: list[Result] = []

    def report(result: Result) -> None:
        results.append(result)
        state = "ok" if result.ok else "FAILED"
        print(printable(f"[{len(results)}/{total}] {state:6} {result.label}: {result.message} "
                        f"({result.seconds:.2f} s, elapsed {time.perf_counter() - start:.1f} s)"), flush=True)

    todo = []
    for item in items:
        if item.error:
            report(Result(item.label, False, item.error, 0.0))
        else:
            todo.append(item)
    pool.run(todo, report)
    if args.command == "thumbnails":
        sheet = Path(args.output) / "contact_sheet.png"
        pictures = [(r.outputs[0], r.label) for r in results if r.ok]
        outcome: list[Result] = []
        WorkerPool(args, 1).run([Item(json.dumps(pictures), None, str(sheet), "contact sheet", kind="sheet")],
                                outcome.append)
        state = f"{sheet} ({len(pictures)} models)" if outcome[0].ok else f"FAILED: {outcome[0].message}"
        print(printable(f"contact sheet: {state}"))  # a convenience: the thumbnails are written either way
    failed = [r for r in results if not r.ok]
    print(f"summary: {len(results) - len(failed)} of {len(results)} converted, {len(failed)} failed, "
          f"{time.perf_counter() - start:.1f} s")
    for result in failed:
        print(printable(f"  failed: {result.label}: {result.message}"))
    return 1 if failed else 0


def _worker_command() -> list[str]:
    """A worker: Blender itself when this runs inside Blender, else this Python (with the bpy wheel)."""
    script = str(Path(__file__).resolve())
    bpy = sys.modules.get("bpy")
    binary = bpy.app.binary_path if bpy is not None else ""
    if binary and not binary.endswith("python"):
        return [binary, "-b", "--factory-startup", "-P", script, "--", "--worker"]
    return [sys.executable, script, "--worker"]


class WorkerPool:
    """``jobs`` worker processes taking items one at a time from a shared queue.

    A worker that dies (a crash, a kill) or overruns ``--timeout`` on an item fails that item alone, named
    with the reason; a fresh worker takes the items still queued. Three workers in a row that die before
    finishing any item end the run's remaining items (Blender cannot start).
    """

    def __init__(self, args, jobs: int) -> None:
        self.args, self.jobs = args, max(1, jobs)
        self.lock = threading.Lock()
        self.dead_starts = 0
        self.started: queue.Queue = queue.Queue()  # workers started ahead of the first item

    def start(self) -> None:
        """Start the workers now, so that Blender loads while the caller prepares the items."""
        for _ in range(self.jobs):
            self.started.put(_WorkerProcess(self.args))

    def run(self, items: list[Item], report) -> None:
        self.queue: queue.Queue = queue.Queue()
        for item in items:
            self.queue.put(item)
        self.results: queue.Queue = queue.Queue()
        threads = [threading.Thread(target=self._slot, daemon=True) for _ in range(min(self.jobs, len(items)))]
        for thread in threads:
            thread.start()
        for _ in items:
            report(self.results.get())
        for thread in threads:
            thread.join()
        while not self.started.empty():  # started, but more than the items needed
            self.started.get().close()

    def _next(self) -> Item | None:
        try:
            return self.queue.get_nowait()
        except queue.Empty:
            return None

    def _slot(self) -> None:
        item = self._next()
        while item is not None:
            try:
                worker = self.started.get_nowait()
            except queue.Empty:
                worker = _WorkerProcess(self.args)
            done_here = 0
            try:
                while item is not None:
                    result = worker.process(item, self.args.timeout)
                    self.results.put(result)
                    if not worker.alive:
                        break
                    done_here += 1
                    item = self._next()
            finally:
                worker.close()
            with self.lock:
                self.dead_starts = 0 if done_here else self.dead_starts + 1
                give_up = self.dead_starts >= 3
            item = self._next()
            while give_up and item is not None:
                self.results.put(Result(item.label, False, "not converted: Blender worker processes keep ending "
                                                           "before they finish an item", 0.0))
                item = self._next()


class _WorkerProcess:
    """One worker process: items go in on its stdin, results come back on its stdout."""

    def __init__(self, args) -> None:
        self.popen = subprocess.Popen(
            _worker_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, env=os.environ.copy())
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.popen.stdin.write(json.dumps(vars(args)) + "\n")
        self.alive = True

    def _read(self) -> None:
        for line in self.popen.stdout:
            if line.startswith(RESULT_TAG):
                self.lines.put(line[len(RESULT_TAG):])
        self.lines.put(None)  # the process ended

    def process(self, item: Item, timeout: float) -> Result:
        start = time.perf_counter()
        try:
            self.popen.stdin.write(json.dumps(asdict(item)) + "\n")
            self.popen.stdin.flush()
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            self.alive = False
            self.popen.kill()
            return Result(item.label, False, f"timed out after {timeout:g} s (--timeout); the worker was stopped",
                          time.perf_counter() - start)
        except OSError:
            line = None
        if line is None:
            self.alive = False
            code = self.popen.wait()
            return Result(item.label, False, f"the Blender process (pid {self.popen.pid}) ended unexpectedly "
                                             f"(exit code {code}) while converting it", time.perf_counter() - start)
        raw = json.loads(line)
        return Result(**{**raw, "outputs": tuple(raw.get("outputs", ()))})

    def close(self) -> None:
        if self.popen.poll() is None:
            with contextlib.suppress(OSError):
                self.popen.stdin.close()
            try:
                self.popen.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()


def worker_main() -> int:
    """The worker side of WorkerPool: the arguments, then one item per line on stdin."""
    args = argparse.Namespace(**json.loads(sys.stdin.readline()))
    worker = Worker(args)
    try:
        for line in sys.stdin:
            result = worker.process(Item(**json.loads(line)))
            print(RESULT_TAG + json.dumps(asdict(result)), flush=True)
    finally:
        worker.close()
    return 0


# --------------------------------------------------------------------- per-item work in Blender
class Worker:
    """Does the items of one command in this Blender process, one clean scene each."""

    def __init__(self, args) -> None:
        import bpy

        self.args = args
        self.bpy = bpy
        bpy.context.preferences.filepaths.save_version = 0  # no .blend1 backups next to the outputs
        self.registered = not hasattr(bpy.types, "IMPORT_SCENE_OT_parkan_msh")
        if self.registered:
            from .. import register

            register()
        if args.command == "convert" and args.format in ("glb", "fbx"):
            import addon_utils

            addon_utils.enable("io_scene_gltf2" if args.format == "glb" else "io_scene_fbx", default_set=False)

    def close(self) -> None:
        clean_scene(self.bpy)
        if self.registered:
            from .. import unregister

            unregister()
            self.registered = False

    def process(self, item: Item) -> Result:
        start = time.perf_counter()
        try:
            _injected_fault(item)
            clean_scene(self.bpy)  # nothing of the start-up scene (its cube, camera, light) or the last item
            Path(item.output).parent.mkdir(parents=True, exist_ok=True)
            outputs = getattr(self, f"_{item.kind or self.args.command}")(item)
            return Result(item.label, True, "-> " + ", ".join(outputs), time.perf_counter() - start, tuple(outputs))
        except Exception as exc:  # one bad file must not stop the run
            reason = str(exc).strip().replace("\n", "; ") or type(exc).__name__
            return Result(item.label, False, reason.removeprefix("Error: "), time.perf_counter() - start)
        finally:
            clean_scene(self.bpy)

    def _load(self, item: Item, **overrides) -> None:
        """Import the item's model (an archive's entry by its index: names may repeat or look like patterns)."""
        from mathutils import Matrix

        from ..core.errors import FormatError
        from .com import compat
        from .imp.build import import_plans
        from .imp.plan import ImportOptions, plan_file

        options = {"node_mode": getattr(self.args, "node_mode", "ARMATURE"),
                   "animation": getattr(self.args, "animation", "FAITHFUL"),
                   "slots": getattr(self.args, "slots", "CHOSEN"), "stage": getattr(self.args, "stage", 0),
                   "lod": int(getattr(self.args, "lod", "0"))}
        options.update(overrides)
        folder = getattr(self.args, "game_folder", "")
        options = ImportOptions(**options, game_folders=(folder,) if folder else (),
                                entry_indices=None if item.index is None else (item.index,),
                                name_bytes=compat.BONE_NAME_BYTES if options["node_mode"] == "ARMATURE"
                                else compat.ID_NAME_BYTES)
        try:
            plans = plan_file(item.source, options)
        except FormatError as exc:
            raise ValueError(exc.describe(item.source)) from None
        import_plans(self.bpy.context, plans, Matrix.Identity(4))

    def _import(self, item: Item) -> list[str]:
        self._load(item)
        return [_written(item.output, lambda tmp: self.bpy.ops.wm.save_as_mainfile(filepath=tmp, copy=True))]

    def _convert(self, item: Item) -> list[str]:
        self._load(item)
        ops = self.bpy.ops
        if self.args.format == "glb":
            write = lambda tmp: ops.export_scene.gltf(filepath=tmp, export_format="GLB", export_animations=True)  # noqa: E731
        elif self.args.format == "fbx":
            write = lambda tmp: ops.export_scene.fbx(filepath=tmp, bake_anim=True)  # noqa: E731
        else:
            write = lambda tmp: ops.wm.save_as_mainfile(filepath=tmp, copy=True)  # noqa: E731
        return [_written(item.output, write)]

    def _export(self, item: Item) -> list[str]:
        bpy = self.bpy
        bpy.ops.wm.open_mainfile(filepath=item.source)
        roots = [o for o in bpy.data.objects if "msh_model" in o]
        if not roots:
            raise ValueError("the .blend holds no model root (an object with msh_model)")
        outputs: list[str] = []
        taken: set[str] = set()
        for root in sorted(roots, key=lambda o: o.name):
            target = Path(item.output)
            if len(roots) > 1:  # several models (even of one name): one file each
                target = _unique(target.with_name(f"{target.stem}_{_safe(Path(str(root['msh_model'])).stem)}.msh"),
                                 taken)
            for obj in bpy.context.view_layer.objects:
                obj.select_set(obj == root)
            bpy.context.view_layer.objects.active = root
            bpy.ops.export_scene.parkan_msh(filepath=str(target), keys=self.args.keys)
            outputs.append(str(target))
        return outputs

    def _sheet(self, item: Item) -> list[str]:
        pictures = [tuple(p) for p in json.loads(item.source)]
        _written(item.output, lambda tmp: contact_sheet(pictures, Path(tmp), self.args.size))
        return [item.output]

    def _thumbnails(self, item: Item) -> list[str]:
        self._load(item, animation="NONE", slots="CHOSEN")
        return [_written(item.output, lambda tmp: render_thumbnail(self.bpy, Path(tmp), self.args.size))]

    def _textures(self, item: Item) -> list[str]:
        from ..core.appearance.texm import parse_texm
        from ..core.files import open_container

        entry = open_container(item.source).archive.find(item.entry)
        rgba = parse_texm(entry.data, item.label).decode()
        return [_written(item.output, lambda tmp: save_png(self.bpy, rgba, Path(tmp)))]


def _written(output: str, write) -> str:
    """Call ``write`` with a temporary name beside ``output``, then rename it into place: a run stopped midway, or
    two runs into one folder, never leave a half-written output (the last complete one wins)."""
    target = Path(output)
    tmp = target.with_name(f".{target.stem}.{os.getpid()}.tmp{target.suffix}")
    try:
        write(str(tmp))
        if not tmp.exists():
            raise ValueError(f"nothing was written to {target}")
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return output


FAULT_VARIABLE = "IO_MSH_BATCH_FAULT"


def _injected_fault(item: Item) -> None:
    """For the tests of the worker pool: ``IO_MSH_BATCH_FAULT=crash:TEXT`` (or ``hang:TEXT``) makes a worker die
    (or stall) on an item whose label contains TEXT."""
    kind, _, text = os.environ.get(FAULT_VARIABLE, "").partition(":")
    if text and text in item.label:
        if kind == "crash":
            os._exit(3)
        if kind == "hang":
            time.sleep(3600)


def clean_scene(bpy) -> None:
    """Remove every datablock an item may have made, keeping the registered classes."""
    active = bpy.context.view_layer.objects.active if bpy.context.view_layer else None
    if active is not None and active.mode != "OBJECT":
        bpy.ops.object.mode_set(mode="OBJECT")
    blocks = [block for kind in ("objects", "meshes", "materials", "armatures", "actions", "collections", "cameras",
                                 "lights", "images", "curves") for block in getattr(bpy.data, kind)]
    bpy.data.batch_remove(blocks + [world for world in bpy.data.worlds if world.users == 0])  # one pass: half the time


# --------------------------------------------------------------------- pictures
def _frame_camera(bpy, scene, points, size: int, distance_factor: float = 3.3):
    """A camera seeing the whole bounding sphere (50 mm lens: half-angle 19.8 degrees) and a sun."""
    import numpy as np
    from mathutils import Vector

    points = np.asarray(points, float)
    center = (points.min(axis=0) + points.max(axis=0)) / 2 if len(points) else np.zeros(3)
    radius = float(np.linalg.norm(points - center, axis=1).max()) if len(points) else 1.0
    radius = max(radius, 1e-3)
    camera = bpy.data.objects.new("thumbnail camera", bpy.data.cameras.new("thumbnail camera"))
    scene.collection.objects.link(camera)
    direction = Vector((1.0, -1.6, 0.55)).normalized()
    camera.location = Vector(center.tolist()) + direction * radius * distance_factor
    camera.rotation_euler = (-direction).to_track_quat("-Z", "Y").to_euler()
    camera.data.clip_end = radius * 20
    scene.camera = camera
    sun = bpy.data.objects.new("thumbnail sun", bpy.data.lights.new("thumbnail sun", "SUN"))
    scene.collection.objects.link(sun)
    sun.rotation_euler = (0.8, 0.2, 0.6)
    scene.render.resolution_x = scene.render.resolution_y = size
    scene.render.resolution_percentage = 100


def _render(bpy, scene, target: Path) -> None:
    scene.render.engine = "BLENDER_WORKBENCH"
    scene.render.image_settings.file_format = "PNG"
    scene.render.filepath = str(target)
    bpy.ops.render.render(write_still=True)


def render_thumbnail(bpy, target: Path, size: int) -> None:
    """Render the scene's meshes (Workbench: works headless on the CPU) to a square PNG."""
    import numpy as np

    scene = bpy.context.scene
    depsgraph = bpy.context.evaluated_depsgraph_get()
    points = [np.array(o.matrix_world @ v.co) for o in scene.objects if o.type == "MESH"
              for v in o.evaluated_get(depsgraph).data.vertices]
    if not points:
        raise ValueError("the model has no geometry to show")
    _frame_camera(bpy, scene, points, size)
    scene.world = scene.world or bpy.data.worlds.new("thumbnail world")
    scene.world.color = (0.02, 0.02, 0.025)  # dark, so that grey and textured parts both stand out
    scene.display.shading.light = "STUDIO"
    scene.display.shading.color_type = "TEXTURE"  # the game's textures (untextured parts: material colour)
    _render(bpy, scene, target)


def save_png(bpy, rgba, target: Path) -> None:
    """RGBA8 pixels (row 0 at the top) as a PNG, through Blender's image writer (no Pillow in Blender)."""
    import numpy as np

    height, width = rgba.shape[:2]
    image = bpy.data.images.new(target.stem, width, height, alpha=True)
    try:
        image.pixels.foreach_set((np.flipud(rgba).astype(np.float32) / 255.0).ravel())
        image.filepath_raw = str(target)
        image.file_format = "PNG"
        image.save()
    finally:
        bpy.data.images.remove(image)


def contact_sheet(pictures: list[tuple[str, str]], target: Path, size: int) -> None:
    """All thumbnails in a grid with their names, rendered as one picture."""
    import math

    import bpy

    clean_scene(bpy)
    if not pictures:
        return
    scene = bpy.context.scene
    columns = max(1, math.ceil(math.sqrt(len(pictures))))
    rows = math.ceil(len(pictures) / columns)
    for n, (path, name) in enumerate(pictures):
        x, y = (n % columns) * 1.1, -(n // columns) * 1.3
        image = bpy.data.images.load(path)
        material = bpy.data.materials.new(f"sheet {n}")
        material.use_nodes = True
        texture = material.node_tree.nodes.new("ShaderNodeTexImage")
        texture.image = image
        material.node_tree.nodes.active = texture
        mesh = bpy.data.meshes.new(f"sheet {n}")
        mesh.from_pydata([(x, y, 0), (x + 1, y, 0), (x + 1, y + 1, 0), (x, y + 1, 0)], [], [(0, 1, 2, 3)])
        mesh.uv_layers.new().data.foreach_set("uv", [0, 0, 1, 0, 1, 1, 0, 1])
        mesh.materials.append(material)
        tile = bpy.data.objects.new(f"sheet {n}", mesh)
        scene.collection.objects.link(tile)
        curve = bpy.data.curves.new(f"label {n}", "FONT")
        label = Path(name).name  # FILE or FILE:ENTRY, without the folders
        curve.body = label if len(label) < 32 else "..." + label[-29:]
        curve.size = 0.09
        curve.align_x = "CENTER"
        label = bpy.data.objects.new(f"label {n}", curve)
        label.location = (x + 0.5, y - 0.12, 0)
        scene.collection.objects.link(label)
    camera = bpy.data.objects.new("sheet camera", bpy.data.cameras.new("sheet camera"))
    camera.data.type = "ORTHO"
    width, height = columns * 1.1 + 0.1, rows * 1.3 + 0.1
    camera.data.ortho_scale = max(width, height)
    camera.location = (width / 2 - 0.1, -height / 2 + 1.15, 5)
    scene.collection.objects.link(camera)
    scene.camera = camera
    scene.render.resolution_x = min(4096, columns * size)
    scene.render.resolution_y = max(64, int(scene.render.resolution_x * height / width))
    scene.display.shading.light = "FLAT"
    scene.display.shading.color_type = "TEXTURE"
    _render(bpy, scene, target)
    clean_scene(bpy)


# --------------------------------------------------------------------- entry point
def main(argv: list[str]) -> int:
    arguments = script_arguments(argv)
    if arguments[:1] == ["--worker"]:
        return worker_main()
    args = build_parser().parse_args(arguments)
    return run(args)


def _load_package_and_run() -> int:
    """Run as a script: load the extension folder as a package, then run its copy of this module."""

    root = Path(__file__).resolve().parent.parent
    import shutil

    made = None  # an isolated user folder, made by the first process of a run (workers inherit it), removed after
    if "BLENDER_USER_RESOURCES" not in os.environ:
        made = os.environ["BLENDER_USER_RESOURCES"] = tempfile.mkdtemp(prefix="io_msh_batch_user_")
    try:
        return _run_as_package(root)
    finally:
        if made:
            shutil.rmtree(made, ignore_errors=True)


def _run_as_package(root: Path) -> int:
    import importlib.util

    name = "io_msh_batch_ext"
    spec = importlib.util.spec_from_file_location(name, root / "__init__.py", submodule_search_locations=[str(root)])
    package = importlib.util.module_from_spec(spec)
    sys.modules[name] = package
    spec.loader.exec_module(package)
    from importlib import import_module

    return import_module(f"{name}.io_msh.batch").main(sys.argv)


def _exit_with_blender_loaded(code: int) -> None:
    """End a process that has Blender loaded (a worker, or Blender running this script) with ``code``: a -P
    script cannot set Blender's exit code otherwise, and Blender's teardown only frees memory (0.15 s a worker).
    The teardown also removes Blender's session temporary folder (``blender_XXXXXX``), so that is done here."""
    import shutil

    session = Path(sys.modules["bpy"].app.tempdir)
    if session.name.startswith("blender_"):  # not the base folder it falls back to when none could be made
        shutil.rmtree(session, ignore_errors=True)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    code = _load_package_and_run()
    if "bpy" in sys.modules:
        _exit_with_blender_loaded(code)
    sys.exit(code)
