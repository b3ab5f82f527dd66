"""The main job's tour of the feature samples, headless in Blender (the bpy wheel), through the extension's own
operators (run by scripts/main_job.py; alone: ``.venv/bin/python scripts/main_job_features.py OUT``):

- samples/unit: Import Unit, a thumbnail of the unit assembled (every part on its socket), Export Unit back
  over a copy of the game folder: every file (the .dat, the parts' archive) byte for byte as it was;
- samples/walker: the model imported with its clips (an action per clip, from walker.ctl beside it), a
  thumbnail of it mid-stride (the walk clip half-way), then the timeline put back and the model exported
  over a copy: walker.msh and walker.ctl byte for byte as they were;
- samples/tower.rlb: every damage stage and LOD imported (Geometry: All Slots), a thumbnail of each damage
  stage (Show Stage and LOD, as the panel's grid does).

Prints one line per step ending in ``ok`` or ``FAILED`` (the summary's lines) and exits 1 on any failure.
The README's first pictures (docs/pictures/) are thumbnails of this tour: ``--pictures FOLDER`` copies them there
(``.venv/bin/python scripts/main_job_features.py out/main_job --pictures docs/pictures``), and
tests/test_samples_pictures.py checks the committed ones are what the tour renders.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
PACKAGE = "io_msh_main_job"
THUMBNAIL = 256
README_PICTURES = ("walker_mid_stride", "unit_assembled", "mission_from_above")  # docs/pictures/NAME.png


def _extension():
    """The repository loaded as the extension package (as Blender loads it) and registered."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(PACKAGE, ROOT / "__init__.py", submodule_search_locations=[str(ROOT)])
    package = importlib.util.module_from_spec(spec)
    sys.modules[PACKAGE] = package
    spec.loader.exec_module(package)
    package.register()
    return package


def _clean(bpy) -> None:
    _module("io_msh.batch.scene").clean_scene(bpy)


def _module(name: str):
    """A module of the extension package, imported if it is not yet."""
    from importlib import import_module

    return import_module(f"{PACKAGE}.{name}")


def _verdict(paths: dict[Path, bytes]) -> str:
    """Whether the files still hold the bytes they held before the step: "ok", or the ones that differ."""
    differ = [p.name for p, data in paths.items() if p.read_bytes() != data]
    return "byte-identical: ok" if not differ else f"DIFFER ({', '.join(differ)}): FAILED"


def _select_only(bpy, obj) -> None:
    for other in bpy.context.view_layer.objects:
        other.select_set(False)
    obj.select_set(True)
    bpy.context.view_layer.objects.active = obj


def _sample_copy(out: Path, name: str) -> Path:
    """A fresh copy of samples/NAME in the output folder, for a step to import and export into."""
    folder = out / name
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(SAMPLES / name, folder)
    return folder


def _files(folder: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def unit(bpy, ext, out: Path) -> list[str]:
    folder = _sample_copy(out, "unit")
    dat = folder / "UNITS" / "SYNTH" / "synth_unit.dat"
    kept = _files(folder)
    _clean(bpy)
    bpy.ops.import_scene.parkan_unit(filepath=str(dat))
    roots = [o for o in bpy.data.objects if "msh_model" in o and "msh_unit_component" in o]
    mounted = sum(1 for r in roots if r.parent is not None)
    thumbnail = out / "thumbnails" / "unit_assembled.png"
    _module("io_msh.batch.pictures").render_thumbnail(bpy, thumbnail, THUMBNAIL)
    bpy.ops.export_scene.parkan_unit(filepath=str(dat))
    return [f"unit {dat.name}: {len(roots)} parts imported, {mounted} mounted on their sockets; thumbnail of the "
            f"unit assembled: {thumbnail}",
            f"unit {dat.name}: exported back with Export Unit, {len(kept)} files "
            + _verdict(kept)]


def building(bpy, ext, out: Path) -> list[str]:
    folder = _sample_copy(out, "interior")
    dat = folder / "UNITS" / "SYNTH" / "synth_hall.dat"
    kept = _files(folder)
    _clean(bpy)
    bpy.ops.import_scene.parkan_unit(filepath=str(dat))
    plans = [o for o in bpy.data.objects if "msh_ground_plan" in o]
    hall = [o for o in bpy.data.objects if "msh_hallway" in o and o not in plans]
    vertices, links = (len(hall[0].data.vertices), len(hall[0].data.edges)) if hall else (0, 0)
    bpy.ops.export_scene.parkan_unit(filepath=str(dat))
    return [f"building {dat.name}: its hall way ({vertices} vertices, {links} links) and ground plan "
            f"({len(plans[0].data.vertices) if plans else 0} corners in its two rings) imported in the Navigation "
            "collection",
            f"building {dat.name}: exported back with Export Unit, {len(kept)} files "
            + _verdict(kept)]


def walker(bpy, ext, out: Path) -> list[str]:
    folder = _sample_copy(out, "walker")
    model, controller = folder / "walker.msh", folder / "walker.ctl"
    kept = {p: p.read_bytes() for p in (model, controller)}
    _clean(bpy)
    bpy.ops.import_scene.parkan_msh(filepath=str(model), clips="ACTIONS", frame_rate=24.0)
    (root,) = [o for o in bpy.data.objects if "msh_model" in o]
    actions, P = _module("io_msh.imp.clip_actions"), _module("io_msh.com.props")
    clips = sorted({(str(a[P.CLIP]), a.frame_range[1] - a.frame_range[0]) for a in bpy.data.actions if P.CLIP in a})
    walk = next(name for name, _ in clips if name.endswith("|walk 1"))
    holders = actions.model_holders(root)
    timelines = [actions.timeline_of(h)[0] for h in holders]
    actions.show_clip(root, walk, holders)
    action = actions.clip_actions(holders[0], walk)
    mid = (action.frame_range[0] + action.frame_range[1]) / 2
    bpy.context.scene.frame_set(round(mid))
    thumbnail = out / "thumbnails" / "walker_mid_stride.png"
    _module("io_msh.batch.pictures").render_thumbnail(bpy, thumbnail, THUMBNAIL)
    for holder, timeline in zip(holders, timelines):
        actions.assign(holder, timeline)
    sliders = sorted(k for k in root.keys() if k.startswith("msh_channel"))  # noqa: SIM118 (an ID's keys)
    _select_only(bpy, root)
    bpy.ops.export_scene.parkan_msh(filepath=str(model))
    shown = ", ".join(f"{name.split('|', 1)[1]} ({length:g} frames)" for name, length in clips)
    return [f"walker {model.name}: {len(clips)} clips made from walker.ctl: {shown}; {len(sliders)} channel "
            f"sliders ({', '.join(sliders)})",
            f"walker {model.name}: thumbnail mid-stride (clip {walk!r} at frame {round(mid)}): {thumbnail}",
            f"walker {model.name}: exported back over the timeline, walker.msh and walker.ctl "
            + _verdict(kept)]


def tower(bpy, ext, out: Path) -> list[str]:
    _clean(bpy)
    bpy.ops.import_scene.parkan_msh(filepath=str(SAMPLES / "tower.rlb"), slots="ALL")
    (root,) = [o for o in bpy.data.objects if "msh_model" in o]
    panel = _module("io_msh.ui.panel")
    slots = sorted(panel.available_slots(root))
    _select_only(bpy, root)
    pictures = []
    for stage in range(3):
        bpy.ops.parkan_msh.show_slot(position=stage * 5)
        picture = out / "thumbnails" / f"tower_stage_{stage}.png"
        _module("io_msh.batch.pictures").render_thumbnail(bpy, picture, THUMBNAIL)
        pictures.append(str(picture))
    named = ", ".join(panel.slot_text(s) for s in slots)
    return [f"tower tower.rlb: {len(slots)} stages and LODs imported ({named}); a thumbnail per damage stage: "
            f"{', '.join(pictures)}"]


def mission(bpy, ext, out: Path) -> list[str]:
    folder = _sample_copy(out, "maps")
    tma = folder / "MISSIONS" / "SAMPLE" / "data.tma"
    kept = _files(folder)
    _clean(bpy)
    bpy.ops.import_scene.parkan_map(filepath=str(tma))
    placed = [o for o in bpy.data.objects if "msh_map_record" in o]
    ground = next(o for o in bpy.data.objects if o.get("msh_map_level") == 0)
    thumbnail = out / "thumbnails" / "mission_from_above.png"
    _module("io_msh.batch.maps").render_map_thumbnail(bpy, thumbnail, THUMBNAIL)
    world = bpy.context.scene.world
    stands = [o for o in bpy.data.objects if "msh_briefing_waypoint" in o and o.name.endswith(" camera")]
    lamps = sorted(o.name for o in bpy.data.objects if o.type == "LIGHT")
    bpy.ops.export_scene.parkan_map(filepath=str(tma))
    return [f"mission {tma.name}: its map imported ({len(ground.data.polygons)} ground faces), {len(placed)} objects "
            f"placed by clan; thumbnail from above: {thumbnail}",
            f"mission {tma.name}: its sky as the World {world.name!r} at {world.get('msh_sky_shown')} "
            f"({', '.join(lamps) or 'no lamp'}); its briefing: {len(stands)} waypoints, the flythrough on frames "
            f"1-{bpy.context.scene.frame_end}",
            f"mission {tma.name}: exported back with Export Parkan Map, {len(kept)} files "
            + _verdict(kept)]


def main(argv: list[str]) -> int:
    pictures = None
    if "--pictures" in argv:
        at = argv.index("--pictures")
        pictures, argv = Path(argv[at + 1]), argv[:at] + argv[at + 2:]
    out = Path(argv[0] if argv else ROOT / "out" / "main_job").resolve()
    (out / "thumbnails").mkdir(parents=True, exist_ok=True)
    made = None  # an isolated user folder (as the batch tool's), removed after
    if "BLENDER_USER_RESOURCES" not in os.environ:
        made = os.environ["BLENDER_USER_RESOURCES"] = tempfile.mkdtemp(prefix="io_msh_main_job_")
    import bpy

    ext = _extension()
    lines, failed = [], False
    try:
        for step in (unit, walker, tower, mission, building):
            try:
                lines += step(bpy, ext, out)
            except Exception as exc:  # one step's failure is reported; the others still run
                lines.append(f"{step.__name__}: {type(exc).__name__}: {exc}: FAILED")
    finally:
        ext.unregister()
        if made:
            shutil.rmtree(made, ignore_errors=True)
    for line in lines:
        print(line)
        failed = failed or line.endswith("FAILED")
    if pictures is not None and not failed:
        pictures.mkdir(parents=True, exist_ok=True)
        for name in README_PICTURES:
            shutil.copyfile(out / "thumbnails" / f"{name}.png", pictures / f"{name}.png")
        print(f"pictures: {', '.join(README_PICTURES)} copied into {pictures}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
