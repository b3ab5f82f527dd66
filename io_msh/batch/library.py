"""``batch library GAME_FOLDER -o Parkan.blend``: the game as a Blender asset library. Every model and every unit
tree becomes a collection asset (io_msh.batch.library_worker) in one .blend, with ``blender_assets.cats.txt``
beside it (io_msh.batch.library_plan). A second run re-does only the assets whose sources changed: each asset
carries the fingerprint of what it was made from; the others are copied over from the library as it was.

The run: the old library's index (a worker reads it), the changed assets' previews (the workers, in parallel,
each asset imported and rendered), then one worker opens the old library and imports the changed assets into it
one by one (io_msh.batch.library_worker.merge: the cost of each is the same, however many the library holds);
the library and the catalogue file are moved into place together, so an interrupted or failed run leaves the
library as it was. The same workers do every step, and every step's end is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

from .items import Item, Result
from .pictures import MAX_SIZE
from .pool import WorkerPool
from .results import Interrupt, finish, interrupted, result_lines


def add_parser(sub, positive, picture_size) -> None:
    p = sub.add_parser("library", help="a Blender asset library of a game folder: every model and unit as an "
                                       "asset, with previews and catalogues")
    p.add_argument("game_folder", help="the game folder (objects.rlb, the archives, UNITS)")
    p.add_argument("-o", "--output", required=True, help="the library .blend; blender_assets.cats.txt goes "
                                                         "beside it")
    p.add_argument("--rebuild", action="store_true",
                   help="make every asset again (default: only those whose sources changed since the last run)")
    p.add_argument("--size", type=picture_size, default=256, help=f"preview pixels, 1 to {MAX_SIZE} (default 256)")
    p.add_argument("--jobs", type=positive, default=1, help="parallel Blender processes (default: 1)")
    p.add_argument("--timeout", type=positive, default=600,
                   help="seconds one asset may take before its worker is stopped (default 600)")
    p.add_argument("--warnings-as-errors", action="store_true",
                   help="an asset with warnings counts as failed, exit code 1 (default: warnings are allowed)")


def run_library(args: argparse.Namespace) -> int:
    """The run; the exit code, as the other commands' (File > Import > Parkan Game as Asset Library reads the
    ``library:``, ``summary:`` and ``failed:`` lines it prints)."""

    start = time.perf_counter()
    folder, out = Path(args.game_folder), Path(args.output).absolute()
    if not folder.is_dir():
        return _usage(f"{folder}: not a folder")
    if out.suffix.lower() != ".blend" or out.is_dir():
        return _usage(f"{out}: the library must be a .blend file")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        remove_dead_staging(out.parent)
        # beside the library: the same file system as it (the run's PID in its name, for ``remove_dead_staging``)
        temp = Path(tempfile.mkdtemp(prefix=f"{STAGING_PREFIX}{os.getpid()}_", dir=out.parent))
    except OSError as exc:
        return _usage(f"{out}: cannot write: {exc.strerror or exc}")
    args.output = str(out)
    pool = WorkerPool(args, args.jobs, temp, temp)
    interrupt = Interrupt()
    previous = interrupt.install()
    try:
        interrupt.check()  # a signal held while the modules loaded
        pool.start(1)
        return _build(args, pool, interrupt, folder, out, temp, start)
    except (KeyboardInterrupt, RuntimeError) as exc:
        if not interrupted(exc):
            raise
        pool.stop()
        print(f"interrupted: {out} was left as it was", file=sys.stderr, flush=True)
        return 128 + (interrupt.signum or signal.SIGINT)
    finally:
        interrupt.holding = True
        pool.stop()
        shutil.rmtree(temp, ignore_errors=True)
        interrupt.restore(previous)


def _build(args, pool: WorkerPool, interrupt: Interrupt, folder: Path, out: Path, temp: Path, start: float) -> int:
    from ...core.disk import read_with_state
    from ...core.errors import printable
    from .library_plan import CATALOG_FILE, plan_library  # here: the core it needs loads while Blender starts

    notes: list[str] = []
    planned = plan_library(str(folder), args.size, notes)
    for note in notes:
        print(printable(note), flush=True)
    if not planned:
        return _usage(f"nothing to put in a library: no .msh/.rlb models or .dat units found in {folder}")
    try:  # the library as this run reads it: replaced only if it is still that file when the new one is written
        as_read = read_with_state(out)[1] if os.path.lexists(out) else None
    except OSError as exc:
        return _usage(f"{out}: cannot read it: {exc.strerror or exc}: it was left as it is")
    index = _old_index(args, pool, interrupt, out, temp) if as_read is not None else {}
    if index is None:
        return 2
    if args.rebuild:
        index = {}
    keep, todo, errors, results = [], [], [], []
    catalogs = set()  # of the assets the library will hold
    for n, (item, meta) in enumerate(planned):
        old = index.get(meta.key)
        if item.error:
            errors.append(item)
        elif old is not None and old["fingerprint"] == meta.fingerprint and old["catalog"] == meta.catalog:
            keep.append(old["name"])
            catalogs.add(old["catalog"])
        else:
            item.kind, item.output, item.meta = "asset", str(temp / "previews" / f"{n}.png"), json.dumps(asdict(meta))
            todo.append(item)
    removed = len({key for key in index} - {meta.key for _, meta in planned})
    total = len(todo) + len(errors)
    print(f"{len(planned)} assets: {len(keep)} unchanged, {len(todo)} to make"
          + (f", {removed} gone from the folder" if removed else ""), flush=True)

    def report(item: Item, result: Result) -> None:
        finish(args, item, result, set(), interrupt)
        results.append((item, result))
        lines = result_lines(result.message, item)
        state = "ok" if result.ok else "FAILED"
        shown = "preview made" if result.ok else lines[0]
        print(printable(f"[{len(results)}/{total}] {state:6} {item.label}: {shown} ({result.seconds:.2f} s, "
                        f"elapsed {time.perf_counter() - start:.1f} s)"), flush=True)
        for line in ([] if result.ok else lines[1:]):
            print(f"    {line}", flush=True)
        for line in result.warnings:
            print(f"    warning: {result_lines(line, item)[0]}", flush=True)
        interrupt.check()

    for item in errors:
        report(item, Result(item.label, False, item.error, 0.0))
    pool.run(todo, report)
    made = [item for item, result in results if result.ok and item.kind == "asset"]
    failed = [(item, result) for item, result in results if not result.ok]
    cats = out.with_name(CATALOG_FILE)
    catalogs |= {json.loads(item.meta)["catalog"] for item, result in results if result.ok and item.kind == "asset"}
    if not made and not removed and as_read is not None and len(keep) == len(index):
        try:
            with interrupt.held():
                completed = _complete_catalogs(cats, catalogs)
        except OSError as exc:
            print(printable(f"library: FAILED: {cats}: {exc.strerror or exc}; {out} was left as it was"))
            return 1
        interrupt.check()
        state = f"{out} is up to date ({len(keep)} assets)" + (f"; {cats.name} completed" if completed else "")
    else:
        new = [{"item": asdict(item), "preview": item.output} for item in made]
        merge = Item(str(out), None, str(out), f"library {out.name}", kind="library_merge",
                     meta=json.dumps({"old": str(out), "keep": keep, "new": new}))
        print(printable(f"library: putting {len(keep) + len(made)} assets together in {out} "
                        f"(elapsed {time.perf_counter() - start:.1f} s)"), flush=True)
        outcome = []

        def step(item: Item, text: str) -> None:  # an asset imported into the library (in a worker's thread)
            done, _, label = text.partition(" ")
            print(printable(f"library: {done} {label}: asset made (elapsed {time.perf_counter() - start:.1f} s)"),
                  flush=True)

        pool.run([merge], lambda item, result: outcome.append(finish(args, item, result, set(), interrupt,
                                                                     {str(out): as_read})), step)
        if not outcome[0].ok:
            interrupt.check()
            print(printable(f"library: FAILED: {outcome[0].message}; {out} was left as it was"))
            return 1
        try:  # a signal held while the library was written waits for its catalogue file too
            with interrupt.held():
                _complete_catalogs(cats, catalogs)
        except OSError as exc:
            print(printable(f"library: FAILED: {cats}: {exc.strerror or exc}; {out} was written: run again to "
                            "complete the catalogue file"))
            return 1
        if interrupt.signum is not None:  # held while the library and its catalogue file were written: both whole
            print(printable(f"interrupted: {out} was written"), file=sys.stderr, flush=True)
            return 128 + interrupt.signum
        state = (f"{out} ({len(keep) + len(made)} assets: {len(made)} made, {len(keep)} unchanged), {cats.name} "
                 f"(put together in {outcome[0].seconds:.1f} s)")
    print(printable(f"library: {state}"))
    warned = sum(len(result.warnings) for _, result in results)
    print(f"summary: {len(made)} of {total} assets made, {len(keep)} unchanged, {len(failed)} failed, "
          f"{warned} warning{'s' * (warned != 1)}, "
          f"{pool.spawned} Blender process{'es' * (pool.spawned != 1)}, {time.perf_counter() - start:.1f} s")
    for item, result in failed:
        print(printable(f"  failed: {item.label}: {result_lines(result.message, item)[0]}"))
    return 1 if failed else 0


def _complete_catalogs(cats: Path, paths: set[str]) -> bool:
    """Add to the catalogue file beside the library the catalogues of ``paths`` (its assets') it does not
    define (``catalog_text``); whether it was written. The file goes through the one write path (core.write_path)
    as read here: should the user's Blender change it in between, it is read again, so that no line of theirs is
    lost. The library is written first: a run killed between them leaves the file behind, and the next run
    completes it (so does a catalogue of ours the user deleted). OSError when it cannot be written."""
    from ...core.disk import ChangedError, read_with_state
    from ...core.write_path import Target, write
    from .library_plan import catalog_text, catalogs_defined

    for attempt in range(10):
        try:
            raw, state = read_with_state(cats)
        except FileNotFoundError:
            raw, state = b"", None
        old = raw.decode("utf-8", "surrogateescape")  # a byte that is not UTF-8 is kept as it was
        if catalogs_defined(paths, old):
            return False
        try:
            write([Target(str(cats), catalog_text(paths, old).encode("utf-8", "surrogateescape"), read=state,
                          owned=True, spliced=True)])  # the file as just read, the catalogues added
            return True
        except ChangedError:
            if attempt == 9:  # changing all the time: the error says so
                raise
    return False


def _usage(message: str) -> int:
    from ...core.errors import printable

    print(printable(f"batch: error: {message}"), file=sys.stderr)
    return 2


def _old_index(args, pool: WorkerPool, interrupt: Interrupt, out: Path, temp: Path) -> dict | None:
    """The old library's assets by key; None (with the reason printed) when ``out`` is no library this command
    wrote, or cannot be read: it is then left as it is, never written over."""

    target = temp / "index.json"
    item = Item(str(out), None, str(target), f"index of {out.name}", kind="library_index")
    outcome: list[Result] = []
    pool.run([item], lambda item, result: outcome.append(finish(args, item, result, set(), interrupt)))
    interrupt.check()
    if not outcome[0].ok:
        _usage(f"{out}: cannot read it as a library ({outcome[0].message}): it was left as it is; remove it or "
               "choose another -o")
        return None
    index = json.loads(target.read_text(encoding="utf-8"))
    if not index["ours"]:
        _usage(f"{out} is not an asset library this command wrote: it was left as it is; choose another -o")
        return None
    return index["assets"]


STAGING_PREFIX = ".io_msh_library_"  # the run's folder beside the library: PID_RANDOM after it
LEGACY_AGE = 600.0  # seconds: a folder named without a PID (an earlier version's) that old was left by a kill


def remove_dead_staging(folder: Path) -> None:
    """Remove the folders that runs killed before their clean-up left beside the library (their PID after
    STAGING_PREFIX), once that process is gone; one named without a PID once LEGACY_AGE old. On systems without
    a harmless liveness test (Windows) only the latter."""
    from ...core.disk import process_gone

    for staging in folder.glob(f"{STAGING_PREFIX}*"):
        pid = staging.name[len(STAGING_PREFIX):].split("_", 1)[0]
        try:
            if not staging.is_dir() or staging.is_symlink():
                continue
            if pid.isdigit() and "_" in staging.name[len(STAGING_PREFIX):]:
                dead = os.name == "posix" and process_gone(int(pid))
            else:
                dead = time.time() - staging.stat().st_mtime > LEGACY_AGE
        except OSError:
            continue
        if dead:
            shutil.rmtree(staging, ignore_errors=True)


    return True
