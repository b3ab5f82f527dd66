"""The frame count never drives memory; FAITHFUL keys only the frames that change the pose.
Nor does it drive the export's after one node is keyed."""

import importlib
import json
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from fixtures import generated, load_extension, shared_map_model
from test_import import import_file, node_matrices

from core.animation.sampler import AnimationData, sample, world_matrices_at
from core.animation.tracks import read_animation
from core.authoring import synth
from core.files import read_container
from core.msh.model import Model

load_extension()
plan = importlib.import_module("io_msh_ext.io_msh.imp.plan")
animation_plan = importlib.import_module("io_msh_ext.io_msh.imp.animation")
C = importlib.import_module("io_msh_ext.io_msh.com.conversion")
plan_frames = importlib.import_module("io_msh_ext.io_msh.exp.frames")
MB = 2 ** 20


def planned(data: bytes, **options):
    """The import plan and the peak of memory allocated while making it."""
    container = read_container(data, "m.msh")
    tracemalloc.start()
    try:
        result = plan.plan_model(container, None, plan.ImportOptions(**options))
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def worst_reproduction(model: Model, channels, frames: np.ndarray) -> tuple[float, float]:
    """Largest difference, at ``frames``, between the runtime's local pose and the linear F-curves
    (EMPTIES terms): (location relative to max(1, |location|), quaternion component)."""
    data = AnimationData.from_model(model)
    worst_location = worst_rotation = 0.0
    for channel in channels:
        s = sample(data, frames, [channel.node])
        runtime_rot = C.blender_quaternions(s.rot[0])
        location = np.stack([np.interp(frames, channel.frames, channel.location[:, i]) for i in range(3)], 1)
        rotation = np.stack([np.interp(frames, channel.frames, channel.rotation[:, i]) for i in range(4)], 1)
        rotation *= np.where((rotation * runtime_rot).sum(1) < 0, -1.0, 1.0)[:, None]
        scale = max(1.0, float(np.abs(s.pos).max()))
        worst_location = max(worst_location, float(np.abs(location - s.pos[0]).max()) / scale)
        worst_rotation = max(worst_rotation, float(np.abs(rotation - runtime_rot).max()))
    return worst_location, worst_rotation


# --------------------------------------------------------------------- the key choice
@pytest.mark.parametrize("count", [2, 3, 5, 64, 65, 1000, 70001])
def test_linear_keys_reproduce_every_frame_within_the_tolerance(count):
    rng = np.random.default_rng(count)
    walk = np.cumsum(rng.normal(scale=1e-6, size=(3, count, 7)), axis=1)
    walk[1] = np.linspace(0, 5, count)[:, None]  # a straight line
    walk[2] = 0.25                              # a constant
    tolerance = np.full((3, 1, 7), 2.5e-7)
    keep = animation_plan.linear_keys(walk, tolerance)
    assert keep[:, [0, -1]].all()
    frames = np.arange(count)
    for row in range(3):
        kept = np.flatnonzero(keep[row])
        line = np.stack([np.interp(frames, kept, walk[row, kept, c]) for c in range(7)], 1)
        assert np.abs(line - walk[row]).max() <= 2.5e-7 * (1 + 1e-9)
    assert keep[1].sum() <= 2 + int(np.log2(count)) and keep[2].sum() <= 2 + int(np.log2(count))


def _blocks_reference(scaled: np.ndarray) -> np.ndarray:
    """``_power_of_two_keys`` of one row, block by block: the whole range, then each half a block that did not
    fit leaves; a block fits when every frame of it lies within 1 of the line between its ends."""
    keep = np.zeros(len(scaled), bool)

    def visit(a: int, b: int) -> None:
        fraction = np.arange(b - a) / (b - a)
        line = scaled[a] + (scaled[b] - scaled[a]) * fraction[:, None]
        if np.abs(scaled[a:b] - line).max() <= 1.0:
            keep[a] = keep[b] = True
        elif b - a > 1:
            visit(a, (a + b) // 2)
            visit((a + b) // 2, b)

    visit(0, len(scaled) - 1)
    return keep


@pytest.mark.parametrize("seed", range(40))
def test_the_vectorised_key_search_keeps_what_a_block_by_block_search_keeps(seed):
    """Rows of every kind in one call (the search takes its shortcuts by how many blocks are open): noise, walks,
    lines, steps and constants, with NaN, infinities and huge values in some."""
    rng = np.random.default_rng(seed)
    count, channels = (1 << int(rng.integers(0, 9))) + 1, int(rng.integers(1, 8))
    t = np.arange(count)[:, None]
    rows = [rng.normal(size=(count, channels)) * 1e6, np.cumsum(rng.normal(size=(count, channels)) * 0.3, axis=0),
            t * rng.normal(size=channels) + rng.normal(size=(count, channels)) * 0.4,
            np.round(rng.normal(size=(count, channels)) * 2), np.full((count, channels), 3.0)]
    scaled = np.stack([rows[k] for k in rng.integers(0, len(rows), int(rng.integers(1, 7)))])
    odd = rng.random(scaled.shape) < 0.05 * (seed % 2)
    scaled[odd] = rng.choice([np.nan, np.inf, -np.inf, 1e300], size=int(odd.sum()))
    with np.errstate(all="ignore"):  # NaN and infinities are the point here
        got = animation_plan._power_of_two_keys(scaled)
        assert (got == np.stack([_blocks_reference(row) for row in scaled])).all()


# --------------------------------------------------------------------- planning (no Blender)
@pytest.mark.parametrize("frame_count", [1_048_576, 10_000_000, 0xFFFFFFFF])
def test_a_huge_frame_count_without_a_map_costs_one_key_per_node(frame_count):
    data = synth.unmapped_model(frame_count)
    assert len(data) < 8000
    result, peak = planned(data, node_mode="EMPTIES")
    assert peak < 4 * MB  # the first implementation sampled every frame: 1.39 GB at 1,048,576, 16 GiB at 2^32
    model = Model.parse(data)
    assert len(result.channels) == model.node_count
    assert all(list(c.frames) == [0.0] for c in result.channels)
    assert worst_reproduction(model, result.channels, np.array([0, 1, 12345, frame_count - 1])) == (0.0, 0.0)
    assert any("runs past Blender's last frame 1048574" in w for w in result.warnings)


def test_a_long_valid_model_is_planned_in_bounded_memory():
    data = generated(7, node_count=300, frame_count=65535, animated=0.0)  # one node animated, 299 static
    result, peak = planned(data, node_mode="EMPTIES")
    assert peak < 48 * MB  # the first implementation: 3.7 GB
    (channel,) = result.channels
    assert len(channel.frames) < 2000  # of 65,537 frames
    worst = worst_reproduction(Model.parse(data), result.channels, np.arange(65537))
    assert worst[0] <= 2.5e-7 * 1.01 and worst[1] <= 2.5e-7 * 1.01


def test_every_node_moving_at_every_frame_is_planned_in_bounded_memory():
    data = shared_map_model(24, 65535)  # every node reads one 65,535-frame map block
    result, peak = planned(data, node_mode="EMPTIES")
    assert peak < 96 * MB
    assert len(result.channels) == 24
    worst = worst_reproduction(Model.parse(data), result.channels, np.arange(65537))
    assert worst[0] <= 2.5e-7 * 1.01 and worst[1] <= 2.5e-7 * 1.01


# --------------------------------------------------------------------- through Blender
def test_a_huge_frame_count_imports_with_the_scene_range_clamped(blender, tmp_path):
    bpy = blender.bpy
    data = synth.unmapped_model(0xFFFFFFFF)
    path = tmp_path / "huge.msh"
    path.write_bytes(data)
    (root,) = import_file(bpy, str(path))
    assert bpy.context.scene.frame_end == plan.BLENDER_LAST_FRAME
    anim = AnimationData.from_model(Model.parse(data))
    for frame in (0, 1_000_000):
        rigid = world_matrices_at(anim, [frame], normalize=True)
        blender.evaluated_frame(frame)
        for index, matrix in node_matrices(bpy, root).items():
            assert np.abs(matrix - rigid[index, 0]).max() < 1e-5


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
def test_a_long_import_shows_the_runtime_pose_between_its_keys(blender, tmp_path, node_mode):
    bpy = blender.bpy
    data = shared_map_model(6, 65535)
    path = tmp_path / "long.msh"
    path.write_bytes(data)
    (root,) = import_file(bpy, str(path), node_mode=node_mode)
    rng = np.random.default_rng(3)
    frames = np.sort(np.concatenate([[0, 1, 65534, 65535, 65536], rng.integers(0, 65537, 40)]))
    rigid = world_matrices_at(AnimationData.from_model(Model.parse(data)), frames, normalize=True)
    worst = 0.0
    for i, frame in enumerate(frames):
        blender.evaluated_frame(frame)
        for index, matrix in node_matrices(bpy, root).items():
            worst = max(worst, np.abs(matrix - rigid[index, i]).max())
    assert worst < 1e-5


# --------------------------------------------------------------------- export
BENCHMARK = Path(__file__).resolve().parent.parent / "benchmarks" / "bounded_memory.py"


def exported_in_own_process(path: Path) -> dict:
    """Import ``path`` with the defaults, key one bone as an artist does, export: peak memory of the export
    (benchmarks/bounded_memory.py runs it)."""
    child = subprocess.run([sys.executable, str(BENCHMARK), "--child", "export", str(path)], capture_output=True,
                           text=True, timeout=900)
    assert child.returncode == 0, child.stderr[-2000:]
    return json.loads(child.stdout.strip().splitlines()[-1])


def test_keying_one_bone_of_a_huge_frame_count_exports_in_bounded_memory(tmp_path):
    data = synth.unmapped_model(0xFFFFFFFF)
    path = tmp_path / "huge.msh"
    path.write_bytes(data)
    figures = exported_in_own_process(path)
    assert figures["peak_rise_mb"] < 600  # before: 3,788 MB (every node at each of 1,048,575 frames)
    source = read_animation(Model.parse(data))
    written = read_animation(Model.parse(path.with_suffix(".out.msh").read_bytes()))
    # The exported range stops at Blender's last frame: the edited node is keyed over 0..1,048,574, the
    # frame count becomes 1,048,575, and every other node (no map: its pose is one key's at any frame)
    # keeps its track byte for byte.
    assert written.frame_count == plan.BLENDER_LAST_FRAME + 1
    changed = [i for i, (a, b) in enumerate(zip(source.tracks, written.tracks, strict=True)) if not same_track(a, b)]
    assert len(changed) == 1 and written.tracks[changed[0]].has_map


def test_keying_one_bone_of_300_nodes_by_65535_frames_exports_in_bounded_memory(tmp_path):
    data = generated(7, node_count=300, frame_count=65535, animated=0.0)
    path = tmp_path / "long.msh"
    path.write_bytes(data)
    figures = exported_in_own_process(path)
    assert figures["peak_rise_mb"] < 300  # before: about 9 GB
    source = read_animation(Model.parse(data))
    written = read_animation(Model.parse(path.with_suffix(".out.msh").read_bytes()))
    changed = [i for i, (a, b) in enumerate(zip(source.tracks, written.tracks, strict=True)) if not same_track(a, b)]
    assert len(changed) == 1


def same_track(a, b) -> bool:
    return (a.has_map == b.has_map and np.array_equal(a.times, b.times) and np.array_equal(a.pos, b.pos)
            and np.array_equal(a.rot, b.rot))


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
@pytest.mark.parametrize("keys", ["REDUCED", "BLENDER_KEYS"])
def test_the_bounded_export_writes_the_bytes_of_holding_every_frame(blender, tmp_path, monkeypatch, node_mode,
                                                                   keys):
    bpy = blender.bpy
    data = generated(52, node_count=8, frame_count=30, animated=0.5)
    path = tmp_path / "in.msh"
    path.write_bytes(data)
    (root,) = import_file(bpy, str(path), node_mode=node_mode)
    bpy.context.scene.frame_set(3)
    owner = root.pose.bones[2] if node_mode == "ARMATURE" else \
        next(o for o in root.children_recursive if o.get("msh_node_index") == 2)
    owner.location.x += 0.5
    owner.keyframe_insert("location")
    outputs = []
    for block in (plan_frames.BLOCK, 7):  # one block, or blocks of a few frames
        monkeypatch.setattr(plan_frames, "BLOCK", block)
        outputs.append(tmp_path / f"out_{block}.msh")
        assert bpy.ops.export_scene.parkan_msh(filepath=str(outputs[-1]), keys=keys) == {"FINISHED"}
    # Every node's pose at every frame held at once, as the export did before.
    readback = blender.ext.io_msh.exp.readback
    export_plan = blender.ext.io_msh.exp.plan
    options = export_plan.ExportOptions(keys=keys)
    frames = np.arange(bpy.context.scene.frame_end + 1, dtype=np.float64)
    scene = readback.read_scene(bpy.context, root, frames, keys == "BLENDER_KEYS")
    assert scene.poses is not None and scene.local_matrices.shape[1] == 1
    scene.local_matrices, scene.poses = scene.poses(scene.frames), None
    held = export_plan.export_model(scene, options).model.to_bytes()
    assert outputs[0].read_bytes() == outputs[1].read_bytes() == held != data


@pytest.mark.parametrize("edit", ["constraint", "scale key"])
def test_what_needs_every_node_at_every_frame_of_a_huge_model_is_refused_up_front(blender, tmp_path, edit):
    bpy = blender.bpy
    path = tmp_path / "huge.msh"
    path.write_bytes(synth.unmapped_model(0xFFFFFFFF))
    (root,) = import_file(bpy, str(path))
    bpy.context.scene.frame_set(3)
    bone = root.pose.bones[1]
    if edit == "constraint":  # before: Blender stepped through 1,048,575 frames, 52 s and 5 GB
        bone.constraints.new("LIMIT_ROTATION").use_limit_x = True
        why = "something other than plain F-curves moves the nodes"
    else:
        bone.scale.x = 1.5
        bone.keyframe_insert("scale")
        why = "a node's scale is keyed or set"
    out = tmp_path / "out.msh"
    with pytest.raises(RuntimeError, match=why + r".* 8 nodes at each of 1,048,575 frames .*more than 2,097,152"):
        bpy.ops.export_scene.parkan_msh(filepath=str(out))
    assert not out.exists()


# --------------------------------------------------------------------- keys counted, then refused
def test_an_import_that_would_write_too_many_keys_is_refused_while_planning():
    """300 nodes all reading one 65,535-frame map of dense motion: ~19.7 million node keys. The count passes
    the limit after a few dozen nodes, so the refusal comes in seconds and bounded memory (was: 2 GB after 38 s,
    still writing keys)."""
    import time

    data = shared_map_model(300, 65535, dense=True)
    start = time.process_time()  # CPU seconds in these bounds: a loaded machine's wall clock would fail them
    tracemalloc.start()
    try:
        with pytest.raises(plan.FormatError) as error:
            plan.plan_model(read_container(data, "m.msh"), None, plan.ImportOptions())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    seconds = time.process_time() - start
    message = str(error.value)
    assert f"more than {animation_plan.KEY_LIMIT:,} node-frames" in message
    assert "import with Animation: Keys or For Editing" in message
    assert seconds < 30 and peak < 400 * MB, (seconds, peak / MB)
    keys = plan.plan_model(read_container(data, "m.msh"), None, plan.ImportOptions(animation="KEYS"))
    assert sum(len(c.frames) for c in keys.channels) < 70_000  # the remedy imports


def test_for_editing_refuses_a_long_dense_model_in_seconds(monkeypatch):
    """For Editing's greedy search takes a step per key over the nodes of a block at once: 65,535-frame tracks
    come in chunks of GREEDY_CHUNK_FRAMES so that a block holds dozens of nodes, not four (the refusal took 78 s)."""
    import time

    data = shared_map_model(300, 65535, dense=True)
    shapes = []
    greedy = animation_plan.greedy_keys
    monkeypatch.setattr(animation_plan, "greedy_keys", lambda values, *a: shapes.append(values.shape) or
                        greedy(values, *a))
    start = time.process_time()
    with pytest.raises(plan.FormatError, match="Animation: For Editing keys the nodes at more than 2,097,152 "
                                               "node-frames, more than an import writes: import with Animation: Keys"):
        plan.plan_model(read_container(data, "m.msh"), None, plan.ImportOptions(animation="EDITING"))
    seconds = time.process_time() - start
    assert shapes[0][0] > 50 and shapes[0][1] == animation_plan.GREEDY_CHUNK_FRAMES + 1  # nodes, frames
    assert seconds < 60, seconds


def test_the_key_count_refuses_for_editing_and_keys_past_the_limit_naming_what_is_left():
    count = animation_plan.KeyCount("EDITING", limit=10)
    count.add(10)
    with pytest.raises(plan.FormatError, match="Animation: For Editing keys the nodes at more than 10 node-frames, "
                                               "more than an import writes: import with Animation: Keys"):
        count.add(1)
    with pytest.raises(plan.FormatError, match="import with Animation: None"):
        animation_plan.KeyCount("KEYS", limit=0).add(1)


def test_a_refused_key_count_creates_no_blender_data(blender, tmp_path):
    import time

    bpy = blender.bpy
    path = tmp_path / "dense.msh"
    path.write_bytes(shared_map_model(300, 65535, dense=True))
    before = blender.datablock_counts()
    start = time.process_time()
    with pytest.raises(RuntimeError, match="import with Animation: Keys or For Editing"):
        bpy.ops.import_scene.parkan_msh(filepath=str(path), node_mode="EMPTIES")
    assert time.process_time() - start < 30
    assert blender.datablock_counts() == before
