"""A stateful sweep of Parkan Clips for Engines through the real operator: the walker imported with Clips, then
in any order the armature put in Object, Pose or Edit Mode, and exports (GLB or FBX, with or without Replace
Read-Only Files, often twice) onto a new file, the file an export wrote, a model (.msh), a file of the other
format, a text file, a read-only one.

The invariant of every export:

- refused: every file of the folder is byte for byte as it was and no file appeared, the message is no
  traceback, and the target held another kind of file (a model, the other format) or was read-only without
  Replace Read-Only Files;
- finished: the target holds the format asked for (a .glb naming every clip as an animation), every other file
  is as it was, nothing is left beside it;
- either way the armature is active and in the mode it was in.

The suite runs a small fixed budget; ENGINE_WRITE_SWEEP_EXAMPLES, ENGINE_WRITE_SWEEP_STEPS and
ENGINE_WRITE_SWEEP_RANDOM=1 soak it.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule, run_state_machine_as_test
from test_batch import _glb_json

EXAMPLES = int(os.environ.get("ENGINE_WRITE_SWEEP_EXAMPLES", "3"))
STEPS = int(os.environ.get("ENGINE_WRITE_SWEEP_STEPS", "4"))
RANDOM = os.environ.get("ENGINE_WRITE_SWEEP_RANDOM") == "1"

WALKER = Path(__file__).resolve().parent.parent / "samples" / "walker"
CLIPS = {"stand 0", "walk 1", "run 2"}
SUFFIX = {"GLB": ".glb", "FBX": ".fbx"}
TARGETS = ["new", "written", "model", "other format", "text", "read-only written"]


def engine_write_sweep(blender, stats: Counter):
    bpy = blender.bpy

    class CarelessEngineWrites(RuleBasedStateMachine):
        @initialize(clips=st.sampled_from(["NLA", "ACTIONS"]))
        def import_the_walker(self, clips):
            blender.clean_scene()
            self.folder = Path(tempfile.mkdtemp(prefix="engine_write_sweep_"))
            assert bpy.ops.import_scene.parkan_msh(filepath=str(WALKER / "walker.msh"), clips=clips) == {"FINISHED"}
            (root,) = [o for o in bpy.data.objects if "msh_model" in o]
            self.root_name = root.name
            self.fresh = 0
            self.written: dict[str, Path] = {}  # format -> a file an export of it wrote
            stats[f"imports {clips}"] += 1

        def teardown(self):
            root = bpy.data.objects.get(getattr(self, "root_name", ""))
            if root is not None and root.mode != "OBJECT":
                bpy.context.view_layer.objects.active = root
                bpy.ops.object.mode_set(mode="OBJECT")
            for path in getattr(self, "folder", Path("/nonexistent")).glob("*"):
                os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
            blender.clean_scene()
            shutil.rmtree(getattr(self, "folder", ""), ignore_errors=True)

        @property
        def root(self):
            return bpy.data.objects[self.root_name]

        @rule(mode=st.sampled_from(["OBJECT", "POSE", "EDIT"]))
        def enter_a_mode(self, mode):
            layer = bpy.context.view_layer
            if self.root.mode != "OBJECT":
                layer.objects.active = self.root
                bpy.ops.object.mode_set(mode="OBJECT")
            for obj in layer.objects:
                obj.select_set(obj == self.root)
            layer.objects.active = self.root
            assert bpy.ops.object.mode_set(mode=mode) == {"FINISHED"}
            stats[f"mode {mode}"] += 1

        @rule(onto=st.sampled_from(TARGETS), file_format=st.sampled_from(["GLB", "FBX"]), force=st.booleans(),
              times=st.sampled_from([1, 1, 2]))
        def export(self, onto, file_format, force, times):
            path = self._target(onto, file_format)
            for _ in range(times):
                self._export(path, file_format, force, onto)

        def _target(self, target: str, file_format: str) -> Path:
            suffix = SUFFIX[file_format]
            if target in ("written", "read-only written") and file_format in self.written:
                path = self.written[file_format]
                if target == "read-only written":
                    os.chmod(path, stat.S_IRUSR)
                return path
            self.fresh += 1
            path = self.folder / f"target {self.fresh}{suffix}"
            if target == "model":
                path = path.with_suffix(".msh")
                path.write_bytes((WALKER / "walker.msh").read_bytes())
            elif target == "other format":
                other = "FBX" if file_format == "GLB" else "GLB"
                if other in self.written:
                    path.write_bytes(self.written[other].read_bytes())
            elif target == "text":
                path.write_text("notes, not a model\n")
            return path

        @rule()
        def rename_the_armature(self):
            """A change every file shows (the armature's node name)."""
            self.fresh += 1
            root = self.root
            root.name = f"walker {self.fresh}"
            self.root_name = root.name
            stats["renamed"] += 1

        def _files(self) -> dict:
            """Each file's bytes and whether its mode lets it be written (by the mode bits: the sweep may run as
            root, whom os.access never refuses)."""
            return {p.name: (p.read_bytes(), bool(p.stat().st_mode & 0o222)) for p in sorted(self.folder.iterdir())}

        def _export(self, path: Path, file_format: str, force: bool, target: str) -> None:
            before = self._files()
            existing = before.get(path.name)
            mode = self.root.mode
            kind = _kind(existing[0]) if existing else None
            read_only = existing is not None and not existing[1]
            try:
                result = bpy.ops.export_scene.parkan_clips(filepath=str(path), file_format=file_format, force=force)
            except RuntimeError as exc:
                said = str(exc).strip()
                assert "Traceback" not in said, said
                assert self._files() == before, f"refused ({said}) but the folder changed"
                foreign = kind not in (None, file_format, "text", "empty")
                assert foreign or (read_only and not force), f"refused with nothing unusual: {said}"
                stats[f"refused {'another kind' if foreign else 'read-only'}"] += 1
            else:
                assert result == {"FINISHED"}
                assert kind in (None, file_format, "text", "empty"), f"{kind} replaced by {file_format}"
                after = self._files()
                assert not read_only or force or after[path.name][0] == existing[0], \
                    "a read-only file replaced without Replace Read-Only Files"
                assert set(after) == set(before) | {path.name}, "files appeared or went away beside the target"
                for name, content in before.items():
                    if name != path.name:
                        assert after[name] == content, f"{name} changed"
                data = path.read_bytes()
                assert _kind(data) == file_format
                if file_format == "GLB":
                    assert {a["name"] for a in _glb_json(path)["animations"]} >= CLIPS
                self.written[file_format] = path
                kept = existing is not None and after[path.name][0] == existing[0]
                onto = target if existing else "new"
                stats[f"finished {file_format} onto {onto}{' (same bytes)' if kept else ''}"] += 1
            assert bpy.context.view_layer.objects.active == self.root and self.root.mode == mode, \
                f"the armature was in {mode}, is in {self.root.mode}"

    return CarelessEngineWrites


def _kind(data: bytes) -> str:
    if data[:4] == b"glTF":
        return "GLB"
    if data[:18] == b"Kaydara FBX Binary":
        return "FBX"
    if data[:4] == b"NRes":
        return "model"
    return "text" if data else "empty"


def test_every_engine_export_writes_its_own_kind_or_is_refused_leaving_every_file(blender):
    stats: Counter = Counter()
    budget = settings(max_examples=EXAMPLES, stateful_step_count=STEPS, derandomize=not RANDOM, deadline=None,
                      suppress_health_check=list(HealthCheck))
    run_state_machine_as_test(engine_write_sweep(blender, stats), settings=budget)
    print("\nengine write sweep:", dict(sorted(stats.items())))
    assert any(k.startswith("finished") for k in stats)
