"""The worker processes of a batch run: Blender processes taking items one at a time from a shared queue,
and their result lines."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
import time
from dataclasses import asdict
from pathlib import Path

from .items import STAGE_PREFIX, Item, Result

RESULT_TAG = "@@io_msh "
PROGRESS_TAG = "@@io_msh_step "  # a step of a long item done (a library's assets imported one by one)


RESULT_FD_VARIABLE = "IO_MSH_RESULT_FD"  # the pipe a worker writes its result lines to (POSIX)
STOP_GRACE = 5.0  # seconds a worker asked to stop (SIGTERM) has to undo a write before it is killed


def _worker_command() -> list[str]:
    """A worker: Blender itself when this runs inside Blender, else this Python (with the bpy wheel)."""
    script = str(Path(__file__).resolve().with_name("__main__.py"))
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
        self.started: queue.Queue = queue.Queue()  # workers started ahead of the first item, and idle ones

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
        """End every worker: the idle ones are let go (their input closed: they end as they would at the end of
        the items); the busy ones (Ctrl-C) are not finished: each is asked first (SIGTERM: a worker writing files
        undoes the write and removes its temporaries and locks, core.disk), then killed after STOP_GRACE."""
        with self.lock:
            self.stopping = True
        idle = []
        while not self.started.empty():
            idle.append(self.started.get())
        for worker in idle:
            worker.release()
        for worker in idle:
            self._close(worker)
        with self.lock:
            workers = list(self.live)
        for worker in workers:
            worker.terminate()
        deadline = time.monotonic() + STOP_GRACE
        for worker in workers:
            worker.kill(max(0.0, deadline - time.monotonic()))

    def run(self, items: list[Item], report, step=None) -> None:
        """Do ``items``; ``report(item, result)`` is called in this thread as each one ends, ``step(item, text)``
        (in a worker's thread) as a worker tells a step of one done. The workers stay for the run's next items
        (its steps: a library's previews and the library) until ``stop``: a run starts at most ``jobs`` Blender
        processes, but for those that die."""
        self.step = step
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
                    result = worker.process(item, self.args.timeout, self.step)
                    self.results.put((item, result))
                    if not worker.alive:
                        break
                    done_here += 1
                    item = self._next()
            finally:
                if worker.alive and item is None:
                    self.started.put(worker)  # idle: kept for the run's next items
                else:
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
        tag, step = RESULT_TAG.encode("ascii"), PROGRESS_TAG.encode("ascii")
        with self.results:
            for line in self.results:
                at = line.find(tag)
                if at >= 0:
                    self.lines.put(line[at + len(tag):].decode("ascii", "replace"))
                elif (at := line.find(step)) >= 0:
                    self.lines.put((line[at + len(step):].decode("ascii", "replace"),))
        self.lines.put(None)  # the process ended

    def process(self, item: Item, timeout: float, step=None) -> Result:
        """The item's result; each step the worker tells done goes to ``step(item, text)``, and gives the next
        step ``timeout`` seconds anew."""
        start = time.perf_counter()
        try:
            self.popen.stdin.write((json.dumps(asdict(item)) + "\n").encode("ascii"))
            self.popen.stdin.flush()
            line = self.lines.get(timeout=timeout)
            while isinstance(line, tuple):
                with contextlib.suppress(ValueError):
                    if step is not None:
                        step(item, json.loads(line[0]))
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

    def terminate(self) -> None:
        if self.popen.poll() is None:
            with contextlib.suppress(OSError):
                self.popen.terminate()

    def kill(self, grace: float = STOP_GRACE) -> None:
        """End the process: SIGTERM, then SIGKILL when it has not ended ``grace`` seconds later."""
        self.terminate()
        try:
            self.popen.wait(grace)
        except subprocess.TimeoutExpired:
            self.popen.kill()
        self.popen.wait()

    def release(self) -> None:
        """Close its input: an idle worker then ends (``close`` waits for it)."""
        with contextlib.suppress(OSError):
            self.popen.stdin.close()

    def close(self) -> None:
        if self.popen.poll() is None:
            with contextlib.suppress(OSError):
                self.popen.stdin.close()
            try:
                self.popen.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.kill()
