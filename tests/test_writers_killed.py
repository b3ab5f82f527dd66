"""Writers killed (SIGKILL) at any moment: every file they write is always its old bytes or its complete new bytes
(never partial, never missing), nothing they leave behind trips a later run or hides the user's file, and a later
write succeeds, taking over the lock the killed process left (at most LOCK_STALE later, whatever step of taking,
breaking or releasing a lock it was killed at). Also: a read-only target, a read-only folder, a target replaced
between the read and the write (an export's, ``rewrite`` in place, the library's catalogue file), two writers at
once with one killed or paused as it breaks a stale lock.

core.disk's lock of NAME: a writer makes its own folder ``.NAME.io_msh-lock.owner.HEX`` holding one file
``owner.HEX`` and renames it onto ``.NAME.io_msh-lock`` (which fails while a lock holding a file is there); a lock
whose file is older than LOCK_STALE is broken by renaming that file to ``claim.HEX`` in it (one claimer wins),
unlinking the claim and removing the empty folder; released by unlinking its file and removing the folder. A kill
may leave a writer's own folder (for good: harmless) and a lock (empty, or holding an owner's or a claimer's file).

The real entry points run as subprocesses: ``python -m core rewrite|extract|texture`` and the batch tool
(``export --into-source``, ``import -o``, ``library``). Two kinds of kills:

- at a filesystem step: a ``sitecustomize`` put on the subprocesses' PYTHONPATH (``INJECTOR``) sees every
  ``os.replace/rename/link/unlink/mkdir/rmdir/chmod/utime`` and ``tempfile.mkstemp/mkdtemp`` under the watched
  folders (lock folders' files included) and SIGKILLs its own process before the step chosen (or pauses there,
  or puts another file in place of the target there): every step of a transaction, one trial each;
- at a random moment, SIGKILL to the run (the batch's parent, its Blender workers, or both): half the time after
  a delay anywhere in the whole run (measured first), half the time within the few ms of its writes (from its
  first filesystem step there, as the injector reports it).

The suite runs a fixed, seeded budget (about a minute on a quiet 2-core machine). ``IO_MSH_KILL_SOAK=N`` runs
every kill point of every transaction N times and many more random kills (``IO_MSH_KILL_SEED`` picks the moments;
a soak without it takes a new seed, printed with the counts of where the kills landed: ``-s``). Trials run one
after the other over what the last left; before each, a lock left by a killed writer is aged by 30 s (its file's
mtime, as if that time had passed); ``test_a_lock_left_by_a_killed_writer_is_taken_over`` waits the
real 30 s, in the background while the other tests run.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from fixtures import generated, non_canonical, static_model

from core.authoring.synth import sample_libraries
from core.container.nres import MODEL_TYPE_ID, Archive
from core.disk import JOURNAL_SUFFIX, LOCK_STALE, LOCK_SUFFIX, read_input

ROOT = Path(__file__).resolve().parent.parent
BATCH = ROOT / "io_msh" / "batch" / "__main__.py"
SOAK = int(os.environ.get("IO_MSH_KILL_SOAK", "0") or 0)
SEED = int(os.environ.get("IO_MSH_KILL_SEED") or (time.time_ns() % 2**32 if SOAK else 20240611))
WEAR_TYPE = int.from_bytes(b"WEAR", "little")
READ_SUFFIXES = {".msh", ".rlb", ".lib", ".wea", ".ctl", ".dat", ".cpt", ".ndp", ".map", ".tma", ".blend", ".png",
                 ".glb", ".fbx", ".txt", ".json"}
# core.disk's temporaries, backups and journals' temporaries
TEMPORARY = re.compile(r"^\.(?P<target>.+)\.[a-z0-9_]{8}(\.old|\.journal)?\.tmp$")
# core.disk's journal beside each file of a set while it is replaced (a kill between two replacements leaves it
# for the next read or write of any of the set's files, which puts the set back whole)
JOURNAL = re.compile(rf"^\.(?P<target>.+){re.escape(JOURNAL_SUFFIX)}$")
# core.disk's lock of a file (a folder holding its writer's file) and a writer's own folder it moves into place
LOCKS = re.compile(rf"^\.(?P<target>.+){re.escape(LOCK_SUFFIX)}(?P<own>\.owner\.(?P<token>[0-9a-f]{{32}}))?$")
LOCK = ".units.rlb" + LOCK_SUFFIX
OWN = LOCK + ".owner.*"  # (generic name) the folder a writer makes, then moves onto LOCK to take it
STATS: dict[str, int] = {}
pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="finds a run's processes through /proc")

INJECTOR = r'''
"""sitecustomize of tests/test_writers_killed.py: when IO_MSH_KILLTEST holds a JSON configuration, every filesystem
step of this process under the watched folders is counted as (op, name, nth), temporary and lock names made generic
(``.x.io_msh-lock.owner.*``, ``.x.io_msh-lock/claim.*``: a file in a lock folder is named with its folder); a step
can SIGKILL the process (once per run when "once" names a marker file), pause it until a file exists, or have
another file put in place of a target first. "role": "worker" (the batch's Blender workers), "parent" or "any".
"set": {"core.disk.LOCK_WAIT": 2}: module attributes set as the module is imported (under any package)."""
import json
import os
import re
import signal
import sys
import tempfile
import time


def _install(config):
    watch = [os.path.realpath(p) for p in config.get("watch", ())]
    role, log, kill, once = config.get("role", "any"), config.get("log"), config.get("kill"), config.get("once")
    pauses, swap = config.get("pauses", ()), config.get("swap")
    seen = {}
    real_open, real_replace = os.open, os.replace

    def name_of(path):
        try:
            text = os.fsdecode(os.fspath(path))
        except TypeError:
            return None
        if not os.path.isabs(text):
            return None
        folder = os.path.realpath(os.path.dirname(text))
        if not any(folder == w or folder.startswith(w + os.sep) for w in watch):
            return None
        name = generic(os.path.basename(text))
        if re.search(r"\.io_msh-lock(\.owner\.[0-9a-f]{32})?$", folder):  # a file in a lock: the lock's too
            return generic(os.path.basename(folder)) + "/" + name
        return name

    def generic(name):
        name = re.sub(r"\.[a-z0-9_]{8}(\.old|\.journal)?\.tmp$", r".*\1.tmp", name)
        name = re.sub(r"^(.*\.io_msh-lock\.)?(owner|claim)\.[0-9a-f]{32}$", r"\1\2.*", name)
        return re.sub(r"^\.io_msh_stage\.\d+\.", ".io_msh_stage.*.", name)

    def step(op, path):
        if role != "any" and (role == "worker") != ("--worker" in sys.argv):
            return
        name = name_of(path)
        if name is None:
            return
        seen[op, name] = nth = seen.get((op, name), 0) + 1
        if log:
            fd = real_open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            os.write(fd, json.dumps([os.getpid(), op, name, nth, time.time()]).encode() + b"\n")
            os.close(fd)
        for rule in pauses:
            if [rule["op"], rule["name"], rule.get("nth", 1)] == [op, name, nth]:
                os.close(real_open(rule["mark"], os.O_WRONLY | os.O_CREAT, 0o644))
                deadline = time.monotonic() + rule.get("timeout", 30)
                while not os.path.exists(rule["go"]) and time.monotonic() < deadline:
                    time.sleep(0.005)
        if swap and [swap["op"], swap["name"]] == [op, name] and nth <= len(swap["sources"]):
            with open(swap["sources"][nth - 1], "rb") as handle:
                data = handle.read()
            with open(swap["target"] + ".swap", "wb") as handle:
                handle.write(data)
            real_replace(swap["target"] + ".swap", swap["target"])
        if kill and [kill["op"], kill["name"], kill.get("nth", 1)] == [op, name, nth]:
            if once:
                try:
                    os.close(real_open(once, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
                except FileExistsError:
                    return
            os.kill(os.getpid(), signal.SIGKILL)

    def wrap(module, attr, path_of):
        original = getattr(module, attr)

        def wrapper(*args, **kwargs):
            step(attr, path_of(args, kwargs))
            return original(*args, **kwargs)

        setattr(module, attr, wrapper)

    for attr in ("replace", "rename", "link", "unlink", "remove", "mkdir", "rmdir", "chmod", "utime"):
        wrap(os, attr, lambda args, kwargs: args[0] if args else None)
    for attr in ("mkstemp", "mkdtemp"):
        wrap(tempfile, attr, lambda args, kwargs: os.path.join(
            kwargs.get("dir") or "", f"{kwargs.get('prefix') or ''}*{kwargs.get('suffix') or ''}"))


class _Setter:
    def __init__(self, values):
        self.values = values

    def find_spec(self, name, path, target=None):
        wanted = {key.rsplit(".", 1)[1]: value for key, value in self.values.items()
                  if name == key.rsplit(".", 1)[0] or name.endswith("." + key.rsplit(".", 1)[0])}
        if not wanted:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                run = spec.loader.exec_module

                def exec_module(module):
                    run(module)
                    for attr, value in wanted.items():
                        setattr(module, attr, value)

                spec.loader.exec_module = exec_module
                return spec
        return None


if os.environ.get("IO_MSH_KILLTEST"):
    _config = json.loads(os.environ["IO_MSH_KILLTEST"])
    _install(_config)
    if _config.get("set"):
        sys.meta_path.insert(0, _Setter(_config["set"]))
'''


# ------------------------------------------------------------------------------------------------- processes
@dataclass
class Outcome:
    code: int | None
    out: str
    err: str
    seconds: float
    killed: list[str] = field(default_factory=list)  # what the test killed: "parent", "worker"

    @property
    def text(self) -> str:
        return self.out + self.err


class Kit:
    """Runs the entry points as subprocesses, each run tagged (an environment variable) so that every process of it,
    its workers included once their parent is gone, can be found, killed and waited for."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.injector = root / "injector"
        self.injector.mkdir(parents=True)
        (self.injector / "sitecustomize.py").write_text(INJECTOR)
        self.temp = root / "system-temp"  # the runs' TMPDIR: a killed batch leaves its run folders there
        self.temp.mkdir()
        self.logs = root / "logs"
        self.logs.mkdir()

    def env(self, tag: str, config: dict | None) -> dict:
        env = {k: v for k, v in os.environ.items() if k != "IO_MSH_KILLTEST"}
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(self.injector), os.environ.get("PYTHONPATH")) if p)
        env["TMPDIR"] = str(self.temp)
        env["IO_MSH_KILLTEST_TAG"] = tag
        if config:
            env["IO_MSH_KILLTEST"] = json.dumps(config)
        return env

    def start(self, args: list, config: dict | None = None) -> Started:
        tag = uuid.uuid4().hex
        out, err = self.logs / f"{tag}.out", self.logs / f"{tag}.err"
        with open(out, "wb") as stdout, open(err, "wb") as stderr:
            popen = subprocess.Popen([str(a) for a in args], cwd=ROOT, env=self.env(tag, config),
                                     stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr)
        return Started(popen, tag, out, err, time.perf_counter(), time.time(), config)

    def run(self, args: list, config: dict | None = None, timeout: float = 300) -> Outcome:
        outcome = self.start(args, config).finish(timeout)
        require("Traceback" not in outcome.text, outcome.text)
        return outcome

    def run_killed(self, args: list, moment: Moment, victim: str) -> Outcome:
        """The run, SIGKILL to its ``victim`` at ``moment``: "parent", "worker" (every Blender worker alive) or
        "all"; then every process of the run is waited for (workers go on with their item without a parent)."""
        config = None
        if moment.watch is not None:  # the moment counts from the run's first step there (its write began)
            log = self.logs / f"moment-{uuid.uuid4().hex}.jsonl"
            config = watching(moment.watch, role=moment.role, log=str(log))
        started = self.start(args, config)
        killed = []
        if moment.watch is not None:
            while started.popen.poll() is None and not _logged(log, moment.after):
                time.sleep(0.0005)
        # Who to kill is looked up before a short delay (the look-up takes ms), after a long one (new workers).
        victims = processes(started.tag) if moment.delay < 0.05 else None
        time.sleep(moment.delay)  # (Popen.wait's own polling would be up to 50 ms late)
        if started.popen.poll() is None:
            for pid, worker in processes(started.tag) if victims is None else victims:
                if victim == "all" or (victim == "worker") == worker:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                        killed.append("worker" if worker else "parent")
        if killed:
            count("kills in all: at a random moment")
        outcome = started.finish(300)
        outcome.killed = killed
        if not killed:
            require("Traceback" not in outcome.text, outcome.text)
        return outcome


@dataclass
class Moment:
    """When to kill a run: ``delay`` s after it started, or after its first filesystem step under ``watch`` (by a
    process of ``role``; the first ``after`` = [op, name] step if given)."""

    delay: float
    watch: Path | None = None
    role: str = "any"
    after: list | None = None


def _logged(log: Path, after: list | None) -> bool:
    try:
        text = log.read_text()
    except FileNotFoundError:
        return False
    if after is None:
        return bool(text)
    for line in text.splitlines():
        with contextlib.suppress(ValueError):  # a line being written
            if json.loads(line)[1:3] == after:
                return True
    return False


@dataclass
class Started:
    popen: subprocess.Popen
    tag: str
    out: Path
    err: Path
    began: float
    wall: float
    config: dict | None = None

    def finish(self, timeout: float) -> Outcome:
        try:
            code = self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            self.stop()
            pytest.fail(f"{self.popen.args} did not end in {timeout} s")
        seconds = time.perf_counter() - self.began
        lingering = wait_gone(self.tag, 120)
        require(not lingering, f"processes of a killed run still alive after 120 s: {lingering}")
        if self.config and self.config.get("once") and os.path.exists(self.config["once"]):
            count("kills in all: at a chosen step")
        return Outcome(code, self.out.read_text(errors="replace"), self.err.read_text(errors="replace"), seconds)

    def stop(self) -> None:
        for pid, _ in processes(self.tag):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.popen.wait()
        wait_gone(self.tag, 30)


def processes(tag: str) -> list[tuple[int, bool]]:
    """(pid, is a batch worker) of every live process of the run tagged ``tag``."""
    needle = f"IO_MSH_KILLTEST_TAG={tag}\0".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                if handle.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X"):
                    continue
            with open(f"/proc/{entry}/environ", "rb") as handle:
                environment = b"\0" + handle.read()
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                worker = b"\0--worker" in handle.read()
        except (OSError, IndexError):
            continue
        if b"\0" + needle in environment:
            found.append((int(entry), worker))
    return found


def wait_gone(tag: str, timeout: float) -> list[int]:
    deadline = time.monotonic() + timeout
    while (alive := processes(tag)) and time.monotonic() < deadline:
        time.sleep(0.02)
    for pid, _ in alive:  # the test's own processes: not left running whatever happens
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return [pid for pid, _ in alive]


def core(*args) -> list:
    return [sys.executable, "-m", "core", *args]


def batch(*args) -> list:
    # The sources are set to OLD (as another program would) before an export writes the .blend's models (NEW)
    # over them: what Replace Changed Files allows (the export refuses it otherwise).
    replace = ("--replace-changed",) if "--into-source" in args else ()
    return [sys.executable, str(BATCH), *args, *replace]


def watching(*folders: Path, **config) -> dict:
    return {"watch": [str(f) for f in folders], **config}


@dataclass
class Trace:
    """The filesystem steps a clean run takes under a folder, (op, generic name, nth) each, and when (seconds
    after the run started) the first and the last were taken: the window its writes take."""

    steps: list[tuple[str, str, int]]
    times: list[float]
    window: tuple[float, float]
    outcome: Outcome


def trace(kit: Kit, args: list, folder: Path, role: str = "any") -> Trace:
    log = kit.logs / f"trace-{uuid.uuid4().hex}.jsonl"
    started = kit.start(args, watching(folder, role=role, log=str(log)))
    outcome = started.finish(300)
    require("Traceback" not in outcome.text, outcome.text)
    lines = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    times = [line[4] - started.wall for line in lines]
    return Trace([tuple(line[1:4]) for line in lines], times, (min(times or [0]), max(times or [0])), outcome)


def moment(rng: random.Random, traced: Trace, folder: Path, role: str = "any", after: list | None = None) -> Moment:
    """A random moment to kill a run like ``traced``: half the time anywhere in its whole run, half the time while
    it writes: from its first step under ``folder`` (or its first ``after`` step there) to a little past its last,
    a few ms out of the run, which delays from its start alone would seldom hit (the start-up time varies by more
    than that)."""
    if rng.random() < 0.5:
        return Moment(rng.uniform(0, 1.1 * traced.outcome.seconds))
    start = traced.window[0]
    if after is not None:  # a step the traced run may not take (an update's, where it built the library): 2 ms
        start = next((t for step, t in zip(traced.steps, traced.times) if list(step[:2]) == after),
                     traced.window[1] - 0.002)
    return Moment(rng.uniform(0, 1.2 * (traced.window[1] - start) + 0.002), folder, role, after)


def kill_rule(kit: Kit, folder: Path, step: tuple[str, str, int], role: str = "any") -> dict:
    op, name, nth = step
    once = kit.logs / f"once-{uuid.uuid4().hex}"
    return watching(folder, role=role, kill={"op": op, "name": name, "nth": nth}, once=str(once))


def require(condition, message: object = "") -> None:
    """A check of the test's own set-up (pytest.fail, not AssertionError: AssertionError is kept for the product's
    behaviour, so that a strict xfail, should a test need one, is not satisfied by a broken set-up)."""
    if not condition:
        pytest.fail(str(message) or "a precondition does not hold")


def count(key: str, n: int = 1) -> None:
    STATS[key] = STATS.get(key, 0) + n


# ------------------------------------------------------------------------------------------------- files
def put(path: Path, data: bytes, mode: int = 0o644) -> None:
    """``path`` given ``data`` as a new file (a hard link another name holds keeps its old contents)."""
    temporary = path.with_name(path.name + ".put")
    temporary.write_bytes(data)
    os.chmod(temporary, mode)
    os.replace(temporary, path)


def version(path: Path, versions: dict[str, bytes]) -> str:
    """Which of ``versions`` the file holds; fails when it is missing, partial or anything else."""
    require(path.is_file() and not path.is_symlink(), f"{path} is missing")
    return version_of_bytes(path.read_bytes(), versions)


def killed_at_every_step(kit: Kit, args: list, target: Path, folder: Path) -> None:
    """A command writing ``target`` in ``folder`` (as it holds it now), killed before each filesystem step of its
    write in turn: ``target`` is its old or its new bytes each time, nothing stray is left, and a run after the
    kills writes the new bytes."""
    old = target.read_bytes()
    expected = {p.name for p in folder.iterdir()}
    traced = trace(kit, args, folder)
    assert traced.outcome.code == 0, traced.outcome.text
    new = target.read_bytes()
    assert new != old and [op for op, _, _ in traced.steps].count("replace") == 1, traced.steps
    for step in traced.steps:
        put(target, old)
        age_locks(folder)
        killed = kit.run(args, kill_rule(kit, folder, step))
        assert killed.code == -signal.SIGKILL, (step, killed.text)
        version(target, {"old": old, "new": new})
        strays(folder, expected)
    put(target, old)
    age_locks(folder)
    again = kit.run(args)
    assert again.code == 0, again.text
    assert version(target, {"new": new}) == "new"
    strays(folder, expected)


def complete_blend(data: bytes) -> bool:
    """A whole .blend: one that ends with its ENDB block (inside the zstd frames when compressed)."""
    if data[:4] == b"\x28\xb5\x2f\xfd":
        try:
            import zstandard
        except ImportError:
            return data.endswith(b"\xb1\xea\x92\x8f")  # the seek table Blender writes last
        try:
            data = zstandard.ZstdDecompressor().decompressobj(read_across_frames=True).decompress(data)
        except zstandard.ZstdError:
            return False
    return data[:7] == b"BLENDER" and b"ENDB" in data[-64:]


def is_lock_leftover(path: Path) -> bool:
    """A lock of core.disk (``.NAME.io_msh-lock``: empty, or holding its writer's file ``owner.HEX`` or a
    claimer's ``claim.HEX``) or a writer's own folder (``.NAME.io_msh-lock.owner.HEX``: empty, or holding
    ``owner.HEX``, the same HEX), as a killed writer leaves them."""
    lock = LOCKS.match(path.name)
    if not lock or not path.is_dir() or path.is_symlink():
        return False
    inside = list(path.iterdir())
    if lock.group("own"):
        allowed = re.compile(rf"^owner\.{lock.group('token')}$")
    else:
        allowed = re.compile(r"^(owner|claim)\.[0-9a-f]{32}$")
    return len(inside) <= 1 and all(allowed.match(p.name) and p.is_file() for p in inside)


def strays(folder: Path, expected: set[str]) -> list[Path]:
    """What a writer left in ``folder`` besides ``expected``: only core.disk's temporaries and backups
    (``.NAME.xxxxxxxx[.old].tmp``), locks and writers' own lock folders (``is_lock_leftover``), each of a file
    of the folder, none with a suffix a tool reads or the name of a user's file in any case. Returns them."""
    found = [p for p in folder.iterdir() if p.name not in expected]
    names = {n.lower() for n in expected}
    for path in found:
        match = TEMPORARY.match(path.name) or JOURNAL.match(path.name)
        lock = LOCKS.match(path.name)
        inside = sorted(os.listdir(path)) if path.is_dir() else "a file"
        require((match and path.is_file()) or is_lock_leftover(path),
                f"{path} left ({inside}): neither a temporary nor a lock of core.disk")
        of = (match or lock).group("target")
        require(of in expected, f"{path} left, of no file of the folder")
        require(path.name.lower() not in names and path.suffix.lower() not in READ_SUFFIXES, path)
    return found


def age_locks(folder: Path) -> int:
    """Locks left by killed writers made older than LOCK_STALE, as if that time had passed (a lock's age is its
    file's: its writer's, or a claimer's); how many locks there are."""
    then = time.time() - LOCK_STALE - 2
    locks = [p for p in folder.glob(f".*{LOCK_SUFFIX}") if p.is_dir()]
    for lock in locks:
        for held in lock.iterdir():
            os.utime(held, (then, then))
    return len(locks)


def entry(data: bytes, name: str) -> bytes:
    return bytes(Archive.parse(data).find(name).data)


def archive_bytes(entries: list[tuple[str, bytes, int]]) -> bytes:
    archive = Archive()
    for name, data, type_id in entries:
        archive.add(name, data, type_id)
    return archive.to_bytes()


def with_entries(data: bytes, replaced: dict[str, bytes]) -> bytes:
    """An archive's bytes with entries' payloads replaced, as an export writes models into it."""
    archive = Archive.parse(data)
    for name, payload in replaced.items():
        archive.find(name).data = payload
    return archive.to_bytes()


def fast_or_all(steps: list, wanted) -> list:
    """Every step (``SOAK`` times) in a soak; else the steps ``wanted(index, step, steps)`` picks."""
    if SOAK:
        return steps * SOAK
    return [s for i, s in enumerate(steps) if wanted(i, s, steps)]


def clear_strays(folder: Path) -> None:
    """The test's own clean-up of what earlier kills left (temporaries, backups, locks, writers' lock folders)."""
    for path in folder.iterdir():
        if TEMPORARY.match(path.name) and path.is_file():
            path.unlink()
        elif is_lock_leftover(path):
            for held in path.iterdir():
                held.unlink()
            path.rmdir()


def new_strays(before: list[Path], after: list[Path]) -> list[str]:
    return sorted({p.name for p in after} - {p.name for p in before})


# ------------------------------------------------------------------------------------------------- fixtures
BLENDS_SCRIPT = """
import json, os, sys, tempfile
os.environ.setdefault("BLENDER_USER_RESOURCES", tempfile.mkdtemp())
sys.path[:0] = [sys.argv[1], os.path.join(sys.argv[1], "tests")]
import bpy
from fixtures import load_extension
extension = load_extension()
extension.register()
for blend, imports in json.loads(sys.argv[2]):
    for kind in ("objects", "meshes", "materials", "armatures", "actions", "collections", "images"):
        bpy.data.batch_remove(list(getattr(bpy.data, kind)))
    for path, models in imports:
        assert bpy.ops.import_scene.parkan_msh(filepath=path, entry_filter=models) == {"FINISHED"}, path
    bpy.ops.wm.save_as_mainfile(filepath=blend, copy=True)
extension.unregister()
sys.stdout.flush()
os._exit(0)
"""


def make_blends(kit: Kit, blends: dict[Path, list[tuple[Path, str]]]) -> None:
    """.blend files, each of the models it imports ((file, the import's *Models* patterns) each), as File >
    Import > Parkan MSH makes them (in one Blender process)."""
    specs = [[str(blend), [[str(path), models] for path, models in imports]] for blend, imports in blends.items()]
    for blend in blends:
        blend.parent.mkdir(parents=True, exist_ok=True)
    made = subprocess.run([sys.executable, "-c", BLENDS_SCRIPT, str(ROOT), json.dumps(specs)], capture_output=True,
                          text=True, timeout=300, cwd=ROOT, env=kit.env(uuid.uuid4().hex, None))
    require(made.returncode == 0, made.stdout + made.stderr)
    require(all(blend.is_file() for blend in blends))


TANK_WEAR = b"3\r\n0 SAMPLE_BODY\r\n1 SAMPLE_METAL\r\n2 SAMPLE_BODY\r\n"
SOURCES = ("a.msh", "a.wea", "units.rlb")


def units(tank: bytes, tower: bytes) -> bytes:
    return archive_bytes([("tank.msh", tank, MODEL_TYPE_ID), ("tower.msh", tower, MODEL_TYPE_ID),
                          ("tank.wea", TANK_WEAR, WEAR_TYPE)])


NEW_TANK, NEW_TOWER = generated(61, node_count=4, frame_count=10), static_model(3)
OLD_TANK, OLD_TOWER = generated(71, node_count=4, frame_count=10), static_model(4)
NEW = {"a.msh": generated(60, node_count=5, frame_count=12), "a.wea": b"2\r\n0 SAMPLE_BODY\r\n1 SAMPLE_METAL\r\n",
       "units.rlb": units(NEW_TANK, NEW_TOWER)}
OLD = {"a.msh": generated(70, node_count=3, frame_count=5), "a.wea": b"1\r\n0 GLASS\r\n",
       "units.rlb": units(OLD_TANK, OLD_TOWER)}


def write_game(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, library in sample_libraries().items():
        (folder / name).write_bytes(library.to_bytes())
    for name, data in NEW.items():
        (folder / name).write_bytes(data)


@dataclass
class Game:
    """Sources imported into .blend files (``blends``: units_tank.blend and units_tower.blend, one model each;
    multi.blend: tank, tower and a.msh, three files in one transaction), then set to ``OLD``: an export writes
    ``NEW`` back. ``multi``: the trace of the worker's steps in multi.blend's export."""

    folder: Path
    blends: Path
    multi: Trace | None

    @property
    def names(self) -> set[str]:
        return {p.name for p in self.folder.iterdir() if not TEMPORARY.match(p.name) and not LOCKS.match(p.name)}

    def reset(self, clear: bool = True) -> None:
        """Every source back to OLD (writable); what earlier kills left is removed unless ``clear`` is False."""
        for name in SOURCES:
            put(self.folder / name, OLD[name])
        if clear:
            clear_strays(self.folder)

    def versions(self, extra: dict[str, dict[str, bytes]] | None = None) -> dict[str, str]:
        """Which version each source holds: "old" or "new" (or one of ``extra``'s), as read (core.disk.read_input:
        a set a killed writer left half replaced is put back whole first)."""
        for name in SOURCES:
            read_input(self.folder / name)
        return {name: version(self.folder / name, {"old": OLD[name], "new": NEW[name], **(extra or {}).get(name, {})})
                for name in SOURCES}


def make_game(kit: Kit, folder: Path) -> Game:
    write_game(folder / "game")
    write_game(folder / "takeover")  # takeovers' own (its export runs in the background meanwhile)
    blends = folder / "blends"
    units, takeover = folder / "game" / "units.rlb", folder / "takeover" / "units.rlb"
    make_blends(kit, {blends / "units_tank.blend": [(units, "tank*")],
                      blends / "units_tower.blend": [(units, "tower*")],
                      blends / "multi.blend": [(units, ""), (folder / "game" / "a.msh", "")],
                      blends / "takeover_tank.blend": [(takeover, "tank*")]})
    game = Game(folder / "game", blends, None)
    game.reset()
    game.multi = trace(kit, batch("export", blends / "multi.blend", "--into-source"), game.folder, "worker")
    require(game.multi.outcome.code == 0, game.multi.outcome.text)
    require(set(game.versions().values()) == {"new"}, "the export writes NEW back (deterministic)")
    require(not strays(game.folder, game.names))
    return game


@pytest.fixture(scope="module")
def kit(tmp_path_factory):
    kit = Kit(tmp_path_factory.mktemp("killed"))
    yield kit
    if STATS:
        print(f"\nkills (seed {SEED}, soak {SOAK}): " + ", ".join(f"{k}: {v}" for k, v in sorted(STATS.items())))


@pytest.fixture(scope="module")
def game(kit, tmp_path_factory):
    return make_game(kit, tmp_path_factory.mktemp("sources"))


# ------------------------------------------------------------------------------------------------- core CLI
def cli_folder(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "units.rlb").write_bytes(NEW["units.rlb"])
    (folder / "Textures.lib").write_bytes(sample_libraries()["Textures.lib"].to_bytes())
    return folder


CLI_WRITERS = {  # the commands that write a file: (arguments, target, target's mode)
    "rewrite": (lambda d: core("rewrite", d / "units.rlb", d / "out.rlb"), "out.rlb", 0o644),
    "extract": (lambda d: core("extract", d / "units.rlb", "tank.msh", "-o", d / "out.msh"), "out.msh", 0o644),
    "texture": (lambda d: core("texture", d / "Textures.lib", "BODY.0", "-o", d / "out.png"), "out.png", 0o644),
    "rewrite --force over a read-only file": (
        lambda d: core("rewrite", d / "units.rlb", d / "out.rlb", "--force"), "out.rlb", 0o444),
}


def validate_summary(kit: Kit, folder: Path) -> str:
    """What ``core validate FOLDER`` finds there (a later run reading the folder)."""
    result = kit.run(core("validate", folder))
    return result.out.strip().splitlines()[-1]


@pytest.mark.parametrize("writer", list(CLI_WRITERS))
def test_cli_writer_killed_at_every_step(kit, tmp_path, writer):
    """Killed before a filesystem step of its write (every step for ``rewrite`` and in a soak: its temporary, the
    lock's own folder made, its file, moved into place, the release; else before it makes its lock's folder,
    before it moves it into place and before it replaces), one run after the other, each over what the last left
    (temporaries, writers' lock folders, a lock, aged): the target is its old bytes or the new ones, with its
    mode; a later run succeeds and ``validate`` of the folder finds what it found before."""
    arguments, name, mode = CLI_WRITERS[writer]
    folder = cli_folder(tmp_path / "cli")
    target, args = folder / name, arguments(folder)
    old = b"the user's old file " * 64
    put(target, old, mode)
    expected = {p.name for p in folder.iterdir()}
    traced = trace(kit, args, folder)
    steps, clean = traced.steps, traced.outcome
    assert clean.code == 0, clean.text
    new = target.read_bytes()
    assert new != old and stat.S_IMODE(target.stat().st_mode) == mode and not strays(folder, expected)
    assert [op for op, _, _ in steps].count("replace") == 1, steps
    before = validate_summary(kit, folder) if writer == "rewrite" else ""
    assert [s[:2] for s in steps if s[0] in ("mkdir", "rename")] == [("mkdir", f".{name}{LOCK_SUFFIX}.owner.*"),
                                                                     ("rename", f".{name}{LOCK_SUFFIX}.owner.*")]
    chosen = fast_or_all(steps, lambda i, s, all_: writer == "rewrite" or s[0] in ("mkdir", "rename", "replace"))
    for step in chosen:
        put(target, old, mode)
        age_locks(folder)
        killed = kit.run(args, kill_rule(kit, folder, step))
        assert killed.code == -signal.SIGKILL, (step, killed.text)  # it got to the step
        state = version(target, {"old": old, "new": new})
        assert stat.S_IMODE(target.stat().st_mode) == mode
        count(f"cli step kills ({state} after)")
        strays(folder, expected)
    put(target, old, mode)
    age_locks(folder)
    again = kit.run(args)
    assert again.code == 0, again.text
    assert version(target, {"new": new}) == "new" and stat.S_IMODE(target.stat().st_mode) == mode
    strays(folder, expected)
    if before:
        assert validate_summary(kit, folder) == before


def test_cli_writer_killed_after_random_delays(kit, tmp_path):
    """``rewrite`` of an 8 MB archive (its write takes a good part of its run) killed after random delays over the
    whole run: the output is its old bytes or the new ones, and a later run writes it."""
    rng = random.Random(SEED)
    folder = tmp_path / "big"
    folder.mkdir()
    source, target = folder / "big.rlb", folder / "out.rlb"
    source.write_bytes(archive_bytes([("tank.msh", NEW_TANK, MODEL_TYPE_ID),
                                      ("blob.bin", rng.randbytes(8 << 20), 0x424C4F42)]))
    old = archive_bytes([("blob.bin", rng.randbytes(8 << 20), 0x424C4F42)])
    put(target, old)
    expected = {"big.rlb", "out.rlb"}
    args = core("rewrite", source, target)
    clean = trace(kit, args, folder)
    assert clean.outcome.code == 0, clean.outcome.text
    new = target.read_bytes()
    landed: dict[str, int] = {}
    for _ in range(6 + 60 * SOAK):
        put(target, old)
        age_locks(folder)
        before = strays(folder, expected)
        outcome = kit.run_killed(args, moment(rng, clean, folder), "parent")
        state = version(target, {"old": old, "new": new})
        left = new_strays(before, strays(folder, expected))
        where = ("finished" if not outcome.killed else "after its replace" if state == "new" else
                 "holding the lock" if any(n.endswith(LOCK_SUFFIX) for n in left) else
                 "taking the lock" if any(LOCKS.match(n) for n in left) else
                 "writing its temporary" if left else "before writing")
        landed[where] = landed.get(where, 0) + 1
        count(f"cli random kills: {where}")
        for path in folder.iterdir():  # 8 MB each: the next trial starts from the lock alone
            if TEMPORARY.match(path.name):
                path.unlink()
    put(target, old)
    age_locks(folder)
    assert kit.run(args).code == 0 and version(target, {"new": new}) == "new"
    assert not [p for p in strays(folder, expected) if not LOCKS.match(p.name)]  # lock folders of killed runs
    assert landed.get("finished", 0) < sum(landed.values()), landed


# ------------------------------------------------------------------------------------------------- batch export
def export_failed_cleanly(outcome: Outcome) -> None:
    """A batch whose worker was killed: the item failed, named with the reason, and the run ended (exit 1)."""
    assert outcome.code == 1, outcome.text
    assert "ended unexpectedly" in outcome.out and "Traceback" not in outcome.text, outcome.text


def test_export_into_source_killed_at_every_step(kit, game):
    """``batch export multi.blend --into-source`` writes a.wea, a.msh and units.rlb (two models) as one
    transaction; its worker killed before a step (every step in a soak; else before it takes its first lock, before
    it replaces the second file, before its last step), each run over what the last left: read back, the files are
    all OLD or all NEW (a kill between two replacements leaves a journal, and the read puts the set back), the item
    fails with its reason, and a later export writes them all."""
    steps = game.multi.steps
    assert [op for op, name, _ in steps if ".journal." not in name].count("replace") == 3, steps
    args = batch("export", game.blends / "multi.blend", "--into-source")
    game.reset()
    names = game.names
    replaces = [i for i, s in enumerate(steps) if s[0] == "replace" and ".journal." not in s[1]]
    # the first lock, the second file, the end
    fast = {next(i for i, s in enumerate(steps) if s[0] == "mkdir"), replaces[1], len(steps) - 1}
    chosen = fast_or_all(steps, lambda i, s, all_: i in fast)
    for step in chosen:
        game.reset(clear=False)
        age_locks(game.folder)
        outcome = kit.run(args, kill_rule(kit, game.folder, step, role="worker"))
        export_failed_cleanly(outcome)
        states = game.versions()
        assert len(set(states.values())) == 1, states  # whole, as read
        count(f"export step kills ({next(iter(states.values()))} after)")
        strays(game.folder, names)
    game.reset(clear=False)
    age_locks(game.folder)
    again = kit.run(args)
    assert again.code == 0, again.text
    assert set(game.versions().values()) == {"new"}
    strays(game.folder, names)


def test_export_into_source_killed_at_random_moments(kit, game):
    """The same export killed at random moments: its parent (the worker goes on alone), its worker, or both."""
    rng = random.Random(SEED + 1)
    args = batch("export", game.blends / "multi.blend", "--into-source")
    game.reset()
    names = game.names
    for n in range(2 + 30 * SOAK):
        game.reset(clear=False)
        age_locks(game.folder)
        victim = ("parent", "all")[n] if n < 2 else rng.choice(("parent", "worker", "all"))
        outcome = kit.run_killed(args, moment(rng, game.multi, game.folder, "worker"), victim)
        states = game.versions()
        if not outcome.killed:
            assert outcome.code == 0 and set(states.values()) == {"new"}, outcome.text
        elif "worker" in outcome.killed and "parent" not in outcome.killed:
            assert outcome.code in (0, 1), outcome.text  # 0: it had finished the item
            assert "Traceback" not in outcome.text
        assert len(set(states.values())) == 1, states  # whole, as read
        summary = next(iter(states.values()))
        count(f"export random kills of {'+'.join(sorted(set(outcome.killed))) or 'nothing'} ({summary} after)")
        strays(game.folder, names)
    game.reset(clear=False)
    age_locks(game.folder)
    again = kit.run(args)
    assert again.code == 0 and set(game.versions().values()) == {"new"}, again.text
    strays(game.folder, names)


# ------------------------------------------------------------------------------------------------- two at once
def test_two_exports_into_one_archive_with_one_killed(kit, game):
    """Two batch runs export into units.rlb at once (units_tank.blend and units_tower.blend, a model each); the
    tank's is killed (its worker before it locks the archive or after it wrote it, or anything of it at a random
    moment). The tower's export succeeds and its model is never lost; the archive is always one of the four
    whole archives (OLD, either model written, both)."""
    rng = random.Random(SEED + 2)
    old = OLD["units.rlb"]
    versions = {"old": old, "new": NEW["units.rlb"], "tank only": with_entries(old, {"tank.msh": NEW_TANK}),
                "tower only": with_entries(old, {"tower.msh": NEW_TOWER})}
    tank = batch("export", game.blends / "units_tank.blend", "--into-source")
    tower = batch("export", game.blends / "units_tower.blend", "--into-source")
    target = game.folder / "units.rlb"
    # after its write (and its lock's release: its backup removed), before its lock
    rules = [("unlink", ".units.rlb.*.old.tmp", 2)] + [("mkdir", OWN, 1)] * bool(SOAK)
    for n in range(len(rules) + 1 + 20 * SOAK):
        game.reset()  # a lock the killed one left would hold the other for 30 s
        other = kit.start(tower)
        if n < len(rules):
            killed = kit.start(tank, kill_rule(kit, game.folder, rules[n], role="worker")).finish(300)
        else:
            killed = kit.run_killed(tank, Moment(rng.uniform(0.3, 1.2 * game.multi.outcome.seconds)),
                                    rng.choice(("parent", "worker", "all")))
        survivor = other.finish(300)
        assert survivor.code == 0 and "Traceback" not in survivor.text, survivor.text
        state = version(target, versions)
        assert state in ("new", "tower only"), f"the tower's write was lost: {state}"
        if killed.code == 0:
            assert state == "new"
        count(f"two writers, one killed ({state} after)")
        strays(game.folder, game.names)


def stale_lock(lock: Path) -> None:
    """A lock as a writer killed long ago left it: its folder holding its file, LOCK_STALE old."""
    lock.mkdir()
    held = lock / f"owner.{uuid.uuid4().hex}"
    held.touch()
    os.utime(held, (0, 0))


BREAKING = {  # a writer's steps as it breaks a stale lock: its file claimed, the claim removed, the empty folder
    "claim": ("rename", f"{LOCK}/owner.*"),
    "unlink": ("unlink", f"{LOCK}/claim.*"),
    "rmdir": ("rmdir", LOCK),
}


@pytest.mark.parametrize("step", list(BREAKING) if SOAK else ["unlink"])
def test_a_stale_lock_is_taken_over_by_one_writer_only(kit, game, step):
    """A lock a killed writer left long ago, and two exports into the archive: the tower's finds it stale and
    pauses at a step of breaking it (before it claims its file, before it removes its claim, before it removes
    the empty folder; the middle one alone but in a soak) while the tank's finds it too. The tank's breaks it and
    takes the lock meanwhile (a writer paused there holds nothing) and pauses holding it; the tower's, going on,
    must not remove the tank's live lock nor write meanwhile, and both models end in the archive. (Was a lost
    write; fixed in core.disk.)"""
    game.reset()
    stale_lock(game.folder / LOCK)
    sync = kit.logs / f"sync-{uuid.uuid4().hex}"
    sync.mkdir()
    op, name = BREAKING[step]
    tower = kit.start(batch("export", game.blends / "units_tower.blend", "--into-source"), watching(
        game.folder, role="worker", pauses=[pause(op, name, sync / "tower", sync / "go tower")]))
    require(wait_for(sync / "tower", tower), "the tower's export never broke the stale lock")
    tank = kit.start(batch("export", game.blends / "units_tank.blend", "--into-source"), watching(
        game.folder, role="worker", pauses=[pause("link", "units.rlb", sync / "tank", sync / "go tank")]))
    took = wait_for(sync / "tank", tank, required=False)
    (sync / "go tower").touch()
    with contextlib.suppress(subprocess.TimeoutExpired):
        tower.popen.wait(2)
    waited = tower.popen.poll() is None and (game.folder / "units.rlb").read_bytes() == OLD["units.rlb"]
    (sync / "go tank").touch()
    outcomes = tower.finish(120), tank.finish(120)
    require([o.code for o in outcomes] == [0, 0], [o.text for o in outcomes])
    archive = (game.folder / "units.rlb").read_bytes()
    written = {"tank": entry(archive, "tank.msh") == NEW_TANK, "tower": entry(archive, "tower.msh") == NEW_TOWER}
    assert written == {"tank": True, "tower": True}, "a write was lost"
    assert took, "the tank's export did not take the lock while the tower's was paused breaking it"
    assert waited, "the tower's export did not wait for the tank's lock"
    assert not strays(game.folder, game.names)


def test_a_writer_killed_while_it_breaks_a_stale_lock_does_not_block_the_file(kit, tmp_path):
    """``rewrite`` killed while it holds its lock, then later ``rewrite``s each killed at a step of breaking the
    lock the last left (LOCK_STALE old: aged here, once): before it claims its file, before it removes its claim
    (twice: the second claims the first's claim), before it removes the empty folder. A later ``rewrite`` takes
    over what they left at once (a claim is as old as the file it claimed) and writes; the killed ones' own lock
    folders stay, harmless. (A writer killed as it broke a lock left a breaker folder that blocked the file until
    the user removed it, until 62686a0.)"""
    folder = cli_folder(tmp_path / "cli")
    target = folder / "out.rlb"
    lock = folder / f".out.rlb{LOCK_SUFFIX}"
    put(target, b"old")
    args = core("rewrite", folder / "units.rlb", target)
    first = kit.run(args, kill_rule(kit, folder, ("replace", ".out.rlb.*.tmp", 1)))
    require(first.code == -signal.SIGKILL and [p.name[:6] for p in lock.iterdir()] == ["owner."], first.text)
    age_locks(folder)
    steps = [(("rename", f"{lock.name}/owner.*", 1), ["owner."]), (("unlink", f"{lock.name}/claim.*", 1), ["claim."]),
             (("unlink", f"{lock.name}/claim.*", 1), ["claim."]), (("rmdir", lock.name, 1), [])]
    for step, left in steps:
        killed = kit.run(args, kill_rule(kit, folder, step))
        assert killed.code == -signal.SIGKILL, (step, killed.text)  # it found the lock stale and broke it
        assert [p.name[:6] for p in lock.iterdir()] == left, step
        assert target.read_bytes() == b"old"
        count("kills while breaking a stale lock")
    left = strays(folder, {"units.rlb", "Textures.lib", "out.rlb"})
    own = [p for p in left if (m := LOCKS.match(p.name)) and m["own"]]
    assert len(own) == len(steps), own
    # LOCK_WAIT beyond LOCK_STALE: it only bounds the wait of a failing case
    later = kit.run(args, watching(folder, set={"core.disk.LOCK_WAIT": LOCK_STALE + 10}))
    assert later.code == 0 and target.read_bytes() == NEW["units.rlb"], later.err
    assert later.seconds < LOCK_STALE, later.seconds
    assert not lock.exists()


def pause(op: str, name: str, mark: Path, go: Path) -> dict:
    """A pause at the first (op, name) step: ``mark`` made, then wait until ``go`` exists (60 s at most)."""
    return {"op": op, "name": name, "nth": 1, "mark": str(mark), "go": str(go), "timeout": 60}


def wait_for(path: Path, started: Started, timeout: float = 120, required: bool = True) -> bool:
    """Whether ``path`` appeared (a process paused) while the run went on, within ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while not path.exists():
        if started.popen.poll() is not None or time.monotonic() > deadline:
            require(not required, f"{started.popen.args} ended or went on without {path.name}")
            return False
        time.sleep(0.01)
    return True


# ------------------------------------------------------------------------------------------------- a real 30 s
@pytest.fixture(scope="module", autouse=True)
def takeovers(kit, game):
    """Started before the module's first test, checked by its last: a ``rewrite`` and an ``export --into-source``
    killed while they hold their lock, and right away a later run of each (in the background meanwhile)."""
    runs = {}
    cli = cli_folder(game.folder.parent / "takeover-cli")
    put(cli / "out.rlb", b"old")
    args = core("rewrite", cli / "units.rlb", cli / "out.rlb")
    killed = kit.run(args, kill_rule(kit, cli, ("replace", ".out.rlb.*.tmp", 1)))
    require(killed.code == -signal.SIGKILL and (cli / f".out.rlb{LOCK_SUFFIX}").is_dir())
    runs["rewrite"] = (kit.start(args), cli / "out.rlb", NEW["units.rlb"])
    folder = game.folder.parent / "takeover"
    put(folder / "units.rlb", OLD["units.rlb"])
    args = batch("export", game.blends / "takeover_tank.blend", "--into-source")
    killed = kit.run(args, kill_rule(kit, folder, ("replace", ".units.rlb.*.tmp", 1), role="worker"))
    export_failed_cleanly(killed)
    require((folder / LOCK).is_dir())
    runs["export --into-source"] = (kit.start(args), folder / "units.rlb",
                                    with_entries(OLD["units.rlb"], {"tank.msh": NEW_TANK}))
    ended: dict[str, float] = {}

    def watch(name: str, started: Started) -> None:
        started.popen.wait()
        ended[name] = time.perf_counter()

    for name, (started, _, _) in runs.items():
        threading.Thread(target=watch, args=(name, started), daemon=True).start()
    yield runs, ended
    for started, _, _ in runs.values():
        if started.popen.poll() is None:
            started.stop()


# ------------------------------------------------------------------------------------------------- refusals
SETPRIV = shutil.which("setpriv")


def unprivileged(args: list) -> list:
    """The command without the power to write where the permission bits say no (root has it: CAP_DAC_OVERRIDE)."""
    if os.geteuid() != 0:
        return args
    return [SETPRIV, "--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-dac_override,-dac_read_search",
            *args]


def listing(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() if p.is_file() else b"<folder>" for p in folder.iterdir()}


def test_a_read_only_target_is_refused_and_left_as_it_was(kit, game, tmp_path):
    cli = cli_folder(tmp_path / "cli")
    put(cli / "out.rlb", b"old", 0o444)
    before = listing(cli)
    refused = kit.run(core("rewrite", cli / "units.rlb", cli / "out.rlb"))
    assert refused.code == 2 and "read-only" in refused.err, refused.text
    assert listing(cli) == before and stat.S_IMODE((cli / "out.rlb").stat().st_mode) == 0o444
    game.reset()
    os.chmod(game.folder / "units.rlb", 0o444)
    before = listing(game.folder)
    try:
        refused = kit.run(batch("export", game.blends / "multi.blend", "--into-source"))
        assert refused.code == 1 and "FAILED" in refused.out and "read-only" in refused.out, refused.text
        assert listing(game.folder) == before  # a.wea and a.msh too: all or none
    finally:
        os.chmod(game.folder / "units.rlb", 0o644)


def test_a_read_only_folder_is_refused_and_left_as_it_was(kit, game, tmp_path):
    if os.geteuid() == 0 and SETPRIV is None:
        pytest.skip("root writes into read-only folders, and setpriv is not there to drop that power")
    probe = tmp_path / "probe"
    probe.mkdir(mode=0o555)
    if subprocess.run(unprivileged(["touch", str(probe / "x")]), capture_output=True).returncode == 0:
        pytest.skip("this system lets the test's processes write into a read-only folder")
    cli = cli_folder(tmp_path / "cli")
    put(cli / "out.rlb", b"old")
    game.reset()
    out = tmp_path / "blend"
    out.mkdir()
    (out / "units_tank.blend").write_bytes(b"old")
    library = tmp_path / "assets"
    library.mkdir()
    (library / "Parkan.blend").write_bytes(b"old")
    folders = (cli, game.folder, out, library)
    before = [listing(folder) for folder in folders]
    for folder in folders:
        os.chmod(folder, 0o555)
    try:
        refused = kit.run(unprivileged(core("rewrite", cli / "units.rlb", cli / "out.rlb")))
        assert refused.code == 2 and "not writable" in refused.err, refused.text
        refused = kit.run(unprivileged(batch("export", game.blends / "multi.blend", "--into-source")))
        assert refused.code == 1 and "FAILED" in refused.out and "not writable" in refused.out, refused.text
        if SOAK:
            refused = kit.run(unprivileged(batch("import", game.folder / "units.rlb", "-o", out)))
            assert refused.code in (1, 2) and "ermission denied" in refused.text, refused.text
        refused = kit.run(unprivileged(batch("library", game.folder, "-o", library / "Parkan.blend")))
        assert refused.code == 2 and "cannot write" in refused.err, refused.text
    finally:
        for folder in folders:
            os.chmod(folder, 0o755)
    assert [listing(folder) for folder in folders] == before


def test_a_target_replaced_between_read_and_write_is_not_overwritten(kit, game, tmp_path):
    """units.rlb replaced by another file after the export read it, before it writes: the write is refused and the
    export reads the archive again; when the file keeps changing (each of its 8 tries), the item fails saying so
    and the other file stays."""
    others = []
    for n in range(8):
        others.append(tmp_path / f"other{n}.rlb")
        archive = Archive.parse(OLD["units.rlb"])
        archive.add(f"note{n}.txt", f"another program's file {n}".encode(), 0x54584554)
        others[-1].write_bytes(archive.to_bytes())
    target = game.folder / "units.rlb"
    args = batch("export", game.blends / "units_tank.blend", "--into-source")
    game.reset()
    always = watching(game.folder, role="worker", swap={"op": "mkdir", "name": OWN, "target": str(target),
                                                        "sources": [str(p) for p in others]})
    refused = kit.run(args, always)
    assert refused.code == 1 and "it changed on disk after the export read it" in refused.out, refused.text
    assert target.read_bytes() == others[-1].read_bytes()
    assert not strays(game.folder, game.names)
    game.reset()
    once = watching(game.folder, role="worker", swap={"op": "mkdir", "name": OWN, "target": str(target),
                                                      "sources": [str(others[0])]})
    again = kit.run(args, once)
    assert again.code == 0, again.text
    assert target.read_bytes() == with_entries(others[0].read_bytes(), {"tank.msh": NEW_TANK})  # read again
    assert not strays(game.folder, game.names)


def test_a_file_rewritten_in_place_and_replaced_meanwhile_is_not_overwritten(kit, tmp_path):
    """``rewrite units.rlb units.rlb --canonical`` of an archive whose tank has a non-canonical frame map (the
    rewrite changes it); another program replaces units.rlb after the rewrite read it, before it writes: the
    rewrite refuses (exit 2, as an export does) and leaves the other program's file; run again, it writes. (It
    replaced the file with the rewrite of the old one until 62686a0.)"""
    folder = cli_folder(tmp_path / "cli")
    expected = {p.name for p in folder.iterdir()}
    target = folder / "units.rlb"
    target.write_bytes(units(non_canonical(NEW_TANK), NEW_TOWER))
    other = tmp_path / "other.rlb"
    other.write_bytes(OLD["units.rlb"])  # e.g. an export wrote other models into it
    swap = {"op": "mkdir", "name": OWN, "target": str(target), "sources": [str(other)]}
    run = kit.run(core("rewrite", target, target, "--canonical"), watching(folder, swap=swap))
    assert run.code == 2 and "changed on disk after the export read it" in run.err, run.text
    assert target.read_bytes() == OLD["units.rlb"], f"the other file was overwritten (exit {run.code})"
    assert not strays(folder, expected)
    again = kit.run(core("rewrite", target, target, "--canonical"))
    assert again.code == 0 and not strays(folder, expected), again.text


# ------------------------------------------------------------------------------------------------- batch -o
def test_a_killed_batch_leaves_nothing_a_later_batch_takes_for_an_input(kit, game, tmp_path):
    """``batch import units.rlb -o blend`` killed as it begins to write its first output leaves its stage folders
    (``.io_msh_stage.PID.N``, staged .blend files inside) in ``blend``: ``batch export blend -o msh`` finds nothing
    to convert (it converted the staged files, writing ``msh/.io_msh_stage.PID.N/0.msh``, until 0118e4e), and the
    next run into ``blend`` removes them."""
    game.reset()
    out, msh = tmp_path / "blend", tmp_path / "msh"
    args = batch("import", game.folder / "units.rlb", "-o", out)
    killed = kit.run(args, kill_rule(kit, out, ("mkstemp", ".units_tank.blend.*.tmp", 1), role="parent"))
    require(killed.code == -signal.SIGKILL and not list(out.glob("*.blend")), killed.text)
    require(list(out.iterdir()) and all(p.name.startswith(".io_msh_stage.") for p in out.iterdir()))
    later = kit.run(batch("export", out, "-o", msh))
    assert later.code == 2 and "nothing to convert" in later.err, later.out
    assert not list(msh.rglob("*.msh"))
    again = kit.run(args)
    assert again.code == 0, again.text
    assert sorted(p.name for p in out.iterdir()) == ["units_tank.blend", "units_tower.blend"]


def test_batch_import_killed_at_random_moments(kit, game, tmp_path):
    """``batch import -o`` over outputs of an earlier run, killed at random moments: each output is the earlier
    .blend or a whole new one. (The stage folders a killed run leaves are the subject of the test above.)"""
    rng = random.Random(SEED + 3)
    game.reset()
    out = tmp_path / "blend"
    args = batch("import", game.folder / "units.rlb", "-o", out)
    traced = trace(kit, args, out, role="parent")
    assert traced.outcome.code == 0, traced.outcome.text
    earlier = {p.name: p.read_bytes() for p in out.glob("*.blend")}
    assert sorted(earlier) == ["units_tank.blend", "units_tower.blend"]
    put(game.folder / "units.rlb", NEW["units.rlb"])
    for n in range(1 + 10 * SOAK):
        for name, data in earlier.items():
            put(out / name, data)
        victim = "parent" if n < 1 else rng.choice(("parent", "worker", "all"))
        outcome = kit.run_killed(args, moment(rng, traced, out, "parent"), victim)
        for name, data in earlier.items():
            now = (out / name).read_bytes()
            assert now == data or complete_blend(now), f"{name}: partial after a kill ({outcome.killed})"
            count(f"import random kills ({'earlier' if now == data else 'new'} after)")
        assert {p.name for p in out.iterdir() if not p.name.startswith(".io_msh_stage.")} == set(earlier)
    again = kit.run(args)
    assert again.code == 0 and all(complete_blend((out / name).read_bytes()) for name in earlier), again.text
    assert sorted(p.name for p in out.iterdir()) == sorted(earlier)  # the killed runs' stage folders removed


# ------------------------------------------------------------------------------------------------- library
CATS = "blender_assets.cats.txt"
CATS_OWN = f".{CATS}{LOCK_SUFFIX}.owner.*"  # (generic name) the catalogue file's writer's lock folder


@dataclass
class Library:
    """A library of units.rlb's models (``v1``: its .blend and catalogue file; ``build``: the trace of its
    parent's steps beside the library), then a new archive (more.rlb) in the game folder: an update adds its
    asset, in a catalogue of its own."""

    game: Path
    out: Path
    v1: dict[str, bytes]
    build: Trace | None

    def restore(self) -> None:
        for name, data in self.v1.items():
            put(self.out.with_name(name), data)

    @property
    def args(self) -> list:
        return batch("library", self.game, "-o", self.out, "--size", "16")


@pytest.fixture(scope="module")
def library(kit, tmp_path_factory):
    root = tmp_path_factory.mktemp("library")
    game = root / "game"
    game.mkdir()
    for name, archive in sample_libraries().items():
        (game / name).write_bytes(archive.to_bytes())
    (game / "units.rlb").write_bytes(NEW["units.rlb"])
    out = root / "assets" / "Parkan.blend"
    made = Library(game, out, {}, None)
    made.build = trace(kit, made.args, out.parent, role="parent")
    require(made.build.outcome.code == 0, made.build.outcome.text)
    made.v1 = {out.name: out.read_bytes(), CATS: out.with_name(CATS).read_bytes()}
    require(b"Other models/more" not in made.v1[CATS])
    (game / "more.rlb").write_bytes(archive_bytes([("crate.msh", generated(80, node_count=2, frame_count=4),
                                                    MODEL_TYPE_ID)]))
    return made


def test_library_killed_at_random_moments(kit, library):
    """``batch library`` updating a library, killed at random moments (its parent, its workers, both): the .blend
    is the old one or a whole new one, the catalogue file its old bytes or the new ones (a clean update's: the
    parent completes it after it moved the library into place); a later run succeeds."""
    rng = random.Random(SEED + 4)
    catalogues = []
    folder = library.out.parent
    for n in range(1 + 10 * SOAK):
        library.restore()
        age_locks(folder)  # a run killed as it wrote the catalogue file may leave its lock
        victim = "parent" if n < 1 else rng.choice(("parent", "worker", "all"))
        when = moment(rng, library.build, library.out.parent, "parent", ["link", library.out.name]) if n else \
            Moment(0.0005, library.out.parent, "parent", ["link", library.out.name])  # as it moves the two in
        outcome = kit.run_killed(library.args, when, victim)
        blend = library.out.read_bytes()
        assert blend == library.v1[library.out.name] or complete_blend(blend), f"partial after {outcome.killed}"
        catalogues.append((blend == library.v1[library.out.name], library.out.with_name(CATS).read_bytes()))
        left = [p for p in folder.iterdir() if p.name.startswith(".io_msh_library_")]
        assert all(p.is_dir() for p in left), left
        count("library temporary folders left by kills", len(left))
        for path in left:  # the test's own clean-up: one per killed run
            shutil.rmtree(path)
        strays(folder, {library.out.name, CATS})  # the catalogue file's temporaries and locks
    library.restore()
    age_locks(folder)
    again = kit.run(library.args)
    assert again.code == 0 and complete_blend(library.out.read_bytes()), again.text
    new = library.out.with_name(CATS).read_bytes()
    assert b"Other models/more" in new
    for old_blend, cats in catalogues:
        state = version_of_bytes(cats, {"old": library.v1[CATS], "new": new})
        count(f"library random kills ({'old' if old_blend else 'new'} .blend, {state} catalogues after)")


def version_of_bytes(data: bytes, versions: dict[str, bytes]) -> str:
    for label, content in versions.items():
        if data == content:
            return label
    pytest.fail(f"{len(data)} bytes, none of {sorted(versions)}: a partial or mixed file")


@pytest.mark.parametrize("step", [("link", CATS, 1)] + [("mkstemp", f".{CATS}.*.tmp", 1)] * bool(SOAK),
                         ids=["holding its lock", "before its write"][:1 + bool(SOAK)])
def test_library_killed_between_its_two_files_is_made_whole_by_the_next_run(kit, library, step):
    """Killed after it replaced the library, before the catalogue file (holding its lock, aged then; or, in a soak,
    before its write began): the next run adds the catalogue of the asset the library now holds (``Other
    models/more``), as a run not killed does. (It found the library up to date and never wrote the catalogue
    until 0118e4e.)"""
    library.restore()
    clear_strays(library.out.parent)
    killed = kit.run(library.args, kill_rule(kit, library.out.parent, step, role="parent"))
    require(killed.code == -signal.SIGKILL)
    for path in library.out.parent.glob(".io_msh_library_*"):  # the killed run's temporary folder (see above)
        shutil.rmtree(path)
    require(age_locks(library.out.parent) == (step[0] == "link"))  # the catalogue file's lock left, or none
    blend = library.out.read_bytes()
    require(blend != library.v1[library.out.name] and complete_blend(blend))  # the new library is in place ...
    require(library.out.with_name(CATS).read_bytes() == library.v1[CATS])  # ... its catalogues not yet
    later = kit.run(library.args)
    require(later.code == 0, later.text)
    assert b"Other models/more" in library.out.with_name(CATS).read_bytes(), later.out
    assert not library.out.with_name(f".{CATS}{LOCK_SUFFIX}").exists()
    strays(library.out.parent, {library.out.name, CATS})


CATALOGUE_EDITS = {  # when the user's Blender saves the catalogue file during a run: the swap's (op, name)
    "before the run reads it": ("link", "Parkan.blend"),  # as the run moves the library into place
    "between the run's read and its write": ("mkdir", CATS_OWN),  # as it takes the file's lock
}


@pytest.mark.parametrize("when", list(CATALOGUE_EDITS)[0 if SOAK else 1:])
def test_library_catalogues_changed_during_a_run_are_not_overwritten(kit, library, tmp_path, when):
    """The user adds a catalogue of their own (Blender's Asset Browser writes the file) while an update runs:
    the run keeps the user's line and adds its own catalogue (it reads the file again when it changed after its
    read). (The user's line was lost until 62686a0.)"""
    library.restore()
    clear_strays(library.out.parent)
    before = set(os.listdir(library.out.parent))
    cats = library.out.with_name(CATS)
    mine = b"0f1e2d3c-aaaa-4bbb-8ccc-123456789abc:My catalogue:My catalogue\n"
    edited = tmp_path / "edited.txt"
    edited.write_bytes(library.v1[CATS] + mine)
    op, name = CATALOGUE_EDITS[when]
    swap = {"op": op, "name": name, "target": str(cats), "sources": [str(edited)]}
    run = kit.run(library.args, watching(library.out.parent, role="parent", swap=swap))
    require(cats.read_bytes() != library.v1[CATS], run.text)  # the swap happened
    assert run.code == 0, run.text
    assert mine in cats.read_bytes() and b"Other models/more" in cats.read_bytes(), cats.read_text()
    assert not strays(library.out.parent, before | {library.out.name, CATS})


@pytest.mark.skipif(not SOAK, reason="soak only (IO_MSH_KILL_SOAK)")
def test_library_catalogues_changing_all_the_time_are_left_as_the_user_saved_them(kit, library, tmp_path):
    """The catalogue file changes between every read of the run and its write (all 10 tries): the run fails
    saying so, and the file is the user's last."""
    library.restore()
    clear_strays(library.out.parent)
    before = set(os.listdir(library.out.parent))
    cats = library.out.with_name(CATS)
    edits = []
    for n in range(10):
        edits.append(tmp_path / f"edited{n}.txt")
        edits[-1].write_bytes(library.v1[CATS] + f"0f1e2d3c-aaaa-4bbb-8ccc-{n:012d}:Mine {n}:Mine {n}\n".encode())
    swap = {"op": "mkdir", "name": CATS_OWN, "target": str(cats), "sources": [str(p) for p in edits]}
    run = kit.run(library.args, watching(library.out.parent, role="parent", swap=swap))
    assert run.code == 1 and "FAILED" in run.out and "changed on disk" in run.out, run.text
    assert cats.read_bytes() == edits[-1].read_bytes()
    assert not strays(library.out.parent, before | {library.out.name, CATS})


# ------------------------------------------------------------------------------------------------- last
def test_a_lock_left_by_a_killed_writer_is_taken_over(takeovers):
    """The later runs started by ``takeovers`` took the killed writers' locks over (at once when the lock's file
    names a process that is gone, else once it is LOCK_STALE old) and wrote their files."""
    runs, ended = takeovers
    for name, (started, target, expected) in runs.items():
        outcome = started.finish(LOCK_STALE + 90)
        assert outcome.code == 0 and "Traceback" not in outcome.text, (name, outcome.text)
        waited = ended[name] - started.began
        assert waited <= LOCK_STALE + 30, (name, waited)
        assert target.read_bytes() == expected, name
        assert not (target.with_name(f".{target.name}{LOCK_SUFFIX}")).exists()
