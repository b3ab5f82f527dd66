"""The ``.ctl`` codec, its validator, the clips the anchors plan, step timing, the game's pose
at a step (bit for bit with ``sampler.blend``), and the ``clips`` / ``sample --clip`` commands."""

import json
import struct
import tracemalloc

import numpy as np
import pytest
from fixtures import run_cli as run

from core.animation.controller import (
    clips_of,
    load_costs,
    parse_controller,
    plan_cycle,
    pose_at_step,
    read_controller,
    step_at,
    validate_controller,
)
from core.animation.controller.clips import channel_frame
from core.animation.controller.codec import (
    ANCHOR,
    BY_VELOCITY,
    CTLD_TYPE_ID,
    FIXED_STEP,
    HEADER_BYTES,
    NO_EDGE,
    STATE,
    Controller,
)
from core.animation.controller.graph import reachable_from_anchors
from core.animation.pose import pose_matrix
from core.animation.sampler import AnimationData, blend
from core.authoring.build import build_model
from core.authoring.controllers import (
    RUN_STEP,
    WALK_STEP,
    WALKER_CLIPS,
    component,
    state,
    walker_controller,
    walker_model,
)
from core.container.nres import Archive
from core.errors import FormatError

F32 = np.float32
MB = 2 ** 20


@pytest.fixture(scope="module")
def walker():
    return walker_controller()


@pytest.fixture(scope="module")
def data():
    return AnimationData.from_model(build_model(walker_model()))


# ----------------------------------------------------------------- the codec
def test_synthetic_controller_round_trips_byte_for_byte(walker):
    raw = walker.to_bytes()
    again, findings = read_controller(raw, "walker.ctl")
    assert findings == []
    assert again.to_bytes() == raw
    assert again.counts == (11, 2, 2, 2, 1)


def test_unknown_words_and_odd_bytes_survive_the_round_trip(walker):
    """Runtime words, the unread parameter words, bytes after a name's NUL, NaN payloads, trailing bytes."""
    c = read_controller(walker.to_bytes())[0]
    rng = np.random.default_rng(7)
    c.states["runtime"] = rng.integers(0, 2 ** 32, c.states["runtime"].shape, dtype=np.uint64).astype(np.uint32)
    c.states["byte_11"] = 0xAB
    c.contacts["word_12"] = 0xDEADBEEF
    c.params["word_96"] = (1, 0x7FC01234)
    c.costs.view(np.uint32)[3, 4] = 0x7FC0BEEF  # a NaN with a payload
    c.components[0].fixed["archive"] = b"a\0junk after the NUL"
    c.groups[0]["member"] = b"step.eff\0\x01\x02"
    c.trailing = b"\x01\x02\x03"
    raw = c.to_bytes()
    again, findings = read_controller(raw)
    assert again.to_bytes() == raw
    assert any("follow section 5" in f.message for f in findings)


def test_layout_offsets_follow_the_digest(walker):
    """2.1/2.2: counts at +0, state records from +128 (pairs at +0x0C/+0x14, length +0x20), the A*A table after
    them, 36-byte channels, variable components (176 + 4N + 4 + L + 1), the 84-byte block, 100-byte actions."""
    raw = walker.to_bytes()
    a, b, c, d, e = struct.unpack_from("<5i", raw)
    assert (a, b, c, d, e) == (11, 2, 2, 2, 1)
    record = 156 + 16 * b
    at = HEADER_BYTES + 9 * record
    assert struct.unpack_from("<2f", raw, at + 0x0C) == (14.0, 15.0)
    assert struct.unpack_from("<2f", raw, at + 0x14) == (22.0, 26.0)
    assert struct.unpack_from("<f", raw, at + 0x20) == (120.0,)
    assert struct.unpack_from("<I", raw, at + 0x04) == (0,)
    costs = HEADER_BYTES + a * record
    assert struct.unpack_from("<f", raw, costs + 4 * (3 * a + 2)) == (0.0,)  # cost(to 3, from 2)
    assert struct.unpack_from("<f", raw, costs + 4 * (2 * a + 3)) == (float(NO_EDGE),)
    channels = costs + 4 * a * a
    assert struct.unpack_from("<iff", raw, channels) == (1, 32.0, 36.0)
    components = channels + 36 * c
    first = 176 + 4 * 2 + 4                 # two channel indices, no label
    second = 176 + 4 * 1 + 4 + len("i_c01_t") + 1
    assert struct.unpack_from("<i", raw, components + first + 176 + 4) == (len("i_c01_t"),)
    block = components + first + second
    assert struct.unpack_from("<21i", raw, block)[:2] == (0, -1)
    assert struct.unpack_from("<i", raw, block + 84) == (1,)
    assert len(raw) == block + 84 + 4 + 100


# ------------------------------------------------------------------ hostile
@pytest.mark.parametrize("which", range(5))
def test_counts_past_the_end_are_clean_errors_with_bounded_memory(walker, which):
    raw = bytearray(walker.to_bytes())
    struct.pack_into("<i", raw, 4 * which, 0x7FFFFFFF)
    tracemalloc.start()
    try:
        with pytest.raises(FormatError) as caught:
            read_controller(bytes(raw), "big.ctl")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 * MB
    assert "runs past the end" in str(caught.value) or "bytes at byte" in str(caught.value)


@pytest.mark.parametrize("which", range(5))
def test_negative_counts_are_refused(walker, which):
    raw = bytearray(walker.to_bytes())
    struct.pack_into("<i", raw, 4 * which, -3)
    with pytest.raises(FormatError, match=f"count {'ABCDE'[which]} is -3"):
        read_controller(bytes(raw))


def test_every_truncation_and_random_mutation_gives_a_result_or_a_format_error(walker, data):
    raw = walker.to_bytes()
    for size in range(len(raw)):
        with pytest.raises(FormatError):
            read_controller(raw[:size])
    rng = np.random.default_rng(21)
    for _ in range(300):
        mutated = bytearray(raw)
        for at in rng.integers(0, len(raw), int(rng.integers(1, 12))):
            mutated[at] = int(rng.integers(0, 256))
        try:
            controller, _findings = read_controller(bytes(mutated))
        except FormatError:
            continue
        assert controller.to_bytes() == bytes(mutated)
        try:
            for clip in clips_of(controller, data):
                pose_at_step(data, controller, step_at(controller, clip, 1.5))
        except FormatError:
            pass


def small(states, edges, anchors_box=None) -> Controller:
    a = len(states)
    costs = np.full((a, a), NO_EDGE, "<f4")
    for (to, source), cost in edges.items():
        costs[to, source] = cost
    return Controller(states=np.array(states), contacts=np.zeros((a, 0), walker_controller().contacts.dtype),
                      costs=costs)


def test_zero_cost_cycles_unreachable_states_and_anchors_without_a_way_back_are_findings():
    states = [state(ANCHOR | FIXED_STEP, (2.0, 2.0), (2.0, 2.0), 50.0), state(FIXED_STEP, length_ms=50.0),
              state(FIXED_STEP, length_ms=50.0), state(ANCHOR | FIXED_STEP, length_ms=50.0),
              state(FIXED_STEP, length_ms=50.0)]
    # 0 -> 1 -> 2 -> 1 ... a zero-cost loop of non-anchors that never leads back; 3 has no edge; 4 unreachable.
    c = small(states, {(1, 0): 0.0, (2, 1): 0.0, (1, 2): 0.0, (4, 4): 0.0})
    findings = validate_controller(c)
    messages = [f"{f.stream}[{f.index}] {f.message}" for f in findings]
    assert any(m.startswith("state[0] anchor has no way back") for m in messages)
    assert any(m.startswith("state[3] anchor has no way back") for m in messages)
    assert any(m.startswith("state[4] 1 states no anchor can reach") for m in messages)
    assert all(not f.is_error for f in findings)
    assert clips_of(c) == []
    assert reachable_from_anchors(load_costs(c), c.anchors).tolist() == [True, True, True, True, False]


def test_nan_frames_zero_step_lengths_and_bad_costs(data):
    nan = float("nan")
    states = [state(ANCHOR | BY_VELOCITY, (-1.0, -1.0), (nan, 3.0), 0.0),   # NaN frame; length from stride/speed
              state(ANCHOR | FIXED_STEP, (2.0, 2.0), (2.0, 2.0), 0.0)]      # fixed step of 0 ms
    c = small(states, {(0, 0): 1.0, (1, 1): nan, (0, 1): -1.0})
    findings = validate_controller(c)
    text = "\n".join(f.format("x.ctl") for f in findings)
    assert "state[0]: warning: frames [-1.0, -1.0, nan, 3.0] are not all finite" in text
    assert "state[1]: warning: fixed step of 0 ms" in text
    assert "2 costs are negative or not finite" in text
    clips = clips_of(c, data)
    assert [clip.states for clip in clips] == [[0]]        # 1's diagonal is NaN: no edge, no clip
    assert clips[0].duration_ms == 5000.0                  # no speed in its box: held at the longest step
    step = step_at(c, clips[0], 0.5)
    assert np.isnan(step.frame_b)
    pose = pose_at_step(data, c, step)                     # neither frame is taken: no pose, and no exception
    assert np.isnan(pose).all()
    fixed = small([states[1]], {(0, 0): 1.0})
    assert clips_of(fixed, data)[0].duration_ms == 10.0    # a fixed 0 ms step is held to the shortest


def test_component_indices_out_of_range_are_errors_and_group_indices_warnings(walker):
    """Every retail component has a class 1..30 and channel entries inside its controller (errors); no source
    published the range of group indices (warnings). The tolerant read keeps every record as read."""
    c = read_controller(walker.to_bytes())[0]
    c.components.append(component(31, 0, [5]))
    c.group_block[3] = 4
    c.states["entry_group"][1] = 9
    c.states["entry_group"][4] = 8
    findings = validate_controller(c)
    errors = sorted(f.format() for f in findings if f.is_error)
    assert errors == ["component[2]: error: channel index 5 of 2 channels (kept; it drives nothing)",
                      "component[2]: error: class 31; the factory makes classes 1..30"]
    warnings = [f.format() for f in findings if not f.is_error]
    assert "groups[3]: warning: group index 4 of 1: no group runs (kept as read)" in warnings
    assert ("state[1]: warning: entry group 9 of 1: no group runs (kept as read) (and 1 more state like it)"
            in warnings)
    with pytest.raises(FormatError):
        parse_controller(c.to_bytes(), "bad.ctl")
    kept, _ = read_controller(c.to_bytes(), "bad.ctl")
    assert kept.to_bytes() == c.to_bytes() and len(kept.components) == 3


def test_a_model_checks_channel_nodes_and_frames(walker):
    findings = validate_controller(walker, node_count=2, frame_count=20)
    text = [f.format() for f in findings]
    assert "channel[1]: warning: node 2 of a 2-node model: the channel poses no node" in text
    assert any(t.startswith("state[8]: warning: frames") and "past the model's 20 frames" in t for t in text)


# --------------------------------------------------------------------- clips
def test_the_walker_plans_stand_walk_and_run_cycles(walker, data):
    clips = clips_of(walker, data)
    assert [clip.states for clip in clips] == WALKER_CLIPS
    stand, walk, run = clips
    assert (stand.duration_ms, stand.stride) == (50.0, 0.0)
    assert walk.speed == 4.0 and run.speed == 10.0                 # the anchors' box centres
    # Walk: two frames a step at 0.15 per frame, timed by stride / speed.
    for step in walk.steps:
        assert step.stride == pytest.approx(2 * WALK_STEP, abs=1e-6)
        assert step.duration_ms == pytest.approx(2 * WALK_STEP / 4.0 * 1000, abs=1e-3)
    assert walk.duration_ms == pytest.approx(300.0, abs=1e-3)
    # Run: four frames a step at 0.25; state 9 blends toward B by 0.75 and has a set 120 ms.
    assert [s.q for s in run.steps] == [1.0, 1.0, 0.75, 1.0]
    assert run.steps[2].duration_ms == 120.0
    # Pair A (14, 15): one frame forward and the bob from sin(7 pi) to sin(7.5 pi) down by 0.05.
    assert run.steps[2].stride == pytest.approx(0.25 * np.hypot(RUN_STEP, 0.05) + 0.75 * 4 * RUN_STEP, abs=1e-6)
    assert run.duration_ms == pytest.approx(100 + 100 + 120 + 100, abs=1e-3)


def test_the_planner_uses_the_costs_as_scaled_at_load():
    """File costs favour going through state 1; the load scaling (1 + |centre(dest) - min(source)|) makes the
    way through state 2 cheaper, and the game plans over the scaled table."""
    anchor = state(ANCHOR | BY_VELOCITY, pair_b=(0.0, 1.0), velocity_y=(0.0, 2.0))
    far = state(BY_VELOCITY, pair_b=(1.0, 2.0))
    far["velocity_min"], far["velocity_max"] = (0, 8, 0), (0, 12, 0)
    near = state(BY_VELOCITY, pair_b=(1.0, 2.0))
    near["velocity_min"], near["velocity_max"] = (0, 0, 0), (0, 2, 0)
    c = small([anchor, far, near], {(1, 0): 1.0, (0, 1): 1.0, (2, 0): 1.5, (0, 2): 1.5})
    file_costs = np.where(c.costs >= NO_EDGE, np.inf, c.costs).astype(F32)
    assert plan_cycle(file_costs, 0) == [1, 0]
    live = load_costs(c)
    assert live[1, 0] == F32(1) * F32(1 + 10)   # centre 10 - source min 0
    assert live[2, 0] == F32(1.5) * F32(1 + 1)
    assert live[0, 1] == F32(1)                 # state 1 switches no box on: no gap
    assert [clip.states for clip in clips_of(c)] == [[0, 2]]


def test_a_cost_that_scales_past_the_threshold_is_no_edge():
    anchor = state(ANCHOR | BY_VELOCITY, pair_b=(0.0, 1.0), velocity_y=(0.0, 0.0))
    other = state(BY_VELOCITY, pair_b=(0.0, 1.0), velocity_y=(4.0, 4.0))
    c = small([anchor, other], {(1, 0): 400_000.0, (0, 1): 1.0})
    assert load_costs(c)[1, 0] == np.inf          # 400000 * (1 + 4) >= 1e6
    assert clips_of(c) == []


# --------------------------------------------------------------------- poses
def expected_step(c: Controller, clip, step: float):
    """2.4 by hand, in float32."""
    whole = int(np.floor(step))
    position = whole % len(clip.steps)
    s = F32(step - whole)
    record = c.states[clip.states[position]]
    a0, a1 = (F32(v) for v in record["pair_a"])
    b0, b1 = (F32(v) for v in record["pair_b"])
    u = min(F32(4) * s, F32(1))
    q, q_prev = F32(clip.steps[position].q), F32(clip.steps[position - 1].q)
    return a0 + s * (a1 - a0), b0 + s * (b1 - b0), (F32(1) - u) * q_prev + u * q


@pytest.mark.parametrize("clip_index,steps", [(0, [0.0, 0.5, 3.25]), (1, [0.0, 0.1, 1.5, 3.99, 4.2]),
                                              (2, [0.05, 1.7, 2.1, 2.3, 2.9, 3.5, -0.5])])
def test_the_pose_at_a_step_is_the_runtime_blend_bit_for_bit(walker, data, clip_index, steps):
    clip = clips_of(walker, data)[clip_index]
    for step in steps:
        frame_a, frame_b, weight = expected_step(walker, clip, step)
        got = step_at(walker, clip, step)
        assert (got.frame_a, got.frame_b, got.weight) == (frame_a, frame_b, weight)
        moving = pose_at_step(data, walker, got, in_place=False)
        drawn = pose_at_step(data, walker, got)
        for node in (0, 3, 4):   # the body and legs follow the state; 1 and 2 play their channels
            want = blend(data, node, float(frame_a), float(frame_b), float(weight))
            assert moving[node].tobytes() == want.astype(F32).tobytes()
        assert drawn[0, :3, 3].tolist() == [0.0, 0.0, 0.0]   # the game clears node 0's translation
        assert drawn[0, :3, :3].tobytes() == moving[0, :3, :3].tobytes()
        assert drawn[3:].tobytes() == moving[3:].tobytes()
        # Channels: yaw (wrap + invert) at 0.5 plays frame 34; pitch at 0.25 plays frame 38.5.
        assert moving[1].tobytes() == blend(data, 1, -1.0, 34.0, 1.0).astype(F32).tobytes()
        assert moving[2].tobytes() == blend(data, 2, -1.0, 38.5, 1.0).astype(F32).tobytes()


def test_weights_ramp_from_the_previous_step(walker, data):
    run = clips_of(walker, data)[2]
    # State 9 (q 0.75) after state 8 (q 1): u = min(4 s, 1).
    assert step_at(walker, run, 2.1).weight == F32(0.6) * F32(1) + F32(0.4) * F32(0.75)
    assert step_at(walker, run, 2.25).weight == F32(0.75)
    # State 10 (q 1) after state 9: back toward 1 over the first quarter.
    assert step_at(walker, run, 3.125).weight == F32(0.5) * F32(0.75) + F32(0.5) * F32(1)


def test_channel_frames(walker):
    yaw, pitch = walker.channels
    assert [float(channel_frame(yaw, v)) for v in (0.0, 0.25, 1.25)] == [36.0, 35.0, 35.0]  # wrap, then 1 - v
    assert [float(channel_frame(pitch, v)) for v in (-1.0, 0.5, 2.0)] == [38.0, 39.0, 40.0]  # clamped
    channel_values = {0: 0.0, 1: 1.0}
    data = AnimationData.from_model(build_model(walker_model()))
    step = step_at(walker, clips_of(walker, data)[0], 0.0)
    pose = pose_at_step(data, walker, step, nodes=[1, 2], channel_values=channel_values)
    assert pose[0].tobytes() == blend(data, 1, -1.0, 36.0, 1.0).astype(F32).tobytes()
    assert pose[1].tobytes() == blend(data, 2, -1.0, 40.0, 1.0).astype(F32).tobytes()


def test_too_many_states_to_plan_is_a_clean_error():
    many = 600
    c = Controller(states=np.zeros(many, STATE), contacts=np.zeros((many, 0), walker_controller().contacts.dtype),
                   costs=np.full((many, many), NO_EDGE, "<f4"))
    with pytest.raises(FormatError, match="at most 512"):
        clips_of(c)
    assert [f.message for f in validate_controller(c) if not f.is_error] == [
        "entry group 0 of 0: no group runs (kept as read) (and 599 more states like it)",
        "600 states: the planner is run over at most 512, so the transition graph is not checked"]


# ----------------------------------------------------------------------- CLI
@pytest.fixture
def files(tmp_path, walker):
    model = build_model(walker_model()).to_bytes()
    (tmp_path / "walker.msh").write_bytes(model)
    (tmp_path / "WALKER.CTL").write_bytes(walker.to_bytes())
    (tmp_path / "lone.msh").write_bytes(model)
    archive = Archive()
    archive.add("walker.msh", model)
    archive.add("walker.ctl", walker.to_bytes(), CTLD_TYPE_ID)
    (tmp_path / "unit.rlb").write_bytes(archive.to_bytes())
    bad = read_controller(walker.to_bytes())[0]
    bad.group_block[0] = 7
    (tmp_path / "bad.ctl").write_bytes(bad.to_bytes())
    (tmp_path / "short.ctl").write_bytes(walker.to_bytes()[:300])
    return {p.name: str(p) for p in tmp_path.iterdir()}




def test_clips_command_lists_states_and_clips(capsys, files, walker, data):
    code, out, err = run(capsys, "clips", files["walker.msh"])   # finds WALKER.CTL beside it, any case
    assert code == 0, err
    assert "11 states (3 anchors), 2 contacts, 2 channels, 2 components, 1 groups" in out
    assert "clip 1: anchor 2, states [2, 3, 4, 5], speed 4 m/s, 300 ms, stride 1.2" in out
    assert "  step 2: state 9  A 14..15  B 22..26  q 0.75  120 ms  stride 0.813" in out
    code, out, _ = run(capsys, "clips", files["walker.msh"], "--json")
    payload = json.loads(out)
    assert [c["states"] for c in payload["clips"]] == WALKER_CLIPS
    want = clips_of(walker, data)
    assert [c["duration_ms"] for c in payload["clips"]] == [c.duration_ms for c in want]
    assert [c["stride"] for c in payload["clips"]] == [c.stride for c in want]
    assert payload["states"][9]["pair_a"] == [14.0, 15.0]


def test_clips_from_a_ctl_alone_an_archive_and_explicit_ctl(capsys, files):
    code, out, _ = run(capsys, "clips", files["WALKER.CTL"], "--json")
    payload = json.loads(out)
    assert code == 0 and payload["model"] is None
    assert payload["clips"][1]["duration_ms"] is None and payload["clips"][0]["duration_ms"] == 50.0
    code, out, _ = run(capsys, "clips", files["unit.rlb"])
    assert code == 0 and "unit.rlb:walker.ctl: 11 states" in out
    code, out, err = run(capsys, "clips", files["lone.msh"])
    assert code == 2 and "give one with --ctl FILE" in err
    code, out, _ = run(capsys, "clips", files["lone.msh"], "--ctl", files["WALKER.CTL"], "--speed", "6")
    assert code == 0 and "clip 1: anchor 2, states [2, 3, 4, 5], speed 6 m/s, 200 ms" in out
    code, out, err = run(capsys, "clips", files["bad.ctl"])  # an index no group answers: reported, clips shown
    assert code == 0 and "groups[0]: warning: group index 7 of 1: no group runs (kept as read)" in err


def test_sample_clip_step_gives_the_pose_at_that_step(capsys, files, walker, data):
    code, out, err = run(capsys, "sample", files["walker.msh"], "--clip", "2", "--step", "2.1", "--json")
    assert code == 0, err
    payload = json.loads(out)
    step = step_at(walker, clips_of(walker, data)[2], 2.1)
    assert (payload["state"], payload["frame_a"], payload["frame_b"], payload["weight"]) == (
        9, float(step.frame_a), float(step.frame_b), float(step.weight))
    pose = pose_at_step(data, walker, step)  # the matrices the printed rotation and position make, bit for bit
    assert all(n["rot"] is not None for n in payload["nodes"])
    made = pose_matrix(np.array([n["rot"] for n in payload["nodes"]], np.float32),
                       np.array([n["pos"] for n in payload["nodes"]], np.float32))
    assert np.array_equal(made, pose)
    code, out, _ = run(capsys, "sample", files["walker.msh"], "--clip", "1", "--step", "0", "--nodes", "3")
    assert code == 0 and out.startswith("clip 1 step 0: state 2") and "node 3 leg_l" in out
    assert run(capsys, "sample", files["walker.msh"], "--clip", "3", "--step", "0")[0] == 2
    code, _, err = run(capsys, "sample", files["walker.msh"], "--clip", "1")
    assert code == 2 and "--clip needs --step" in err
    code, _, err = run(capsys, "sample", files["walker.msh"], "--clip", "1", "--step", "nan")
    assert code == 2
    assert run(capsys, "sample", files["walker.msh"], "--times", "1,2", "--nodes", "0")[0] == 0  # unchanged


def test_validate_and_roundtrip_take_ctl_files_and_ctld_entries(capsys, files):
    code, out, _ = run(capsys, "validate", files["WALKER.CTL"], files["unit.rlb"])
    assert code == 0 and out.count("valid: 0 errors, 0 warnings") == 2
    code, out, err = run(capsys, "validate", files["bad.ctl"])
    assert code == 0 and "bad.ctl: groups[0]: warning: group index 7 of 1: no group runs (kept as read)" in out
    code, out, err = run(capsys, "validate", "--strict", files["bad.ctl"])
    assert code == 1 and "refused by the strict profile" in out
    code, _, err = run(capsys, "validate", files["short.ctl"])
    assert code == 1 and "runs past the end" in err
    code, out, _ = run(capsys, "roundtrip", files["WALKER.CTL"], files["unit.rlb"], files["bad.ctl"])
    assert code == 0 and out.count("identical") == 3
    code, _, err = run(capsys, "roundtrip", files["short.ctl"])
    assert code == 1 and "runs past the end" in err
