"""A stateful sweep of careless sequences around the batch tool's writers: ``batch library GAME -o Parkan.blend``
and ``batch export units.blend --into-source``, run over one game folder as a user and other programs change it.

Drawn in any order: a library run or an export run (either may be killed, SIGKILL at a random moment, to its
parent, its workers or both; the user's Blender may save the catalogue file as the library run writes it); a
user's .blend (materials, a node group, a text: no object) put where the library goes, or taken away again; the
catalogue file edited by the user (a catalogue of theirs added); an archive added to the game folder under a name
holding ':', a line break or bytes that are not UTF-8; another program writing units.rlb between runs (a model's
entry set back to an older one, or an entry of its own added). The invariant:

- a run not killed: a user's .blend in the library's place is refused (exit 2) and every file is as it was; else
  the library is a whole .blend holding one asset per model of the game folder, each in a catalogue the
  catalogue file defines, the file keeping every line the user wrote (no line of it breaks the
  ``UUID:path:name`` form); an export writes the .blend's edited model into units.rlb, every other entry as it
  was, or refuses (exit 1, nothing written) when another program changed that model's entry after the import;
  nothing is left beside the files (no temporary, lock, journal, stage or library folder, including those of
  runs killed earlier);
- a run killed: every file is as it was or the run's complete result (a whole .blend; the catalogue file with
  every line it had; units.rlb as it was or with the edited model written), and what it left beside them is only
  what core.disk and the runs name as theirs (the next run removes it);
- and nothing else changes: the game folder is written only by the export (units.rlb), the library's folder
  only by the library run.

The suite runs a small fixed budget (each run starts Blender: seconds). LIBRARY_SWEEP_EXAMPLES and
LIBRARY_SWEEP_STEPS soak it, LIBRARY_SWEEP_RANDOM=1 takes a new seed each run; the figures (runs, kills, refusals)
are printed at the end (``-s``):

    LIBRARY_SWEEP_EXAMPLES=20 LIBRARY_SWEEP_STEPS=12 LIBRARY_SWEEP_RANDOM=1 .venv/bin/python -m pytest -q -s \\
        tests/test_library_write_path_sweep.py
"""

from __future__ import annotations

import os
import random
import shutil
import sys
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest
from fixtures import static_model
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule, run_state_machine_as_test
from test_batch_interrupt import edited_blend
from test_writers_killed import (
    BATCH,
    CATS,
    NEW,
    NEW_TANK,
    OLD_TANK,
    TEMPORARY,
    Kit,
    Moment,
    age_locks,
    complete_blend,
    is_lock_leftover,
    watching,
    write_game,
)

from core.authoring.synth import sample_libraries
from core.container.nres import MODEL_TYPE_ID, Archive
from core.disk import JOURNAL_SUFFIX
from core.errors import printable

EXAMPLES = int(os.environ.get("LIBRARY_SWEEP_EXAMPLES", "1"))
STEPS = int(os.environ.get("LIBRARY_SWEEP_STEPS", "6"))
RANDOM = os.environ.get("LIBRARY_SWEEP_RANDOM") == "1"
pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="finds a run's processes through /proc")
SAMPLE_LIBRARIES = tuple(sample_libraries())
ODD_NAMES = [b"co:lon.rlb", b"new\nline.rlb", b"bad\xff.rlb", b"plain.rlb", b"two: a\nb\xfe.rlb"]
CATS_OWN = f".{CATS}.io_msh-lock.owner.*"  # (generic name) where the user's Blender saves during a run
CARELESS = [  # what the user and other programs do before a run, drawn with a run's random generator
    lambda rng: ("users_blend_in_the_way_or_taken_away",),
    lambda rng: ("user_adds_a_catalogue", "".join(rng.choices("abcxyz", k=rng.randint(1, 6)))),
    lambda rng: ("archive_added", rng.choice(ODD_NAMES), rng.randint(2, 6)),
    lambda rng: ("another_program_writes_units", rng.choice(["an older tank", "the imported tank",
                                                            "an entry of its own"])),
]
LIBRARY_SECONDS, EXPORT_SECONDS = 8.0, 5.0  # about how long a run takes here: kills fall within 1.2 times that


def batch(*args) -> list:
    return [sys.executable, str(BATCH), *args]


def entries(data: bytes) -> list[tuple[str, int, bytes]]:
    return [(e.name_str, e.type_id, bytes(e.data)) for e in Archive.parse(data).entries]


def files_in(folder: Path) -> dict[bytes, bytes]:
    """Every regular file below ``folder`` (by its path's bytes below it) with its contents, but for those in the
    runs' own folders (a killed run's, which the next run removes)."""
    found = {}
    for root, dirs, names in os.walk(os.fsencode(folder)):
        dirs[:] = [d for d in dirs if not d.startswith((b".io_msh_library_", b".io_msh_stage."))]
        for name in names:
            path = os.path.join(root, name)
            if os.path.isfile(path) and not os.path.islink(path):
                with open(path, "rb") as handle:
                    found[os.path.relpath(path, os.fsencode(folder))] = handle.read()
    return found


def leftovers(folder: Path, kept: set[str]) -> set[str]:
    """What is in ``folder`` besides ``kept``, of the kinds a killed run leaves: core.disk's temporaries, locks
    and journals, and the runs' own folders. Anything else fails the sweep."""
    left = set()
    for path in folder.iterdir():
        if path.name in kept:
            continue
        ours = (TEMPORARY.match(path.name) and path.is_file()) or is_lock_leftover(path) or (
            path.name.endswith(JOURNAL_SUFFIX) and path.is_file()) or (
            path.name.startswith((".io_msh_library_", ".io_msh_stage.")) and path.is_dir())
        assert ours, f"{path} left beside the files"
        left.add(path.name)
    return left


def assert_tidy(folder: Path, kept: set[str], before: set[str]) -> None:
    """After a run that was not killed: nothing beside the files but what killed runs left before it of core.disk's
    (a temporary is removed once 10 minutes old, a lock by the next write of its file); no run's folder at all."""
    left = leftovers(folder, kept)
    assert left <= before, sorted(left - before)
    assert not [name for name in left if name.startswith((".io_msh_library_", ".io_msh_stage."))], sorted(left)


def sweep(blender, root: Path, kit: Kit, blend: Path, user_blend: bytes):
    bpy = blender.bpy
    game, lib = root / "game", root / "lib"
    library, cats = lib / "Parkan.blend", lib / CATS
    stats: Counter = Counter()

    class CarelessBatchRuns(RuleBasedStateMachine):
        @initialize()
        def fresh_folders(self):
            for folder in (game, lib):
                shutil.rmtree(folder, ignore_errors=True)
            write_game(game)
            lib.mkdir()
            self.rng = random.Random(0)
            self.user_lines: list[str] = []  # catalogue lines the user wrote: every run keeps them
            self.archives: dict[bytes, str] = {}  # added to the game folder: file name (bytes) -> its model
            self.users_file = False  # the user's .blend is where the library goes
            self.edited = b""  # the edited tank as the export writes it (known once it was written)

        # ------------------------------------------------------------------------- the user, other programs
        def careless(self, actions: list[tuple]) -> None:
            """What the user and other programs do before a run."""
            for action, *values in actions:
                getattr(self, action)(*values)
                stats[f"careless: {action}"] += 1

        def users_blend_in_the_way_or_taken_away(self) -> None:
            if self.users_file:
                library.unlink()
            else:
                put(library, user_blend)
            self.users_file = not self.users_file

        def user_adds_a_catalogue(self, name: str) -> None:
            line = f"{uuid.uuid4()}:Mine/{name}:Mine-{name}"
            text = cats.read_text(encoding="utf-8", errors="surrogateescape") if cats.exists() else "VERSION 1\n"
            put(cats, (text.rstrip("\n") + "\n" + line + "\n").encode("utf-8", "surrogateescape"))
            self.user_lines.append(line)

        def archive_added(self, name: bytes, model: int) -> None:
            archive = Archive()
            archive.add(f"odd{model}.msh", static_model(model), MODEL_TYPE_ID)
            with open(os.path.join(os.fsencode(game), name), "wb") as handle:
                handle.write(archive.to_bytes())
            self.archives[name] = f"odd{model}.msh"

        def another_program_writes_units(self, how: str) -> None:
            archive = Archive.parse((game / "units.rlb").read_bytes())
            if how != "an entry of its own":
                archive.find("tank.msh").data = OLD_TANK if how == "an older tank" else NEW_TANK
            elif archive.find("theirs.msh") is None:
                archive.add("theirs.msh", static_model(3), MODEL_TYPE_ID)
            put(game / "units.rlb", archive.to_bytes())

        # ------------------------------------------------------------------------- the runs
        @rule(seed=st.integers(0, 2**32 - 1))
        def step(self, seed):
            """One run, after what the user and other programs do meanwhile: drawn from ``seed`` (hypothesis's
            first examples are its simplest, which would run one kind of run, never killed, with a budget this
            small; the seed is printed with a failing sequence)."""
            stats["steps"] += 1
            rng = random.Random(f"{seed}:{stats['steps']}")  # (the simplest examples repeat one seed)
            self.rng = rng
            self.careless([draw(rng) for draw in rng.choices(CARELESS, k=rng.choice([0, 0, 1, 1, 2]))])
            kill = rng.choice(["parent", "worker", "all"]) if stats["steps"] % 2 == 0 else None  # every other run
            if rng.random() < 0.6:
                self.library_run(kill, rng.random() < 0.5)
            else:
                self.export_run(kill)

        def library_run(self, kill, catalogue_saved_meanwhile):
            age_locks(lib)  # locks a killed run left: as if their 30 s had passed
            before_lib, before_game, before_names = files_in(lib), files_in(game), os.listdir(lib)
            before_names_game = set(os.listdir(game))
            args = batch("library", game, "-o", library, "--size", "16")
            config, log, saved_line = None, kit.logs / f"sweep-{uuid.uuid4().hex}.jsonl", ""
            if catalogue_saved_meanwhile and kill is None and cats.exists():
                saved_line = f"{uuid.uuid4()}:Saved/meanwhile:Saved-meanwhile"
                edited = kit.logs / f"edited-{uuid.uuid4().hex}.txt"
                edited.write_bytes(cats.read_bytes().rstrip(b"\n") + b"\n" + saved_line.encode() + b"\n")
                swap = {"op": "mkdir", "name": CATS_OWN, "target": str(cats), "sources": [str(edited)]}
                config = watching(lib, role="parent", swap=swap, log=str(log))
            if kill is None:
                outcome = kit.run(args, config)
                killed = []
            else:
                outcome = kit.run_killed(args, Moment(self.rng.uniform(0, 1.2 * LIBRARY_SECONDS)), kill)
                killed = outcome.killed
            assert files_in(game) == before_game, "the library run wrote into the game folder"
            assert leftovers(game, self.game_names()) <= set(before_names_game)
            if saved_line and log.exists() and CATS_OWN in log.read_text():
                self.user_lines.append(saved_line)  # the user's Blender saved it as the run wrote the file
                stats["library runs with the catalogue file saved meanwhile"] += 1
            if killed:
                stats[f"library runs killed ({'+'.join(sorted(set(killed)))})"] += 1
                self.killed_library(before_lib)
                return
            stats["library runs"] += 1
            if self.users_file:
                assert outcome.code == 2 and "is not an asset library this command wrote" in outcome.err, outcome.text
                assert files_in(lib) == before_lib
                stats["library runs refused (the user's .blend)"] += 1
                return
            assert outcome.code == 0, outcome.text
            assert_tidy(lib, {library.name, CATS}, set(before_names))
            self.check_library()

        def killed_library(self, before: dict[bytes, bytes]) -> None:
            name, cats_name = os.fsencode(library.name), os.fsencode(CATS)
            now = files_in(lib)
            if name in before:
                assert now.get(name) == before[name] or (not self.users_file and complete_blend(now.get(name, b"")))
            else:
                assert name not in now or complete_blend(now[name])
            if cats_name in before:
                old = before[cats_name].decode("utf-8", "surrogateescape").splitlines()
                kept = now.get(cats_name, b"").decode("utf-8", "surrogateescape").splitlines()
                assert set(old) <= set(kept), "a killed run lost a line of the catalogue file"
            stats["library kills that left something beside the files"] += bool(leftovers(lib, {library.name, CATS}))

        def check_library(self) -> None:
            assert complete_blend(library.read_bytes())
            lines = cats.read_text(encoding="utf-8", errors="surrogateescape").splitlines()
            for line in self.user_lines:
                assert line in lines, f"the user's {line!r} was lost"
            rows = [line.split(":") for line in lines if line.strip() and not line.startswith(("#", "VERSION"))]
            assert all(len(row) == 3 for row in rows), rows
            defined = {row[0] for row in rows}
            bpy.ops.wm.open_mainfile(filepath=str(library))
            keys = {str(c["msh_asset_key"]): c.asset_data.catalog_id for c in bpy.data.collections
                    if c.asset_data is not None}
            wanted = {f"units.rlb:{n}:{m}" for n, m in ((0, "tank.msh"), (1, "tower.msh"))} | {"a.msh"}
            wanted |= {f"{printable(os.fsdecode(name))}:0:{member}" for name, member in self.archives.items()}
            names = [name for name, _type, _data in entries((game / "units.rlb").read_bytes())]
            if "theirs.msh" in names:
                wanted.add(f"units.rlb:{names.index('theirs.msh')}:theirs.msh")
            assert set(keys) == wanted, (sorted(keys), sorted(wanted))
            assert set(keys.values()) <= defined
            bpy.ops.wm.read_homefile(use_empty=True)
            stats["libraries checked"] += 1

        def export_run(self, kill):
            age_locks(game)
            before_lib, before_game, before_names = files_in(lib), files_in(game), os.listdir(game)
            args = batch("export", blend, "--into-source")
            if kill is None:
                outcome = kit.run(args)
                killed = []
            else:
                outcome = kit.run_killed(args, Moment(self.rng.uniform(0, 1.2 * EXPORT_SECONDS)), kill)
                killed = outcome.killed
            assert files_in(lib) == before_lib, "the export wrote into the library's folder"
            now = files_in(game)
            units = os.fsencode("units.rlb")
            assert {k: v for k, v in now.items() if k != units} == {k: v for k, v in before_game.items() if
                                                                  k != units}, "the export wrote another file"
            old, new = entries(before_game[units]), entries(now[units])
            changed = [n for n, (a, b) in enumerate(zip(old, new, strict=True)) if a != b] if len(old) == len(
                new) else None
            if changed:  # written: only the edited model's entry, always to the same bytes
                assert changed == [0] and old[0][0] == "tank.msh", changed
                self.edited = self.edited or new[0][2]
                assert new[0][2] == self.edited
            else:
                assert changed == [], "units.rlb is neither as it was nor the export's result"
            if killed:
                stats[f"export runs killed ({'+'.join(sorted(set(killed)))})"] += 1
                leftovers(game, self.game_names())
                return
            stats["export runs"] += 1
            if old[0][2] not in (NEW_TANK, self.edited):  # another program changed the model after the import
                assert outcome.code == 1 and "changed on disk after the import" in outcome.out, outcome.text
                assert not changed
                stats["export runs refused (the model's entry changed after the import)"] += 1
            else:
                assert outcome.code == 0, outcome.text
                assert changed or old[0][2] == self.edited
                stats["export runs that wrote"] += bool(changed)
            assert_tidy(game, self.game_names(), set(before_names))

        def game_names(self) -> set[str]:
            return {*NEW, *SAMPLE_LIBRARIES, *(os.fsdecode(name) for name in self.archives)}

    return CarelessBatchRuns, stats


def put(path: Path, data: bytes) -> None:
    temporary = path.with_name(path.name + ".put")
    temporary.write_bytes(data)
    os.replace(temporary, path)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """The folders, the runs' kit and units.blend: units.rlb's two models as imported from NEW, a vertex of the
    tank's moved (its export writes tank.msh, and tower.msh as it was)."""
    root = tmp_path_factory.mktemp("sweep")
    kit = Kit(root / "kit")
    write_game(root / "game")
    blend = root / "blends" / "units.blend"
    edited_blend(kit, root / "game" / "units.rlb", blend)
    return root, kit, blend


@pytest.fixture(scope="module")
def user_blend(tmp_path_factory):
    import blender_env

    bpy = blender_env.bpy
    bpy.ops.wm.read_homefile(use_empty=True)
    material, group = bpy.data.materials.new("mine"), bpy.data.node_groups.new("group", "ShaderNodeTree")
    material.use_fake_user = group.use_fake_user = True
    bpy.data.texts.new("notes").write("my notes")
    path = tmp_path_factory.mktemp("user") / "mine.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(path), copy=True)
    bpy.ops.wm.read_homefile(use_empty=True)
    return path.read_bytes()


def test_careless_batch_runs_keep_every_file_whole_or_as_it_was(blender, world, user_blend, capfd):
    root, kit, blend = world
    start = time.perf_counter()
    machine, stats = sweep(blender, root, kit, blend, user_blend)
    run_state_machine_as_test(machine, settings=settings(
        max_examples=EXAMPLES, stateful_step_count=STEPS, derandomize=not RANDOM, database=None, deadline=None,
        suppress_health_check=list(HealthCheck)))
    with capfd.disabled():
        print(f"\nbatch write-path sweep ({EXAMPLES} examples of up to {STEPS} steps, "
              f"{time.perf_counter() - start:.0f} s): {dict(sorted(stats.items()))}")
