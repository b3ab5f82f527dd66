"""The mission's sky (sky.ske) and briefing (briefing.cfg) through File > Import / Export > Parkan Map, attacked:
careless edits of the World, the sun lamps and the waypoint Empties, hostile files, and a stateful sweep.

The invariant of every export: every edit reaches the file or the export is refused (nothing written, the message
no traceback), and nothing else changes: a value left alone keeps its bytes, the other files of the set too.

The sweep runs a small fixed budget; MAP_WORLD_SOAK=1 runs many more sequences (``-s`` prints what they did):

    MAP_WORLD_SOAK=1 .venv/bin/python -m pytest -q -s tests/test_map_world_attack_blender.py
"""

from __future__ import annotations

import copy
import math
import os
import shutil
import struct
import tempfile
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule, run_state_machine_as_test

from core.authoring.briefing import synthetic_briefing
from core.authoring.map_game import mission_game_files
from core.authoring.sky import sky_wea, synthetic_sky
from core.briefing.cfg import FLAG_KEYS, INTEGER_KEYS, KEYS, TEXT_KEYS, parse_briefing
from core.sky.ske import Time, parse_ske, write_ske

SOAK = os.environ.get("MAP_WORLD_SOAK") == "1"
EXAMPLES, STEPS = (60, 30) if SOAK else (6, 15)

MISSION = "MISSIONS/SAMPLE/data.tma"
SKY = "MISSIONS/SAMPLE/sky.ske"
BRIEFING = "MISSIONS/SAMPLE/briefing.cfg"
FILES = {**mission_game_files(objects=3, kinds=4), SKY: write_ske(synthetic_sky(2, editor_session=True)),
         "MISSIONS/SAMPLE/sky.wea": sky_wea(), BRIEFING: synthetic_briefing()}
POSITIONS = ("CameraX", "CameraY", "CameraZ", "TargetX", "TargetY", "TargetZ")
PROPERTY_KEYS = tuple(k for k in KEYS if k not in POSITIONS)
F32_MAX = float(np.finfo(np.float32).max)


def write(root: Path, files: dict[str, bytes]) -> Path:
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def imported(bpy, root: Path, **options):
    assert bpy.ops.import_scene.parkan_map(filepath=str(root / MISSION), **options) == {"FINISHED"}
    return next(c for c in bpy.data.collections if "msh_map" in c)


def refused(bpy, root: Path, words: str) -> None:
    before = snapshot(root)
    with pytest.raises(RuntimeError, match=words) as caught:
        bpy.ops.export_scene.parkan_map(filepath=str(root / MISSION))
    assert "Traceback" not in str(caught.value)
    assert snapshot(root) == before


def exported(bpy, root: Path) -> None:
    assert bpy.ops.export_scene.parkan_map(filepath=str(root / MISSION)) == {"FINISHED"}


# ------------------------------------------------------------------------------------------ careless edits
@pytest.mark.parametrize("where", ["slot 15", "main lamp"])
def test_a_colour_that_is_no_number_is_refused_without_a_traceback(blender, tmp_path, where):
    bpy = blender.bpy
    root = write(tmp_path, FILES)
    top = imported(bpy, root)
    if where == "slot 15":
        top["msh_sky_world"].node_tree.nodes["slot 15"].outputs[0].default_value = (math.nan, 0.0, 0.0, 1.0)
    else:
        top["msh_sky_lamps"]["main"].data.color = (math.nan, 0.5, 0.5)
    refused(bpy, root, "not a number")


@pytest.mark.parametrize("original", ["kept", "deleted"])
def test_a_copy_of_the_sky_world_edited_apart_is_refused_and_an_unedited_one_is_no_matter(blender, tmp_path,
                                                                                          original):
    bpy = blender.bpy
    root = write(tmp_path, FILES)
    top = imported(bpy, root)
    world = top["msh_sky_world"]
    bpy.context.scene.world = twin = world.copy()  # World > New copies the scene's World
    if original == "deleted":
        bpy.data.worlds.remove(world)
    exported(bpy, root)
    twin.node_tree.nodes["slot 15"].outputs[0].default_value = (1.0, 0.0, 0.0, 1.0)
    refused(bpy, root, "is a copy of the sky's World")


@pytest.mark.parametrize(("text", "words"), [("日本", "cp1251"), ("a\x0cb", "lines"), ("a\u2028b", "lines"),
                                             ('say "hi"', "quotes")])
def test_a_text_the_file_cannot_hold_is_refused_without_a_traceback(blender, tmp_path, text, words):
    bpy = blender.bpy
    root = write(tmp_path, FILES)
    imported(bpy, root)
    bpy.data.objects["WayPoint1 camera"]["TextResID"] = text
    refused(bpy, root, words)


def test_a_text_cp1251_holds_and_a_long_one_are_written(blender, tmp_path):
    bpy = blender.bpy
    root = write(tmp_path, FILES)
    imported(bpy, root)
    bpy.data.objects["WayPoint1 camera"]["TextResID"] = "Брифинг"
    bpy.data.objects["WayPoint2 camera"]["SoundResID"] = "x" * 3000
    exported(bpy, root)
    points = parse_briefing((root / BRIEFING).read_bytes()).waypoints
    assert points[1].text("TextResID") == "Брифинг" and points[2].text("SoundResID") == "x" * 3000


@pytest.mark.parametrize(("key", "value"), [("EdgeType", [1, 2]), ("EdgeType", {"a": 1}), ("EdgeTime", 1e39),
                                            ("LoopIndex", 2.5)])
def test_a_property_of_a_kind_the_key_cannot_hold_is_refused(blender, tmp_path, key, value):
    bpy = blender.bpy
    root = write(tmp_path, FILES)
    imported(bpy, root)
    bpy.data.objects["WayPoint1 camera"][key] = value
    refused(bpy, root, "not text|not a number|not a whole number")


@pytest.mark.parametrize("how", ["excluded", "in no scene collection"])
def test_a_waypoint_moved_out_of_the_view_layer_is_still_written_where_it_stands(blender, tmp_path, how):
    bpy = blender.bpy
    root = write(tmp_path, FILES)
    imported(bpy, root)
    stand = bpy.data.objects["WayPoint1 camera"]
    elsewhere = bpy.data.collections.new("elsewhere")
    if how == "excluded":
        bpy.context.scene.collection.children.link(elsewhere)
        bpy.context.view_layer.layer_collection.children[elsewhere.name].exclude = True
    for collection in list(stand.users_collection):
        collection.objects.unlink(stand)
    elsewhere.objects.link(stand)
    stand.location.x += 5.0
    exported(bpy, root)
    point = parse_briefing((root / BRIEFING).read_bytes()).waypoints[1]
    assert point.camera == (45.0, 20.0, 30.0)


# ------------------------------------------------------------------------------------------ hostile files
def _sky(edit) -> bytes:
    sky = synthetic_sky(2, editor_session=True)
    edit(sky)
    return write_ske(sky)


def _two_bodies(sky) -> None:
    keys = sky.sections[0].keyframes
    keys[0] = replace(keys[0], opcode=0, names=(b"moon", *keys[0].names[1:]))  # the moon up from 00:00 too


def _version_1(sky) -> None:
    keys = sky.sections[0].keyframes
    keys[1] = replace(keys[1], version=1, slots=keys[1].slots[:20], effects=None)  # the sun's rise, 20 slots


def _nan_floats(sky) -> None:
    keys = sky.sections[0].keyframes
    nan = struct.unpack("<I", struct.pack("<f", math.nan))[0] | 0x1234
    keys[1] = replace(keys[1], floats=(nan,) * 4).with_slot(5, nan).with_slot(6, nan)


def _late(sky) -> None:
    keys = sky.sections[0].keyframes
    keys[1] = replace(keys[1], time=Time((0, 0, 0, 99, 77, 0, 0, 0)))


GOOD_SKY = FILES[SKY]
HOSTILE_SKIES = {
    "empty": b"", "truncated": GOOD_SKY[:-3], "cut in a keyframe": GOOD_SKY[:300],
    "bad magic": b"\0" * 4 + GOOD_SKY[4:], "version 4": GOOD_SKY[:4] + struct.pack("<I", 4) + GOOD_SKY[8:],
    "sections beyond the file": GOOD_SKY[:8] + struct.pack("<I", 0x7FFFFFFF) + GOOD_SKY[12:],
    "keyframes beyond the file": GOOD_SKY[:16] + struct.pack("<I", 0x0FFFFFFF) + GOOD_SKY[20:],
    "keyframe version 9": GOOD_SKY[:84] + struct.pack("<I", 9) + GOOD_SKY[88:],
    "no section": struct.pack("<3I", 0xFFFFFFFF, 5, 0) + b"\0" * 40,
    "trailing bytes": GOOD_SKY + b"\x01\x02\x03",
    "clock in section 7": _sky(lambda s: setattr(s, "start", Time((7, 0, 0, 1, 30, 0, 0, 0)))),
    "no keyframe": _sky(lambda s: [k.keyframes.clear() for k in s.sections]),
    "NaN floats": _sky(_nan_floats), "stamped 99:77": _sky(_late),
    "sun and moon up together": _sky(_two_bodies), "version-1 keyframe with the sun up": _sky(_version_1),
}
GOOD_BRIEFING = FILES[BRIEFING]
HOSTILE_BRIEFINGS = {
    "empty": b"", "comments only": b"// nothing\r\n; here\r\n# at all\r\n",
    "no end": GOOD_BRIEFING.replace(b"end\r\n", b"", 1), "end alone": b"end\r\n" + GOOD_BRIEFING,
    "object inside an object": GOOD_BRIEFING.replace(b"end\r\n", b"object X\r\n", 1),
    "garbage line": GOOD_BRIEFING.replace(b"    ZoomTime", b"    %%% ZoomTime", 1),
    "unknown key": GOOD_BRIEFING.replace(b"    ZoomOn", b"    Mystery = 5\r\n    ZoomOn", 1),
    "missing keys": GOOD_BRIEFING.replace(b"    ZoomTime = 0.000\r\n", b"", 1),
    "duplicate key": GOOD_BRIEFING.replace(b"    ZoomOn", b"    CameraX = 99.0\r\n    ZoomOn", 1),
    "words for numbers": GOOD_BRIEFING.replace(b"CameraX = 10.000", b"CameraX = abc", 1)
                                      .replace(b"EdgeTime = 4.00", b"EdgeTime = nan", 1)
                                      .replace(b"CameraY = 20.000", b"CameraY = 1e999", 1),
    "cp1251 undefined byte": GOOD_BRIEFING.replace(b"B01_T00", b"B01\x98T00"),
    "form feed in a value": GOOD_BRIEFING.replace(b"B01_T01", b"B01\x0cT01", 1),
    "lone CR": GOOD_BRIEFING.replace(b"\r\n", b"\r"), "LF": GOOD_BRIEFING.replace(b"\r\n", b"\n"),
    "BOM": b"\xef\xbb\xbf" + GOOD_BRIEFING, "no keys": b"object WayPoint0\r\nend\r\n",
    "flyaround that never turns": GOOD_BRIEFING.replace(b"RotateTime = 8.000", b"RotateTime = 0", 1),
    "loop to nowhere": GOOD_BRIEFING.replace(b"LoopIndex = -1", b"LoopIndex = 99", 1),
    "huge numbers": GOOD_BRIEFING.replace(b"CameraZ = 40.000", b"CameraZ = 1e39", 1),
    "unterminated quote": GOOD_BRIEFING.replace(b'"linear"', b'"linear', 1),
}


@pytest.mark.parametrize("name", list(HOSTILE_SKIES) + [f"briefing: {n}" for n in HOSTILE_BRIEFINGS])
def test_a_hostile_sky_or_briefing_imports_the_map_an_untouched_export_leaves_every_file_and_an_edit_is_its_own(
        blender, tmp_path, name):
    bpy = blender.bpy
    files = dict(FILES)
    if name.startswith("briefing: "):
        files[BRIEFING] = HOSTILE_BRIEFINGS[name.removeprefix("briefing: ")]
    else:
        files[SKY] = HOSTILE_SKIES[name]
    root = write(tmp_path, files)
    before = snapshot(root)
    top = imported(bpy, root)
    exported(bpy, root)
    assert snapshot(root) == before
    edit_over_a_hostile_file(bpy, root, top, before)


def edit_over_a_hostile_file(bpy, root: Path, top, before: dict[str, bytes]) -> None:
    """An edit, where the import showed something to edit: written into its own line or word, or refused."""
    from io_msh_ext.io_msh.imp.sky import shown_colour

    stand = bpy.data.objects.get("WayPoint0 camera")
    if stand is not None:
        stand.location.x += 1.0
    world = top.get("msh_sky_world")
    if world is not None:
        world.node_tree.nodes["slot 15"].outputs[0].default_value = shown_colour((1, 2, 3, 255))
    try:
        bpy.ops.export_scene.parkan_map(filepath=str(root / MISSION))
    except RuntimeError as exc:
        assert "Traceback" not in str(exc)
        assert snapshot(root) == before
        return
    after = snapshot(root)
    assert {n for n in after if after[n] != before[n]} <= {SKY, BRIEFING}
    if stand is not None:
        old, new = before[BRIEFING].splitlines(keepends=True), after[BRIEFING].splitlines(keepends=True)
        changed = [(a, b) for a, b in zip(old, new, strict=True) if a != b]
        assert len(changed) == 1 and b"CameraX" in changed[0][1], changed
    if world is not None:
        section, index = (int(v) for v in top["msh_sky_shown"])
        sky, was = parse_ske(after[SKY]), parse_ske(before[SKY])
        assert sky.sections[section].keyframes[index].colour(15)[:3] == (1, 2, 3)
        sky.sections[section].keyframes[index] = was.sections[section].keyframes[index]
        assert write_ske(sky) == before[SKY]


def test_a_key_the_file_lacks_cannot_be_added(blender, tmp_path):
    bpy = blender.bpy
    root = write(tmp_path, {**FILES, BRIEFING: HOSTILE_BRIEFINGS["missing keys"]})
    imported(bpy, root)
    stand = bpy.data.objects["WayPoint0 camera"]
    assert "ZoomTime" not in stand
    stand["ZoomTime"] = 2.0
    refused(bpy, root, "cannot add a key")


def test_sun_and_moon_up_together_each_lamp_edit_is_written_and_two_different_ones_refused(blender, tmp_path):
    bpy = blender.bpy
    root = write(tmp_path, {**FILES, SKY: HOSTILE_SKIES["sun and moon up together"]})
    top = imported(bpy, root)
    lamps = top["msh_sky_lamps"]
    assert sorted(lamps.keys()) == ["counter", "counter 2", "main", "main 2"]
    first, second = lamps["main"], lamps["main 2"]
    second.data.energy = 4.0
    exported(bpy, root)
    assert parse_ske((root / SKY).read_bytes()).sections[0].keyframes[1].values[2] == 4.0
    first.data.energy = 5.0
    refused(bpy, root, "different values")


def test_a_version_1_keyframe_shows_its_counter_light_as_the_game_makes_it_and_refuses_to_hold_an_edit(
        blender, tmp_path):
    from io_msh_ext.io_msh.imp.sky import shown_colour

    bpy = blender.bpy
    root = write(tmp_path, {**FILES, SKY: HOSTILE_SKIES["version-1 keyframe with the sun up"]})
    top = imported(bpy, root)
    key = parse_ske(FILES[SKY]).sections[0].keyframes[1]
    counter = top["msh_sky_lamps"]["counter"]
    red, green, blue, alpha = key.colour(19)
    made = shown_colour((int(red * 0.3), int(green * 0.3), int(blue * 0.3), alpha))[:3]
    assert tuple(counter.data.color) == pytest.approx(made)
    top["msh_sky_lamps"]["main"].data.energy = 2.0
    exported(bpy, root)
    assert parse_ske((root / SKY).read_bytes()).sections[0].keyframes[1].values[2] == 2.0
    counter.data.color = (1.0, 0.0, 0.0)
    refused(bpy, root, "no slot 21")


# ------------------------------------------------------------------------------------------ the sweep
def _f32(value: float) -> int:
    return int(np.float32(value).view(np.uint32))


def _same_number(a, b) -> bool:
    return bool(np.float32(a) == np.float32(b)) or (math.isnan(a) and math.isnan(b))


def _same_value(value, shown) -> bool:
    """What the export counts as unchanged: numbers (flags too) as float32, anything else equal."""
    numbers = (int, float)
    if isinstance(value, numbers) and isinstance(shown, numbers) and not isinstance(value, bool):
        return _same_number(value, shown)
    return value == shown


def _holdable(key: str, value) -> bool:
    """Whether briefing.cfg can hold ``value`` for ``key`` (what the export must write rather than refuse)."""
    if key in TEXT_KEYS:
        if not isinstance(value, str) or '"' in value or len(f"x{value}x".splitlines()) > 1 or "\0" in value:
            return False
        try:
            value.encode("cp1251")
        except UnicodeEncodeError:
            return False
        return True
    if key in FLAG_KEYS:
        return isinstance(value, bool)
    number = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and \
        abs(value) <= F32_MAX
    return number and (key != "LoopIndex" or value == int(value))


SKY_TIMES = ("", "07:00", "20:00", "00:10", "13:00")
SLOT_NAMES = tuple(f"slot {n}" for n in (1, 2, 3, 4, 7, 8, 9, 10, 11, 12, 13, 14, 15))
COLOUR_KINDS = ("bytes", "bytes", "unchanged", "negative", "huge", "nan")
NUMBER_KINDS = ("value", "unchanged", "negative", "huge", "nan")
PROPERTY_VALUES = {
    "number": (2.25, 3, -7.5, 1e6, math.nan, 1e39, "5", True),
    "text": ("linear", "Брифинг", "日本", 'a"b', "x" * 2000, "a\x0cb", 5, ""),
    "flag": (True, False, 1, "true"),
}
COLLECTIONS = ("sky collection", "new in the scene", "excluded", "in no scene collection")


def world_sweep(blender, base: Path):
    class CarelessWorldEdits(RuleBasedStateMachine):
        stats: Counter = Counter()

        @property
        def bpy(self):
            return blender.bpy

        @initialize(time=st.sampled_from(SKY_TIMES))
        def import_mission(self, time):
            self.root = Path(tempfile.mkdtemp(prefix="world_sweep_", dir=base))
            write(self.root, FILES)
            self.ours: dict[str, set[bytes]] = {SKY: set(), BRIEFING: set()}
            self._import(time)

        def _import(self, time: str) -> None:
            blender.clean_scene()
            assert self.bpy.ops.import_scene.parkan_map(filepath=str(self.root / MISSION), sky_time=time) == \
                {"FINISHED"}
            self.base = {name: (self.root / name).read_bytes() for name in (SKY, BRIEFING)}
            top = self.top()
            section, index = (int(v) for v in top["msh_sky_shown"])
            self.shown_at = (section, index)
            world = top["msh_sky_world"]
            # the model: what the scene should hold, set by the rules and never read back from the export
            self.model = {
                "world": True, "slots": {}, "mist": (world.mist_settings.start, world.mist_settings.depth),
                "lamps": {role: [*lamp.data.color, lamp.data.energy] for role, lamp in top["msh_sky_lamps"].items()},
                "points": self._parsed_points(), "deleted": set(), "copies": 0, "gone": set(), "world copies": [],
            }
            self.model["shown mist"] = self.model["mist"]
            self.model["shown lamps"] = copy.deepcopy(self.model["lamps"])
            self.model["shown points"] = copy.deepcopy(self.model["points"])
            self.history = [copy.deepcopy(self.model)]
            self.push("import")

        def _parsed_points(self) -> dict:
            from io_msh_ext.io_msh.imp.briefing import property_value

            points = {}
            for i, point in enumerate(parse_briefing(self.base[BRIEFING]).waypoints):
                values = dict(zip(POSITIONS, (*point.camera, *point.target), strict=True))
                values.update({key: property_value(point, key) for key in PROPERTY_KEYS if key in point.values})
                points[i] = values
            return points

        def teardown(self):
            try:
                if hasattr(self, "root"):
                    self._export()
            finally:
                blender.clean_scene()
                shutil.rmtree(getattr(self, "root", ""), ignore_errors=True)

        # ---------------------------------------------------------------- the scene, looked up at every use
        def window(self):
            return self.bpy.context.temp_override(window=self.bpy.context.window_manager.windows[0])

        def push(self, message: str) -> None:
            with self.window():
                self.bpy.ops.ed.undo_push(message=message)

        def edited(self, message: str) -> None:
            self.history.append(copy.deepcopy(self.model))
            self.push(message)
            self.stats[message] += 1

        def top(self):
            return next(c for c in self.bpy.data.collections if "msh_map" in c)

        def world(self):
            return self.top().get("msh_sky_world")

        def briefing_collection(self):
            return next(c for c in self.top().children if c.name.endswith(" briefing"))

        def lamp(self, role):
            return self.top()["msh_sky_lamps"].get(role)

        def empty(self, index: int, part: str):
            return self.top()["msh_briefing_points"].get(f"{index} {part}")

        def live_points(self) -> list[tuple[int, str]]:
            return [(i, part) for i in self.model["points"] for part in ("camera", "target")
                    if (i, part) not in self.model["gone"]]

        # ---------------------------------------------------------------- the sky
        @precondition(lambda self: self.model["world"])
        @rule(slot=st.sampled_from(SLOT_NAMES), kind=st.sampled_from(COLOUR_KINDS),
              rgb=st.tuples(*[st.integers(0, 255)] * 3))
        def colour_a_slot(self, slot, kind, rgb):
            from io_msh_ext.io_msh.imp.sky import shown_colour

            socket = self.world().node_tree.nodes[slot].outputs[0]
            value = {"bytes": shown_colour((*rgb, 255)), "unchanged": tuple(socket.default_value),
                     "negative": (-1.0, -0.5, -3.0, 1.0), "huge": (1e30, 5.0, 1e9, 1.0),
                     "nan": (math.nan, 0.5, 0.5, 1.0)}[kind]
            socket.default_value = value
            self.model["slots"][slot] = list(socket.default_value)[:3]
            self.edited(f"colour {kind}")

        @precondition(lambda self: self.model["world"])
        @rule(kind=st.sampled_from(NUMBER_KINDS), which=st.sampled_from(["start", "depth"]))
        def change_the_mist(self, kind, which):
            mist = self.world().mist_settings
            old = getattr(mist, which)
            setattr(mist, which, {"value": 350.0, "unchanged": old, "negative": -20.0, "huge": 1e9,
                                  "nan": math.nan}[kind])
            self.model["mist"] = (mist.start, mist.depth)
            self.edited(f"mist {which} {kind}")

        @precondition(lambda self: self.model["lamps"])
        @rule(which=st.integers(0, 3), what=st.sampled_from(["energy", "colour"]),
              kind=st.sampled_from(NUMBER_KINDS + COLOUR_KINDS))
        def change_a_lamp(self, which, what, kind):
            from io_msh_ext.io_msh.imp.sky import shown_colour

            role = sorted(self.model["lamps"])[which % len(self.model["lamps"])]
            light = self.lamp(role).data
            kind = kind if kind in (NUMBER_KINDS if what == "energy" else COLOUR_KINDS) else "unchanged"
            if what == "energy":
                light.energy = {"value": 2.5, "unchanged": light.energy, "negative": -3.0, "huge": 1e6,
                                "nan": math.nan}[kind]
            else:
                light.color = {"bytes": shown_colour((10, 200, 30, 255))[:3], "unchanged": tuple(light.color),
                               "negative": (-1.0, 0.0, 0.0), "huge": (1e30, 1.0, 1.0),
                               "nan": (math.nan, 0.0, 0.0)}[kind]
            self.model["lamps"][role] = [*light.color, light.energy]
            self.edited(f"lamp {what} {kind}")

        @precondition(lambda self: self.model["world"])
        @rule(how=st.sampled_from(["delete", "duplicate", "rename"]))
        def the_world(self, how):
            world = self.world()
            if how == "delete":
                self.bpy.data.worlds.remove(world)
                self.model["world"], self.model["slots"] = False, {}
                self.model["mist"] = self.model["shown mist"]
            elif how == "duplicate":  # World > New: the copy is the scene's; the sky's World is still edited
                self.bpy.context.scene.world = world.copy()
                self.model["world copies"].append((dict(self.model["slots"]), self.model["mist"]))
            else:
                world.name = "Мир"
            self.edited(f"world {how}")

        @precondition(lambda self: self.model["lamps"])
        @rule(which=st.integers(0, 3), how=st.sampled_from(["delete", "duplicate", "rename"]))
        def a_lamp(self, which, how):
            role = sorted(self.model["lamps"])[which % len(self.model["lamps"])]
            lamp = self.lamp(role)
            if how == "delete":
                self.bpy.data.objects.remove(lamp)
                del self.model["lamps"][role]
            elif how == "duplicate":
                twin = lamp.copy()
                twin.data = lamp.data.copy()
                lamp.users_collection[0].objects.link(twin)
            else:
                lamp.name = "солнце"
            self.edited(f"lamp {how}")

        # ---------------------------------------------------------------- the briefing
        @precondition(lambda self: self.live_points())
        @rule(which=st.integers(0, 11), delta=st.sampled_from([(2.5, 0.0, 0.0), (0.0, -1.25, 3.0)]))
        def move_a_waypoint(self, which, delta):
            index, part = self.live_points()[which % len(self.live_points())]
            obj = self.empty(index, part)
            obj.location = [a + b for a, b in zip(obj.location, delta, strict=True)]
            keys = POSITIONS[:3] if part == "camera" else POSITIONS[3:]
            for key, d in zip(keys, delta, strict=True):
                self.model["points"][index][key] = float(np.float32(self.model["points"][index][key] + d))
            self.edited("waypoint moved")

        @precondition(lambda self: self.live_points())
        @rule(which=st.integers(0, 5), key=st.sampled_from(PROPERTY_KEYS), pick=st.integers(0, 7))
        def set_a_property(self, which, key, pick):
            cameras = [i for i, part in self.live_points() if part == "camera"]
            if not cameras:
                return
            index = cameras[which % len(cameras)]
            kind = "text" if key in TEXT_KEYS else "flag" if key in FLAG_KEYS else "number"
            values = PROPERTY_VALUES[kind]
            value = values[pick % len(values)]
            if key in INTEGER_KEYS and pick == 0:
                value = 4
            if key == "LoopIndex" and pick == 3:
                value = 1
            self.empty(index, "camera")[key] = value
            self.model["points"][index][key] = value
            self.model["deleted"].discard((index, key))
            self.edited(f"property {kind} set")

        @precondition(lambda self: self.live_points())
        @rule(which=st.integers(0, 5), key=st.sampled_from(PROPERTY_KEYS), then_undo=st.booleans())
        def delete_a_property(self, which, key, then_undo):
            cameras = [i for i, part in self.live_points() if part == "camera"]
            if not cameras:
                return
            index = cameras[which % len(cameras)]
            camera = self.empty(index, "camera")
            if key in camera:
                del camera[key]
                self.model["deleted"].add((index, key))
            self.edited("property deleted")
            if then_undo:
                self.undo()

        @precondition(lambda self: self.live_points())
        @rule(which=st.integers(0, 11), how=st.sampled_from(["delete", "duplicate", "rename"]),
              then_undo=st.booleans())
        def a_waypoint_empty(self, which, how, then_undo):
            index, part = self.live_points()[which % len(self.live_points())]
            obj = self.empty(index, part)
            if how == "delete":
                self.bpy.data.objects.remove(obj)
                self.model["gone"].add((index, part))
            elif how == "duplicate":
                self.briefing_collection().objects.link(obj.copy())
                self.model["copies"] += 1
            else:
                obj.name = f"точка {index}"
            self.edited(f"waypoint {how}")
            if then_undo and how != "rename":
                self.undo()

        @precondition(lambda self: self.model["copies"])
        @rule()
        def delete_the_copies(self):
            made = {o.name for o in self.top()["msh_briefing_points"].values() if o is not None}
            for obj in [o for o in self.top().all_objects if "msh_briefing_waypoint" in o and o.name not in made]:
                self.bpy.data.objects.remove(obj)
            self.model["copies"] = 0
            self.edited("copies deleted")

        @precondition(lambda self: self.live_points())
        @rule(which=st.integers(0, 11), where=st.sampled_from(COLLECTIONS))
        def move_to_another_collection(self, which, where):
            index, part = self.live_points()[which % len(self.live_points())]
            obj = self.empty(index, part)
            scene = self.bpy.context.scene
            if where == "sky collection":
                target = next(c for c in self.top().children if c.name.endswith(" sky"))
            else:
                target = self.bpy.data.collections.new(where)
                if where != "in no scene collection":
                    scene.collection.children.link(target)
                if where == "excluded":
                    self.bpy.context.view_layer.layer_collection.children[target.name].exclude = True
            for collection in list(obj.users_collection):
                collection.objects.unlink(obj)
            target.objects.link(obj)
            self.edited(f"moved to {where}")

        @precondition(lambda self: self.live_points())
        @rule(offset=st.sampled_from([(10.0, 0.0, 0.0), (0.0, 4.0, -2.0)]))
        def parent_everything_under_a_moved_empty(self, offset):
            mover = self.bpy.data.objects.new("mover", None)
            mover["sweep_mover"] = True
            self.briefing_collection().objects.link(mover)
            points = [self.empty(i, part) for i, part in self.live_points()]
            lamps = [self.lamp(role) for role in self.model["lamps"]]
            earlier = [o for o in self.top().all_objects if "sweep_mover" in o and o is not mover and not o.parent]
            for obj in {o.name: o for o in [*points, *lamps, *earlier]}.values():
                if obj.parent is None:
                    obj.parent = mover
            mover.location = offset
            for index, part in self.live_points():
                keys = POSITIONS[:3] if part == "camera" else POSITIONS[3:]
                for key, d in zip(keys, offset, strict=True):
                    self.model["points"][index][key] = float(np.float32(self.model["points"][index][key] + d))
            self.edited("parented under a moved Empty")

        @precondition(lambda self: len(self.history) > 1)
        @rule()
        def undo(self):
            with self.window():
                assert self.bpy.ops.ed.undo() == {"FINISHED"}
            self.history.pop()
            self.model = copy.deepcopy(self.history[-1])
            self.stats["undo"] += 1

        # ---------------------------------------------------------------- another program, exports, imports
        @rule(name=st.sampled_from([SKY, BRIEFING]), then_export=st.booleans())
        def another_program_writes(self, name, then_export):
            path = self.root / name
            current = path.read_bytes()
            if name == SKY:
                sky = parse_ske(current)
                sky.unused += 1
                path.write_bytes(write_ske(sky))
            else:
                path.write_bytes(current + b"// another program\r\n")
            self.stats[f"another program wrote {name.rsplit('/', 1)[-1]}"] += 1
            if then_export:
                self._export()

        @rule(twice=st.booleans())
        def export(self, twice):
            self._export()
            if twice:
                self._export()

        @rule(time=st.sampled_from(SKY_TIMES))
        def import_again(self, time):
            self._import(time)
            self.stats["imported again"] += 1

        # ---------------------------------------------------------------- the invariant
        def _export(self) -> None:
            before = snapshot(self.root)
            cause = self._refusal()
            expected = {SKY: self._expected_sky(), BRIEFING: self._expected_briefing()} if cause is None else {}
            for name, data in expected.items():
                current = before[name]
                if data == current or (data == self.base[name] and current not in self.ours[name]):
                    continue  # nothing to write, or nothing of the scene changes it: another program's bytes kept
                if current not in self.ours[name] and current != self.base[name]:
                    cause = "changed on disk"
            try:
                result = self.bpy.ops.export_scene.parkan_map(filepath=str(self.root / MISSION))
            except RuntimeError as exc:
                assert "Traceback" not in str(exc), str(exc)
                assert cause is not None, f"refused with nothing to refuse: {exc}"
                assert snapshot(self.root) == before
                self.stats[f"refused: {cause}"] += 1
                return
            assert result == {"FINISHED"}
            assert cause is None, f"written, though it should refuse: {cause}"
            after = snapshot(self.root)
            for name in before:
                if name not in expected:
                    assert after[name] == before[name], name
            for name, data in expected.items():
                now = after[name]
                if now != before[name]:
                    self.ours[name].add(now)
                    assert now == data, name
                else:
                    assert now in (data, before[name])
                    if data != now:  # kept: another program's bytes, the scene holds nothing against them
                        assert data == self.base[name]
            self.stats["written"] += 1

        def _refusal(self) -> str | None:
            m = self.model
            if m["gone"]:
                return "waypoint deleted"
            if m["copies"]:
                return "waypoint copied"
            if m["deleted"]:
                return "property deleted"
            for index, values in m["points"].items():
                for key, value in values.items():
                    if not _same_value(value, m["shown points"][index].get(key)) and not _holdable(key, value):
                        return f"{key} = {value!r}"
            for slots, mist in m["world copies"]:
                names = set(slots) | set(m["slots"])
                now = [m["slots"].get(n, self.shown_slot(n)) for n in names]
                copied = [slots.get(n, self.shown_slot(n)) for n in names]
                if not all(_same_number(a, b) for x, y in zip(now, copied, strict=True)
                           for a, b in zip(x, y, strict=True)) or \
                        not all(_same_number(a, b) for a, b in zip(mist, m["mist"], strict=True)):
                    return "World copy edited apart"
            for rgb in m["slots"].values():
                if any(math.isnan(c) for c in rgb):
                    return "NaN colour"
            for role, values in m["lamps"].items():
                shown = m["shown lamps"][role]
                if not all(_same_number(a, b) for a, b in zip(values[:3], shown[:3], strict=True)) and \
                        any(math.isnan(c) for c in values[:3]):
                    return "NaN lamp colour"
            return None

        def _expected_sky(self) -> bytes:
            m = self.model
            sky = parse_ske(self.base[SKY])
            section, index = self.shown_at
            key = sky.sections[section].keyframes[index]
            shown_slots = {name: list(self.shown_slot(name)) for name in m["slots"]}

            def coloured(key, slot, rgb, was):
                if all(_same_number(a, b) for a, b in zip(rgb, was, strict=True)):
                    return key
                display = []
                for c in rgb:
                    c = max(0.0, c)
                    s = c * 12.92 if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055
                    display.append(int(min(255, max(0, round(s * 255)))))
                return key.with_colour(slot, (*display, key.colour(slot)[3]))

            for name, rgb in m["slots"].items():
                key = coloured(key, int(name.split()[1]), rgb, shown_slots[name])
            (start, depth), (was_start, was_depth) = m["mist"], m["shown mist"]
            if not _same_number(start, was_start):
                key = key.with_slot(5, _f32(start / 700.0))
            if not _same_number(start + depth, was_start + was_depth):
                key = key.with_slot(6, _f32((start + depth) / 700.0))
            for role, values in m["lamps"].items():
                shown = m["shown lamps"][role]
                key = coloured(key, 19 if role.startswith("main") else 21, values[:3], shown[:3])
                if role.startswith("main") and not _same_number(values[3], shown[3]):
                    floats = list(key.floats)
                    floats[2] = _f32(values[3])
                    key = replace(key, floats=tuple(floats))
            if key == sky.sections[section].keyframes[index]:
                return self.base[SKY]
            sky.sections[section].keyframes[index] = key
            return write_ske(sky)

        def shown_slot(self, name):
            from io_msh_ext.io_msh.imp.sky import shown_colour

            section, index = self.shown_at
            key = parse_ske(self.base[SKY]).sections[section].keyframes[index]
            return shown_colour(key.colour(int(name.split()[1])))[:3]

        def _expected_briefing(self) -> bytes:
            """The base's lines, each changed key's line holding the model's value; checked by parsing."""
            m = self.model
            lines = self.base[BRIEFING].split(b"\r\n")
            base = parse_briefing(self.base[BRIEFING])
            changed = {}
            for index, values in m["points"].items():
                for key, value in values.items():
                    if not _same_value(value, m["shown points"][index].get(key)):
                        changed[(index, key)] = value
            if not changed:
                return self.base[BRIEFING]
            self._briefing_check = (changed, base, lines)
            return _Briefing(changed, base, lines)

    return CarelessWorldEdits


class _Briefing(bytes):
    """Stands for the expected briefing.cfg: equal to bytes whose every line but the changed keys' is the base's,
    and whose changed keys hold the model's values (numbers as float32)."""

    def __new__(cls, changed, base, lines):
        made = super().__new__(cls, b"\0expected briefing")
        made.changed, made.base, made.lines = changed, base, lines
        return made

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other) -> bool:
        if isinstance(other, _Briefing):
            return other is self
        new_lines = bytes(other).split(b"\r\n")
        if len(new_lines) != len(self.lines):
            return False
        try:
            points = parse_briefing(bytes(other)).waypoints
        except Exception:
            return False
        at = {self.base.waypoints[i].lines[key]: (i, key) for i, key in self.changed}
        for number, (old, new) in enumerate(zip(self.lines, new_lines, strict=True)):
            if number not in at:
                if old != new:
                    return False
                continue
            index, key = at[number]
            value, point = self.changed[(index, key)], points[index]
            if key in TEXT_KEYS:
                ok = point.text(key) == value
            elif key in FLAG_KEYS:
                ok = point.flag(key) == value
            else:
                ok = _same_number(point.number(key), value)
            if not ok:
                return False
        return True

    def __ne__(self, other) -> bool:
        return not self.__eq__(other)


def test_careless_sky_and_briefing_edits_are_written_or_refused(blender, tmp_path):
    machine = world_sweep(blender, tmp_path)
    run_state_machine_as_test(machine, settings=settings(
        max_examples=EXAMPLES, stateful_step_count=STEPS, derandomize=True, database=None, deadline=None,
        suppress_health_check=list(HealthCheck)))
    print(dict(machine.stats))


@pytest.mark.parametrize("ground", [True, False])
def test_the_whole_map_parented_under_a_moved_empty(blender, tmp_path, ground):
    """With the ground it is refused (the ground moves by its vertices only), nothing written; without it the
    waypoints are written where they now stand, the sky as it was."""
    bpy = blender.bpy
    root = write(tmp_path, FILES)
    top = imported(bpy, root)
    mover = bpy.data.objects.new("mover", None)
    bpy.context.scene.collection.objects.link(mover)
    floors = set(top["msh_map_ground"].values())
    for obj in top.all_objects:
        if obj.parent is None and (ground or obj not in floors):
            obj.parent = mover
    mover.location = (0.0, 0.0, 3.0)
    if ground:
        refused(bpy, root, "moved, turned or scaled as an object")
        return
    exported(bpy, root)
    old, new = parse_briefing(FILES[BRIEFING]).waypoints, parse_briefing((root / BRIEFING).read_bytes()).waypoints
    for was, now in zip(old, new, strict=True):
        assert now.camera == (was.camera[0], was.camera[1], was.camera[2] + 3.0)
        assert now.target == (was.target[0], was.target[1], was.target[2] + 3.0)
    assert (root / SKY).read_bytes() == FILES[SKY]
