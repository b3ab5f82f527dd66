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
Every command takes --jobs N (at most N Blender processes, never more than items) and --warnings-as-errors.
A bad file is skipped with its reason; the run goes on; exit 1 when any file failed (or warned, with
--warnings-as-errors), 2 for usage errors and when the inputs hold nothing to convert, 130 on Ctrl-C, else 0.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

MODEL_SUFFIXES = (".msh", ".rlb")
RESULT_TAG = "@@io_msh "
RESULT_FD_VARIABLE = "IO_MSH_RESULT_FD"  # the pipe a worker writes its result lines to (POSIX)
MAX_SIZE = 4096  # --size: a 4096 px thumbnail is 64 MB of pixels; the contact sheet is capped at this width too
SHEET_NAME = "contact_sheet.png"
STAGE_PREFIX = ".io_msh_stage."


@dataclass
class Item:
    source: str            # the file to read
    entry: str | None      # a nested model of an archive
    output: str            # the file to write
    label: str             # how progress lines name it
    error: str | None = None  # known before any work: the input cannot be read
    index: int | None = None  # the archive entry (by index: names may repeat)
    kind: str = ""         # the work: the command's, or "sheet" for the contact sheet
    stage: str = ""        # the folder the worker writes the item's files to; the parent moves them into place


@dataclass
class Result:
    label: str
    ok: bool
    message: str
    seconds: float
    outputs: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    staged: tuple[tuple[str, str], ...] = ()  # (file written in the stage folder, the output it becomes)


# --------------------------------------------------------------------- arguments
def script_arguments(argv: list[str]) -> list[str]:
    """Our arguments: after ``--`` when Blender runs the script (``-b -P batch.py -- ...``), else all."""
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="batch.py", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p, inputs_help):
        p.add_argument("inputs", nargs="+", help=inputs_help)
        p.add_argument("-o", "--output", required=True, help="output folder")
        p.add_argument("--jobs", type=positive, default=1, help="parallel Blender processes")
        p.add_argument("--timeout", type=positive, default=600,
                       help="seconds one item may take before its worker is stopped (default 600)")
        p.add_argument("--warnings-as-errors", action="store_true",
                       help="an item with warnings counts as failed (exit code 1)")

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
    p.add_argument("--size", type=picture_size, default=256, help=f"pixels, 1 to {MAX_SIZE} (default 256)")
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


def plan_items(args, notes: list[str] | None = None) -> list[Item]:
    """The items of the run, each with a unique output name. ``notes`` receives what was skipped and why."""
    notes = [] if notes is None else notes
    out = Path(args.output)
    if args.command == "textures":
        return _texture_items(args.inputs, out, notes)
    if args.command == "export":
        items = []
        taken: set[str] = set()
        for path, base in _files(args.inputs, (".blend",)):
            target = _unique(out / path.relative_to(base).with_suffix(".msh"), taken)
            items.append(Item(str(path), None, str(target), str(path),
                              None if path.is_file() else f"{path}: no such file"))
        return items
    suffix = {"import": ".blend", "thumbnails": ".png"}.get(args.command) or f".{args.format}"
    taken: set[str] = {str(out / SHEET_NAME).lower()} if args.command == "thumbnails" else set()
    from ..core.errors import FormatError
    from ..core.files import open_container

    items = []
    for path, base in _files(args.inputs, MODEL_SUFFIXES):
        stem = path.relative_to(base).with_suffix("")
        try:
            container = open_container(path)
        except (FormatError, OSError) as exc:
            items.append(Item(str(path), None, "", str(path), _read_error(exc, path)))
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
            name = stem.with_name(f"{stem.name}_{_safe(_without_suffix(entry.name_str))}")
            items.append(Item(str(path), entry.name_str, str(_unique(out / f"{name}{suffix}", taken)),
                              f"{path}:{entry.name_str}", index=index_of[id(entry)]))
    return items


def _read_error(exc: Exception, path: Path) -> str:
    from ..core.errors import FormatError

    return exc.describe(str(path)) if isinstance(exc, FormatError) else f"{path}: {exc.strerror or exc}"


def _without_suffix(name: str) -> str:
    """An entry name without its suffix (``d0/m.msh`` -> ``d0/m``); any text, even ``''``, ``.`` or ``/``."""
    suffix = Path(name).suffix
    return name[:-len(suffix)] if suffix and name.endswith(suffix) else name


def _safe(name: str) -> str:
    """A name usable as (part of) a file name: what a file system may not hold becomes '_', and so does a name
    of dots only (``.``, ``..`` would name a folder)."""
    safe = "".join(c if c.isalnum() or c in "._-+" else "_" for c in name) or "_"
    return "_" * len(safe) if not safe.strip(".") else safe


def _unique(path: Path, taken: set[str]) -> Path:
    """``path``, or with ``_2``, ``_3``... before its suffix when a path equal but for case is taken already."""
    candidate, n = path, 1
    while str(candidate).lower() in taken:
        n += 1
        candidate = path.with_name(f"{path.stem}_{n}{path.suffix}")
    taken.add(str(candidate).lower())
    return candidate


def _texture_items(inputs: list[str], out: Path, notes: list[str]) -> list[Item]:
    """One item per Texm entry: DIR/LIBRARY_STEM/ENTRY.png (characters a file name cannot hold become '_'),
    the entry chosen by its index (names may repeat, or differ only in case). Archives without a texture
    (Material.lib, model archives) are skipped, each with a note."""
    from ..core.appearance.texm import TEXM_TYPE_ID
    from ..core.errors import FormatError
    from ..core.files import open_container

    items = []
    taken: set[str] = set()
    for path, _base in _files(inputs, (".lib", ".rlb")):
        try:
            entries = [(i, e) for i, e in enumerate(open_container(path).archive.entries)
                       if e.type_id == TEXM_TYPE_ID]
        except (FormatError, OSError) as exc:
            items.append(Item(str(path), None, "", str(path), _read_error(exc, path)))
            continue
        if not entries:
            notes.append(f"skipped {path}: the archive holds no texture")
        folder = path.stem if path.stem.strip(".") else _safe(path.stem)  # "...lib" must not write to out/..
        for index, entry in entries:
            target = _unique(out / folder / f"{_safe(entry.name_str)}.png", taken)
            items.append(Item(str(path), entry.name_str, str(target), f"{path}:{entry.name_str}", index=index))
    return items


# --------------------------------------------------------------------- running
def run(args) -> int:
    from ..core.errors import printable

    start = time.perf_counter()
    out = Path(args.output)
    if out.exists() and not out.is_dir():
        print(printable(f"batch.py: error: -o {out}: not a folder"), file=sys.stderr)
        return 2
    temp = Path(tempfile.mkdtemp(prefix="io_msh_batch_run_"))  # the workers' TMPDIR, removed whatever happens
    pool = WorkerPool(args, args.jobs, temp, out)
    interrupt = _Interrupt()
    previous = interrupt.install()
    done: list[Result] = []
    total = 0
    try:
        pool.start(1)  # Blender starts in a worker while the inputs are listed here
        notes: list[str] = []
        items = plan_items(args, notes)
        total = len(items)
        for note in notes:
            print(printable(note), flush=True)
        if not items:
            wanted = {"export": ".blend files", "textures": "texture"}.get(args.command, ".msh/.rlb models")
            print(printable(f"nothing to convert: no {wanted} found in {', '.join(args.inputs)}"), file=sys.stderr)
            return 2
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            print(printable(f"batch.py: error: -o {out}: {exc.strerror or exc}"), file=sys.stderr)
            return 2
        return _convert_all(args, pool, interrupt, items, done, start)
    except KeyboardInterrupt:
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


def _convert_all(args, pool: WorkerPool, interrupt: _Interrupt, items: list[Item], results: list[Result],
                 start: float) -> int:
    from ..core.errors import printable

    out = Path(args.output)
    total = len(items)
    taken = {str(Path(item.output)).lower() for item in items if item.output}
    if args.command == "thumbnails":
        taken.add(str(out / SHEET_NAME).lower())

    def report(item: Item, result: Result) -> None:
        _finish(args, item, result, taken, interrupt)
        results.append(result)
        state = "ok" if result.ok else "FAILED"
        lines = _lines(result.message, item)
        print(printable(f"[{len(results)}/{total}] {state:6} {item.label}: {lines[0]} "
                        f"({result.seconds:.2f} s, elapsed {time.perf_counter() - start:.1f} s)"), flush=True)
        for line in lines[1:]:
            print(f"    {line}", flush=True)
        for line in result.warnings:
            print(f"    warning: {_lines(line, item)[0]}", flush=True)
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
            pool.run([sheet], lambda item, result: outcome.append(_finish(args, item, result, set(), interrupt)))
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
        lines = _lines(result.message, by_label.get(result.label))
        print(printable(f"  failed: {result.label}: {lines[0]}"))
        for line in lines[1:]:
            print(f"      {line}")
    return 1 if failed else 0


def _finish(args, item: Item, result: Result, taken: set[str], interrupt: _Interrupt) -> Result:
    """Move the item's staged files onto their outputs (all or none), then remove its stage folder."""
    try:
        if result.ok and result.warnings and getattr(args, "warnings_as_errors", False):
            count = len(result.warnings)
            result.ok = False
            result.message = (f"{count} warning{'s' * (count != 1)}, treated as errors (--warnings-as-errors): "
                              f"nothing written")
        elif result.ok:
            with interrupt.held():  # Ctrl-C waits until the item's files are all in place (or all restored)
                result.outputs = tuple(_commit(_targets(item, result, taken)))
            result.message = "-> " + ", ".join(result.outputs)
    except OSError as exc:
        result.ok = False
        result.message = f"{exc.filename or item.output}: cannot write: {exc.strerror or exc}"
    finally:
        if item.stage:
            shutil.rmtree(item.stage, ignore_errors=True)
    return result


def _targets(item: Item, result: Result, taken: set[str]) -> list[tuple[Path, Path]]:
    """(staged file, output) pairs. The planned output is the item's own; further outputs (an export of a .blend
    holding several models) get names no other output has (``a.blend``'s model ``x`` is ``a_x.msh``, or
    ``a_x_2.msh`` when ``a_x.blend`` gives ``a_x.msh``). Files staged under one stem (``0.msh``, ``0.wea``)
    keep one stem."""
    stems: dict[str, Path] = {}
    pairs = []
    for staged, wanted in result.staged:
        staged, wanted = Path(staged), Path(wanted)
        if staged.stem not in stems:
            stems[staged.stem] = wanted if str(wanted) == item.output else _unique(wanted, taken)
        pairs.append((staged, stems[staged.stem].with_suffix(wanted.suffix)))
    return pairs


def _commit(pairs: list[tuple[Path, Path]]) -> list[str]:
    """Move staged files onto their targets as one transaction: when one cannot be replaced, those already
    replaced get their previous content back (or are removed, when new). OSError names the failed target.

    (A local form of the write-to-temporary-then-rename transaction; the exporter's is in core/files.py.)"""
    replaced: list[tuple[Path, Path | None]] = []
    try:
        for staged, target in pairs:
            target.parent.mkdir(parents=True, exist_ok=True)
            backup = None
            if os.path.lexists(target):
                if target.is_dir() and not target.is_symlink():
                    raise IsADirectoryError(errno.EISDIR, "a folder is in the way", str(target))
                backup = staged.with_name(staged.name + ".previous")  # in the stage folder: same file system
                try:
                    os.link(target, backup, follow_symlinks=False)
                except OSError:
                    shutil.copy2(target, backup, follow_symlinks=False)
            try:
                os.replace(staged, target)
            except OSError as exc:
                raise type(exc)(exc.errno, exc.strerror, str(target)) from None
            replaced.append((target, backup))
    except BaseException:
        for target, backup in reversed(replaced):
            with contextlib.suppress(OSError):
                if backup is None:
                    os.unlink(target)
                else:
                    os.replace(backup, target)
        raise
    return [str(target) for _, target in pairs]


def _lines(message: str, item: Item | None) -> list[str]:
    """A message as printable lines, one finding each, without the item's path (its progress line names it)."""
    from ..core.errors import printable

    prefixes = [printable(f"{text}: ") for text in ((item.label, item.source) if item else ()) if text]
    lines = []
    for line in message.splitlines() or [""]:
        line = printable(line)
        for prefix in prefixes:
            if line.startswith(prefix):
                line = line[len(prefix):]
                break
        lines.append(line)
    return lines


class _Interrupt:
    """SIGINT (Ctrl-C) and SIGTERM raise KeyboardInterrupt in the main thread, except while an item's files
    are moved into place: then they wait until that is done."""

    def __init__(self) -> None:
        self.holding = False
        self.signum: int | None = None

    def __call__(self, signum, frame) -> None:
        self.signum = signum
        if not self.holding:
            raise KeyboardInterrupt

    def install(self) -> dict:
        previous = {}
        with contextlib.suppress(ValueError):  # not the main thread: signals stay as they are
            for signum in (signal.SIGINT, signal.SIGTERM):
                previous[signum] = signal.signal(signum, self)
        return previous

    def restore(self, previous: dict) -> None:
        for signum, handler in previous.items():
            signal.signal(signum, handler)

    @contextlib.contextmanager
    def held(self):
        """Signals wait (``check`` raises them once the item is reported)."""
        self.holding = True
        try:
            yield
        finally:
            self.holding = False

    def check(self) -> None:
        if self.signum is not None:
            raise KeyboardInterrupt


def _worker_command() -> list[str]:
    """A worker: Blender itself when this runs inside Blender, else this Python (with the bpy wheel)."""
    script = str(Path(__file__).resolve())
    bpy = sys.modules.get("bpy")
    binary = bpy.app.binary_path if bpy is not None else ""
    if binary and not binary.endswith("python"):
        return [binary, "-b", "--factory-startup", "-P", script, "--", "--worker"]
    return [sys.executable, script, "--worker"]


class WorkerPool:
    """At most ``jobs`` worker processes (never more than items) taking items one at a time from a shared queue.

    A worker that dies (a crash, a kill) or overruns ``--timeout`` on an item fails that item alone, named
    with the reason; a fresh worker takes the items still queued. Three workers in a row that die before
    finishing any item end the run's remaining items (Blender cannot start). Workers get ``temp`` as their
    TMPDIR, and write each item into its own stage folder in ``stage_root``; ``stop`` ends them all.
    """

    def __init__(self, args, jobs: int, temp: Path | None = None, stage_root: Path | None = None) -> None:
        self.args, self.jobs = args, max(1, jobs)
        self.temp, self.stage_root = temp, stage_root
        self.lock = threading.Lock()
        self.dead_starts = 0
        self.stopping = False
        self.live: set[_WorkerProcess] = set()
        self.staged = 0
        self.spawned = 0  # worker processes started
        self.started: queue.Queue = queue.Queue()  # workers started ahead of the first item

    def start(self, count: int) -> None:
        """Start ``count`` workers now, so that Blender loads while the caller prepares the items."""
        for _ in range(min(count, self.jobs)):
            worker = self._new_worker()
            if worker is not None:
                self.started.put(worker)

    def _new_worker(self) -> _WorkerProcess | None:
        with self.lock:
            if self.stopping:
                return None
            worker = _WorkerProcess(self.args, self.temp)
            self.spawned += 1
            self.live.add(worker)
            return worker

    def _close(self, worker: _WorkerProcess) -> None:
        worker.close()
        with self.lock:
            self.live.discard(worker)

    def stop(self) -> None:
        """End every worker now (Ctrl-C); items in flight are not finished."""
        with self.lock:
            self.stopping = True
            workers = list(self.live)
        for worker in workers:
            worker.kill()

    def run(self, items: list[Item], report) -> None:
        """Do ``items``; ``report(item, result)`` is called in this thread as each one ends."""
        self.queue: queue.Queue = queue.Queue()
        for item in items:
            if self.stage_root is not None and item.output:
                self.staged += 1
                item.stage = str(self.stage_root / f"{STAGE_PREFIX}{os.getpid()}.{self.staged}")
            self.queue.put(item)
        self.results: queue.Queue = queue.Queue()
        threads = [threading.Thread(target=self._slot, daemon=True) for _ in range(min(self.jobs, len(items)))]
        for thread in threads:
            thread.start()
        for _ in items:
            report(*self.results.get())
        for thread in threads:
            thread.join()
        while not self.started.empty():  # started, but more than the items needed
            self._close(self.started.get())

    def _next(self) -> Item | None:
        try:
            return None if self.stopping else self.queue.get_nowait()
        except queue.Empty:
            return None

    def _slot(self) -> None:
        item = self._next()
        while item is not None:
            try:
                worker = self.started.get_nowait()
            except queue.Empty:
                try:
                    worker = self._new_worker()
                except OSError as exc:  # no Blender to start: every item left fails with the reason
                    while item is not None:
                        self.results.put((item, Result(item.label, False, f"cannot start a Blender process: "
                                                                          f"{exc.strerror or exc}", 0.0)))
                        item = self._next()
                    return
            if worker is None:  # stopping
                return
            done_here = 0
            try:
                while item is not None:
                    result = worker.process(item, self.args.timeout)
                    self.results.put((item, result))
                    if not worker.alive:
                        break
                    done_here += 1
                    item = self._next()
            finally:
                self._close(worker)
            with self.lock:
                self.dead_starts = 0 if done_here else self.dead_starts + 1
                give_up = self.dead_starts >= 3
            item = self._next()
            while give_up and item is not None:
                self.results.put((item, Result(item.label, False, "not converted: Blender worker processes keep "
                                                                  "ending before they finish an item", 0.0)))
                item = self._next()


class _WorkerProcess:
    """One worker process: items go in on its stdin; results come back on a pipe of their own (POSIX; elsewhere
    on its stdout), so that nothing Blender or an exporter prints can hide or split a result line. The worker
    runs in a session of its own: Ctrl-C reaches the parent, which stops the workers."""

    def __init__(self, args, temp: Path | None = None) -> None:
        env = os.environ.copy()
        if temp is not None:
            env["TMPDIR"] = str(temp)  # Blender's session folder, and anything else a worker leaves, goes there
        options: dict = {}
        write_fd = None
        if os.name == "posix":
            read_fd, write_fd = os.pipe()
            env[RESULT_FD_VARIABLE] = str(write_fd)
            options = {"pass_fds": (write_fd,), "start_new_session": True, "stdout": subprocess.DEVNULL}
        else:
            options = {"stdout": subprocess.PIPE}
        try:
            self.popen = subprocess.Popen(_worker_command(), stdin=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                          env=env, **options)
        except OSError:
            if write_fd is not None:
                os.close(read_fd)
            raise
        finally:
            if write_fd is not None:
                os.close(write_fd)
        self.results = os.fdopen(read_fd, "rb") if write_fd is not None else self.popen.stdout
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.popen.stdin.write((json.dumps(vars(args)) + "\n").encode("ascii"))
        with contextlib.suppress(OSError):
            self.popen.stdin.flush()
        self.alive = True

    def _read(self) -> None:
        """Result lines: bytes (not text, which any byte a file name or Blender prints could break), the tag
        anywhere in a line (a message without a final newline may come before it)."""
        tag = RESULT_TAG.encode("ascii")
        with self.results:
            for line in self.results:
                at = line.find(tag)
                if at >= 0:
                    self.lines.put(line[at + len(tag):].decode("ascii", "replace"))
        self.lines.put(None)  # the process ended

    def process(self, item: Item, timeout: float) -> Result:
        start = time.perf_counter()
        try:
            self.popen.stdin.write((json.dumps(asdict(item)) + "\n").encode("ascii"))
            self.popen.stdin.flush()
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            self.alive = False
            self.kill()
            return Result(item.label, False, f"timed out after {timeout:g} s (--timeout); the worker was stopped",
                          time.perf_counter() - start)
        except OSError:
            line = None
        if line is None:
            self.alive = False
            code = self.popen.wait()
            return Result(item.label, False, f"the Blender process (pid {self.popen.pid}) ended unexpectedly "
                                             f"(exit code {code}) while converting it", time.perf_counter() - start)
        try:
            raw = json.loads(line)
            return Result(**{**raw, "outputs": tuple(raw.get("outputs", ())), "warnings": tuple(raw["warnings"]),
                             "staged": tuple(tuple(pair) for pair in raw["staged"])})
        except (ValueError, KeyError, TypeError):
            return Result(item.label, False, "the worker's result could not be read", time.perf_counter() - start)

    def kill(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()
        self.popen.wait()

    def close(self) -> None:
        if self.popen.poll() is None:
            with contextlib.suppress(OSError):
                self.popen.stdin.close()
            try:
                self.popen.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.kill()


def worker_main() -> int:
    """The worker side of WorkerPool: the arguments, then one item per line on stdin; a result line for each
    on the result pipe (or stdout), always starting on a fresh line."""
    args = argparse.Namespace(**json.loads(sys.stdin.readline()))
    fd = os.environ.pop(RESULT_FD_VARIABLE, "")
    worker = Worker(args)
    try:
        for line in sys.stdin:
            result = worker.process(Item(**json.loads(line)))
            data = ("\n" + RESULT_TAG + json.dumps(asdict(result)) + "\n").encode("ascii")
            if fd:
                while data:
                    data = data[os.write(int(fd), data):]
            else:
                sys.stdout.flush()
                sys.stdout.buffer.write(data)
                sys.stdout.flush()
    finally:
        worker.close()
    return 0


# --------------------------------------------------------------------- per-item work in Blender
class Worker:
    """Does the items of one command in this Blender process, one clean scene each.

    Each item's files are written into its stage folder under plain ASCII names (Blender's file paths are
    UTF-8: a file name that is not is reached through a symbolic link of an ASCII name); the parent then
    moves them onto their outputs."""

    def __init__(self, args) -> None:
        import bpy

        self.args = args
        self.bpy = bpy
        self.warnings: list[str] = []
        self.stage = ""
        self.links = tempfile.mkdtemp(prefix="io_msh_names_")
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
        shutil.rmtree(self.links, ignore_errors=True)
        if self.registered:
            from .. import unregister

            unregister()
            self.registered = False

    def process(self, item: Item) -> Result:
        start = time.perf_counter()
        self.warnings = []
        try:
            _injected_fault(item)
            clean_scene(self.bpy)  # nothing of the start-up scene (its cube, camera, light) or the last item
            Path(item.stage).mkdir(parents=True, exist_ok=True)
            self.stage = self.blender_path(item.stage)
            staged = getattr(self, f"_{item.kind or self.args.command}")(item)
            pairs = tuple((str(Path(item.stage) / name), wanted) for name, wanted in staged)
            for (path, wanted) in pairs:
                if not Path(path).is_file():
                    raise ValueError(f"nothing was written to {wanted}")
            return Result(item.label, True, "", time.perf_counter() - start, (), tuple(self.warnings), pairs)
        except Exception as exc:  # one bad file must not stop the run
            return Result(item.label, False, self._reason(exc, item), time.perf_counter() - start,
                          warnings=tuple(self.warnings))
        finally:
            clean_scene(self.bpy)
            for link in os.listdir(self.links):
                os.unlink(os.path.join(self.links, link))

    def _reason(self, exc: Exception, item: Item) -> str:
        """The failure in plain words: a core error's findings, one per line; of a Python traceback (an operator
        such as the glTF exporter failing) only its last line; the stage folder's files named as the outputs."""
        import re

        from ..core.errors import FormatError

        if isinstance(exc, FormatError):
            text = exc.describe(item.source)
        elif isinstance(exc, OSError) and exc.filename:
            text = f"{exc.filename}: {exc.strerror or exc}"
        else:
            text = operator_error(str(exc)) or type(exc).__name__
        for folder in {self.stage, item.stage} - {""}:
            text = re.sub(re.escape(folder) + r"/[^\s'\"]*", lambda _: item.output, text)
        return text

    @contextlib.contextmanager
    def _writing(self, name: str, output: str):
        """Around a Blender writer: its failure, or a file it left incomplete (Blender's own writers do not
        all report a full disk), becomes "cannot write OUTPUT: reason"."""
        try:
            yield
            incomplete = _incomplete(self._staged(name))
        except Exception as exc:  # an operator's RuntimeError, an OSError of a Python writer
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else operator_error(str(exc))
            raise ValueError(f"cannot write {output}: {reason}") from None
        if incomplete:
            raise ValueError(f"cannot write {output}: {incomplete}")

    def blender_path(self, path: str | Path) -> str:
        """``path`` as Blender can take it: itself, or an ASCII symbolic link to it when it is not UTF-8."""
        text = str(path)
        try:
            text.encode("utf-8")
            return text
        except UnicodeEncodeError:
            suffix = Path(text).suffix if Path(text).suffix.isascii() else ""
            link = os.path.join(self.links, f"{len(os.listdir(self.links))}{suffix}")
            os.symlink(os.path.abspath(text), link)
            return link

    def _staged(self, name: str) -> str:
        return os.path.join(self.stage, name)

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
        self.warnings += [warning for plan in plans for warning in plan.warnings]
        import_plans(self.bpy.context, plans, Matrix.Identity(4))

    def _import(self, item: Item) -> list[tuple[str, str]]:
        self._load(item)
        with self._writing("0.blend", item.output):
            self.bpy.ops.wm.save_as_mainfile(filepath=self._staged("0.blend"), copy=True)
        return [("0.blend", item.output)]

    def _convert(self, item: Item) -> list[tuple[str, str]]:
        self._load(item)
        ops = self.bpy.ops
        name = f"0.{self.args.format}"
        with self._writing(name, item.output):
            if self.args.format == "glb":
                ops.export_scene.gltf(filepath=self._staged(name), export_format="GLB", export_animations=True)
            elif self.args.format == "fbx":
                from .imp.materials import textures_for_fbx

                with textures_for_fbx(self.bpy.data.materials):  # FBX follows no Mix node: textures go straight in
                    ops.export_scene.fbx(filepath=self._staged(name), bake_anim=True, embed_textures=True,
                                         path_mode="COPY")
            else:
                ops.wm.save_as_mainfile(filepath=self._staged(name), copy=True)
        return [(name, item.output)]

    def _export(self, item: Item) -> list[tuple[str, str]]:
        """Every model root of the .blend (several: one file each, named after the model), with the material
        list the exporter writes beside it; the exporter's warnings are the item's."""
        from ..core.errors import FormatError, printable
        from .exp.export import export_to_file
        from .exp.plan import ExportOptions

        bpy = self.bpy
        bpy.ops.wm.open_mainfile(filepath=self.blender_path(item.source))
        roots = [o for o in bpy.data.objects if "msh_model" in o]
        if not roots:
            raise ValueError("the .blend holds no model root (an object with msh_model)")
        staged: list[tuple[str, str]] = []
        for n, root in enumerate(sorted(roots, key=lambda o: o.name)):
            target = Path(item.output)
            model = printable(str(root["msh_model"]))
            if len(roots) > 1:  # several models (even of one name): one file each; the parent makes names unique
                target = target.with_name(f"{target.stem}_{_safe(_without_suffix(model))}.msh")
            for obj in bpy.context.view_layer.objects:
                obj.select_set(obj == root)
            bpy.context.view_layer.objects.active = root
            where = f"{model}: " if len(roots) > 1 else ""
            try:
                result = export_to_file(bpy.context, self._staged(f"{n}.msh"), ExportOptions(keys=self.args.keys))
            except FormatError as exc:
                raise ValueError("\n".join(where + line for line in exc.describe("").splitlines())) from None
            self.warnings += [where + warning for warning in result.warnings]
            staged.append((f"{n}.msh", str(target)))
            if os.path.exists(self._staged(f"{n}.wea")):
                staged.append((f"{n}.wea", str(target.with_suffix(".wea"))))
        return staged

    def _sheet(self, item: Item) -> list[tuple[str, str]]:
        pictures = [(self.blender_path(path), label) for path, label in json.loads(item.source)]
        with self._writing("0.png", item.output):
            contact_sheet(pictures, Path(self._staged("0.png")), self.args.size)
        return [("0.png", item.output)]

    def _thumbnails(self, item: Item) -> list[tuple[str, str]]:
        self._load(item, animation="NONE", slots="CHOSEN")
        with self._writing("0.png", item.output):
            render_thumbnail(self.bpy, Path(self._staged("0.png")), self.args.size)
        return [("0.png", item.output)]

    def _textures(self, item: Item) -> list[tuple[str, str]]:
        from ..core.appearance.texm import parse_texm
        from ..core.files import open_container

        entry = open_container(item.source).archive.entries[item.index]
        rgba = parse_texm(entry.data, item.label).decode()
        with self._writing("0.png", item.output):
            save_png(self.bpy, rgba, Path(self._staged("0.png")))
        return [("0.png", item.output)]


def operator_error(text: str) -> str:
    """An operator's error as one line: of a Python traceback (``Error: Python: Traceback ...``) its last line,
    the exception (``OSError: [Errno 27] File too large``), without Blender's ``Location:`` line."""
    text = text.strip().removeprefix("Error: ")
    marker = "Traceback (most recent call last):"
    if marker in text:
        tail = [line for line in text.split(marker, 1)[1].splitlines()
                if line.strip() and not line.startswith((" ", "\t")) and not line.lower().startswith("location:")]
        text = tail[-1] if tail else "an exporter failed"
    return text


def _incomplete(path: str) -> str:
    """Why a file Blender wrote is incomplete, or "" (a .blend ends with its ENDB block, or the zstd
    seek table when compressed; a PNG with its IEND chunk). Other formats are written by Python, which raises."""
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as handle:
            head = handle.read(4)
            handle.seek(max(0, size - 32))
            tail = handle.read()
    except OSError as exc:
        return exc.strerror or str(exc)
    if path.endswith(".blend"):
        complete = tail.endswith(b"\xb1\xea\x92\x8f") if head == b"\x28\xb5\x2f\xfd" else b"ENDB" in tail
    elif path.endswith(".png"):
        complete = tail.endswith(b"IEND\xaeB`\x82")
    else:
        return ""
    return "" if complete else "the file was left incomplete (is the disk full, or a file size limit reached?)"


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
                                 "lights", "images", "curves", "fonts") for block in getattr(bpy.data, kind)]
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

    from ..core.errors import printable

    clean_scene(bpy)
    if not pictures:
        return
    scene = bpy.context.scene
    font = label_font(bpy)
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
        label = printable(Path(name).name)  # FILE or FILE:ENTRY, without the folders
        curve.body = label if len(label) < 32 else "..." + label[-29:]
        curve.font = font or curve.font
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


LABEL_FONT = "DejaVuSansMono.woff2"


def label_font(bpy):
    """The font of the contact sheet's labels: DejaVu Sans Mono from Blender's own fonts, which draws Cyrillic
    (the game's names are code page 1251) where the text objects' built-in font fills some letters (н, ы) as
    blocks; None (the built-in font) if this Blender lacks it."""
    folder = bpy.utils.system_resource("DATAFILES", path="fonts")
    path = os.path.join(folder, LABEL_FONT) if folder else ""
    return bpy.data.fonts.load(path, check_existing=True) if path and os.path.isfile(path) else None


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
    try:
        code = _load_package_and_run()
    except KeyboardInterrupt:  # Ctrl-C before the run could take it: no traceback
        code = 130
    if "bpy" in sys.modules:
        _exit_with_blender_loaded(code)
    sys.exit(code)
