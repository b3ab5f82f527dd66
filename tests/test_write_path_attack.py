"""Attacks on the one write path (core.write_path, core.kinds, core.disk): every promise it makes, tried against
what breaks such code.

- A set of files written by ``core.disk.write_files`` in a subprocess that an os-level hook (``STEPPER``: every
  ``os.replace/rename/link/unlink/remove/mkdir/rmdir/chmod/utime`` and ``tempfile.mkstemp`` under the watched
  folders, counted) stops before or after each step: SIGKILL (every file its old or its new bytes as read
  back through ``read_input``, the whole set one or the other, and what the writer left removed by the next
  write), SIGTERM and Ctrl-C (the same, and nothing of ours left at once). A recovery killed at each of its
  own steps likewise.
- Writers of overlapping sets at once, threads and processes, one killed or paused at a random step: no write
  lost, none half done, no deadlock; a recovery racing a writer.
- Journals no writer of ours left (garbage, empty, cut short, naming files elsewhere, a target now a folder or a
  link, a backup gone, a fifo): an error naming the file, nothing touched outside the set's folders, no data
  lost.
- Paths: links (symbolic, hard), two names of one file, names with newlines and bytes that are not UTF-8, a
  read-only folder, a folder, fifo or device as target.
- Kinds told from hostile bytes in bounded time and memory; models, archives, terrains, missions told apart.
- ``write``: this process's writes against another program's, spliced targets, reads given as bytes, states,
  None or UNREAD, unchanged targets left untouched.
- A hypothesis state machine: writes of random subsets, kills at random steps, another program writing between
  them, reads that recover.

The suite's budget is about a minute; ``WRITE_PATH_SOAK=N`` runs every kill point N times more and N times more
random examples (``-s`` prints the counts).
"""

from __future__ import annotations

import copy
import json
import os
import pickle
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core import disk
from core.disk import (
    JOURNAL_SUFFIX,
    LOCK_SUFFIX,
    InterruptedSetError,
    journal_of,
    read_input,
    write_files,
)
from core.write_path import UNREAD, Target, write

ROOT = Path(__file__).resolve().parent.parent
SOAK = int(os.environ.get("WRITE_PATH_SOAK", "0") or 0)
STATS: dict[str, int] = {}
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and links")


def count(key: str, n: int = 1) -> None:
    STATS[key] = STATS.get(key, 0) + n


@pytest.fixture(scope="module", autouse=True)
def figures():
    yield
    if STATS:
        print("\nwrite path attack:", ", ".join(f"{k} {v}" for k, v in sorted(STATS.items())))


# ------------------------------------------------------------------------------------------------ the stepper
STEPPER = r'''
"""Runs core.disk alone (no numpy, fast to start) with every filesystem step under the watched folders counted;
at the step chosen, before or after it, sends the process SIGKILL, SIGTERM or SIGINT, or pauses."""
import json, os, signal, sys, tempfile, time, types

config = json.loads(open(sys.argv[1]).read())
package = types.ModuleType("core")
package.__path__ = [os.path.join(config["root"], "core")]
sys.modules["core"] = package
signal.signal(signal.SIGINT, signal.default_int_handler)
from core import disk  # noqa: E402

for name, value in config.get("set", {}).items():
    setattr(disk, name, value)
watch = [os.path.realpath(p) for p in config["watch"]]
state = {"n": 0, "armed": None, "log": []}


def watched(path):
    try:
        text = os.fsdecode(os.fspath(path))
    except TypeError:
        return False
    folder = os.path.realpath(os.path.dirname(text))
    return any(folder == w or folder.startswith(w + os.sep) for w in watch)


def act(action):
    if action == "pause":
        time.sleep(config.get("pause", 0.3))
        return
    os.kill(os.getpid(), {"kill": signal.SIGKILL, "term": signal.SIGTERM, "int": signal.SIGINT}[action])


def wrap(module, attr, path_of):
    original = getattr(module, attr)

    def wrapper(*args, **kwargs):
        armed, path = state["armed"], path_of(args, kwargs)
        if not watched(path):
            return original(*args, **kwargs)
        state["n"] += 1
        n = state["n"]
        state["log"].append([attr, os.path.basename(os.fsdecode(os.fspath(path)))])
        if armed and armed[0] == n and armed[1] == "before":
            act(armed[2])
        try:
            return original(*args, **kwargs)
        finally:  # after the step, whether it succeeded or failed
            if armed and armed[0] == n and armed[1] == "after":
                act(armed[2])

    setattr(module, attr, wrapper)


for attr in ("replace", "rename", "link", "unlink", "remove", "mkdir", "rmdir", "chmod", "utime"):
    wrap(os, attr, lambda args, kwargs: args[0] if args else kwargs.get("src", kwargs.get("path")))
wrap(tempfile, "mkstemp", lambda args, kwargs: os.path.join(kwargs.get("dir") or "", "mkstemp"))


def job(spec, files):
    if spec.get("op") == "read":
        disk.read_input(files[0][0])
    else:
        disk.write_files(files)


def run(spec, files):
    """One job in a child process of its own (forked: this process stays clean for the next); its outcome."""
    report = config["out"] + ".job"
    pid = os.fork()
    if pid == 0:
        state["n"], state["armed"], state["log"] = 0, spec.get("at"), []
        outcome = "done"
        try:
            job(spec, files)
        except KeyboardInterrupt:
            outcome = "KeyboardInterrupt"
        except SystemExit as exc:
            outcome = f"SystemExit {exc.code}"
        except OSError as exc:
            outcome = f"{type(exc).__name__}: {exc}"
        state["armed"] = None
        with open(report, "w") as handle:
            json.dump({"outcome": outcome, "steps": state["log"]}, handle)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return {"outcome": f"signal {os.WTERMSIG(status)}", "steps": []}
    with open(report) as handle:
        return json.load(handle)


results = []
for trial in config["trials"]:
    files = [(p, d.encode("latin-1")) for p, d in trial["files"]]
    results.append([run(spec, files) for spec in trial.get("jobs", [{"at": trial.get("at")}])])
with open(config["out"], "w") as handle:
    json.dump(results, handle)
'''


def stepper(tmp: Path, watch: list[Path], trials: list[dict], timeout: float = 60, **extra) -> tuple[int, list]:
    """Run ``trials`` in one stepper process; its return code and each trial's result (none when killed)."""
    script = tmp / "stepper.py"
    if not script.exists():
        script.write_text(STEPPER)
    out = tmp / f"out-{time.monotonic_ns()}.json"
    config = {"root": str(ROOT), "watch": [str(w) for w in watch], "trials": trials, "out": str(out), **extra}
    (tmp / "config.json").write_text(json.dumps(config))
    process = subprocess.run([sys.executable, str(script), str(tmp / "config.json")], capture_output=True,
                             timeout=timeout)
    assert b"Traceback" not in process.stderr, process.stderr.decode(errors="replace")
    results = json.loads(out.read_text()) if out.exists() else []
    return process.returncode, results


OURS = (".tmp", JOURNAL_SUFFIX, LOCK_SUFFIX)


def ours_left(folder: Path) -> list[str]:
    return sorted(n for n in os.listdir(folder) if n.startswith(".") and any(s in n for s in OURS))


class Scene:
    """Two folders: ``a`` (exists) and ``b`` (new) in one, ``c`` (exists) in the other, written through a
    symbolic link ``link`` beside ``a``: one set across two folders."""

    def __init__(self, root: Path, names: tuple[str, str, str, str] = ("a.msh", "b.wea", "c.rlb", "link.rlb")):
        self.one, self.two = root / "one", root / "two"
        self.one.mkdir(parents=True)
        self.two.mkdir()
        a, b, c, link = names
        self.a, self.b, self.c, self.link = self.one / a, self.one / b, self.two / c, self.one / link
        self.a.write_bytes(b"old a")
        self.c.write_bytes(b"old c")
        self.link.symlink_to(os.path.join("..", "two", c))
        self.paths = [self.a, self.b, self.link]
        self.real = [self.a, self.b, self.c]
        self.old = [b"old a", None, b"old c"]
        self.new = [b"new a " * 3, b"new b", b"new c " * 2]
        self.names = {self.one: sorted([a, b, link]), self.two: [c]}

    def files(self) -> list[tuple[str, bytes]]:
        return [(str(p), d) for p, d in zip(self.paths, self.new, strict=True)]

    def trial(self, at: list | None = None) -> dict:
        return {"files": [(p, d.decode("latin-1")) for p, d in self.files()], "at": at}

    def raw(self) -> list[bytes | None]:
        return [p.read_bytes() if p.exists() else None for p in self.real]

    def read(self) -> list[bytes | None]:
        """Each file as read_input reads it (which puts a half-written set back first)."""
        out = []
        for path in self.real:
            try:
                out.append(read_input(path))
            except FileNotFoundError:
                out.append(None)
        return out

    def whole(self, contents: list) -> str:
        assert contents in (self.old, self.new), contents
        return "old" if contents == self.old else "new"


def trace_steps(tmp: Path, make, jobs: list | None = None) -> list:
    """The steps the last of ``jobs`` (a clean write by default) takes, numbered as the stepper counts them."""
    scene = make(tmp / f"trace{time.monotonic_ns()}")
    code, results = stepper(tmp, [scene.one, scene.two], [{**scene.trial(), "jobs": jobs or [{}]}])
    assert code == 0 and results[0][-1]["outcome"] == "done", results
    return results[0][-1]["steps"]


def points(steps: list, repeat: int = 1) -> list[tuple[int, str]]:
    return [(n, when) for n in range(1, len(steps) + 1) for when in ("before", "after")] * repeat


def test_a_set_killed_at_every_filesystem_step_is_old_or_new_and_tidied_by_the_next_write(tmp_path, monkeypatch):
    steps = trace_steps(tmp_path, Scene)
    assert len(steps) > 30, steps
    kills = points(steps, 1 + SOAK)
    scenes = [Scene(tmp_path / f"kill{i}") for i in range(len(kills))]
    code, results = stepper(tmp_path, [tmp_path], [s.trial([n, when, "kill"]) for s, (n, when) in
                                                   zip(scenes, kills, strict=True)], timeout=600)
    assert code == 0
    outcomes = {"old": 0, "new": 0}
    for scene, (n, when), result in zip(scenes, kills, results, strict=True):
        where = (n, when, steps[n - 1])
        assert result[0]["outcome"] == f"signal {signal.SIGKILL}", where
        for folder in (scene.one, scene.two):  # nothing but ours beside the files
            assert set(os.listdir(folder)) - set(ours_left(folder)) <= set(scene.names[folder]), where
        outcomes[scene.whole(scene.read())] += 1
        monkeypatch.setattr(disk, "ORPHAN_AGE", -1.0)  # as if the killed writer's temporaries had aged
        write_files(scene.files())
        monkeypatch.undo()
        assert scene.raw() == scene.new
        assert ours_left(scene.one) == ours_left(scene.two) == [], where
    count("kills at a step of a write", len(kills))
    count("kills leaving the set old", outcomes["old"])
    assert outcomes["old"] and outcomes["new"]


@pytest.mark.parametrize("action", ["term", "int"])
def test_sigterm_or_ctrl_c_at_every_step_leaves_a_whole_set_and_nothing_beside_it(tmp_path, action):
    steps = trace_steps(tmp_path, Scene)
    stops = points(steps, 1 + SOAK)
    scenes = [Scene(tmp_path / f"{action}{i}") for i in range(len(stops))]
    trials = [s.trial([n, when, action]) for s, (n, when) in zip(scenes, stops, strict=True)]
    code, results = stepper(tmp_path, [tmp_path], trials, timeout=600)
    assert code == 0 and len(results) == len(trials)
    expected = "SystemExit 143" if action == "term" else "KeyboardInterrupt"
    for scene, (n, when), result in zip(scenes, stops, results, strict=True):
        where = (n, when, steps[n - 1], result[0]["outcome"])
        assert result[0]["outcome"] == expected, where
        assert scene.whole(scene.raw()) and ours_left(scene.one) == ours_left(scene.two) == [], where
        assert set(os.listdir(scene.one)) <= set(scene.names[scene.one]), where
    count(f"{action} at a step of a write", len(trials))


def first_replacement(steps: list) -> int:
    return next(i for i, (op, name) in enumerate(steps, 1) if op == "replace" and name.endswith(".tmp")
                and not name.endswith((".journal.tmp", ".old.tmp")))


def test_a_recovery_killed_at_every_step_is_finished_by_the_next_read(tmp_path):
    """A writer killed after its first replacement; the read that puts the set back killed at each of its own
    steps: the next read still gives every file as it was (a backup already moved back is no "change since")."""
    killed = {"at": [first_replacement(trace_steps(tmp_path, Scene)), "after", "kill"]}
    steps = trace_steps(tmp_path, Scene, [killed, {"op": "read"}])
    assert len(steps) > 8, steps
    stops = points(steps, 1 + SOAK)
    scenes = [Scene(tmp_path / f"r{i}") for i in range(len(stops))]
    trials = [{**s.trial(), "jobs": [killed, {"op": "read", "at": [n, when, "kill"]}]}
              for s, (n, when) in zip(scenes, stops, strict=True)]
    code, results = stepper(tmp_path, [tmp_path], trials, timeout=600)
    assert code == 0
    for scene, (n, when), result in zip(scenes, stops, results, strict=True):
        assert [r["outcome"] for r in result] == [f"signal {signal.SIGKILL}"] * 2
        assert scene.read() == scene.old, (n, when, steps[n - 1])
        assert not [n for n in ours_left(scene.one) + ours_left(scene.two) if JOURNAL_SUFFIX in n]
    count("kills at a step of a recovery", len(stops))


# ------------------------------------------------------------------------------------------------ hostile journals
@pytest.mark.parametrize("journal", [b"", b"{", b"garbage \xff", b"[]", b'{"files": 5}', b'{"files": [1]}',
                                     b'{"files": [{"target": "/x"}]}', "elsewhere", "temporary outside"])
def test_a_journal_no_writer_of_ours_left_is_an_error_naming_the_file_and_nothing_is_touched(tmp_path, journal):
    own, other = tmp_path / "own", tmp_path / "other"
    own.mkdir()
    other.mkdir()
    target, victim = own / "a.msh", other / "b.msh"
    target.write_bytes(b"mine")
    victim.write_bytes(b"someone else's")
    if journal == "elsewhere":  # names only a file in another folder, with that file's identity as "new"
        info = victim.stat()
        journal = json.dumps({"version": 2, "files": [{"target": str(victim), "backup": None, "temporary":
                              str(other / ".b.msh.abcdefgh.tmp"), "new": [info.st_ino, info.st_size,
                                                                         info.st_mtime_ns], "old": None}]}).encode()
    elif journal == "temporary outside":  # names the victim as its own file's temporary, to be removed
        journal = json.dumps({"version": 2, "files": [{"target": str(target), "backup": None,
                              "temporary": str(victim), "new": [1, 2, 3], "old": None}]}).encode()
    journal_of(target).write_bytes(journal)
    with pytest.raises(InterruptedSetError) as caught:
        read_input(target)
    assert caught.value.filename == str(target) and JOURNAL_SUFFIX in str(caught.value)
    assert target.read_bytes() == b"mine" and victim.read_bytes() == b"someone else's"
    assert sorted(os.listdir(other)) == ["b.msh"]  # no lock, no removal there
    assert sorted(os.listdir(own)) == sorted(["a.msh", journal_of(target).name])


def test_unread_stays_unread_when_a_target_is_pickled_or_copied(tmp_path):


    path = tmp_path / "a.wea"
    path.write_bytes(b"there")
    target = pickle.loads(pickle.dumps(Target(str(path), b"new", owned=True)))
    assert target.read is UNREAD and copy.deepcopy(target).read is UNREAD
    assert write([target]).written == [str(path)] and path.read_bytes() == b"new"
