"""Write the bundled samples (samples/), made by the project's own generators (core.authoring), so that each
feature can be tried without the game's files:

Every model wears the robot look (core.authoring.synth.dress: a hull with cut corners, a turret with a hatch, a
barrel with a muzzle brake, legs with knees and feet) and the textures are painted plates (panel seams, rivets,
hazard stripes, a number; core.authoring.synth.robot_libraries):

- sample.msh, sample.rlb and the game libraries (Material.lib, Textures.lib, LightMap.lib): a small walker
  with its material list and a texture of its own;
- walker/: walker.msh with its controller walker.ctl (three clips, a turret and a gun channel, a belt
  channel on the left leg) and its material list walker.wea, beside libraries that add an animated material
  (the body's lamp, played by the clock) and the belt's material (played by the belt channel's slider);
- tower.rlb: a tower with three damage stages (pieces gone at each) and two LODs, and a First-Person shell;
- unit/: a unit tree (UNITS/SYNTH/synth_unit.dat, a second one synth_fort.dat), its objects.rlb, the parts'
  archive (models, material lists, controllers, control points .cpt, damage tables .ndp) and libraries
  naming its materials;
- maps/: a 4 x 4 map with hills and a lake (DATA/MAPS/...: Land.msh, Land.map, Land1.wea, Land2.wea) and a
  mission naming it (MISSIONS/.../data.tma), made by core.authoring.maps, in its game folder
  (core.authoring.map_game): painted ground textures, and the robot, the fort, trees and rocks the mission places;
- effects/: an effect library (effects.rlb: every emitter type, each shipped time mode, the retail extremes) and
  explosions naming its effects (weapon.rlb), made by core.authoring.effects;
- rsli/: RsLi archives shaped as the two the game ships (gamefont.rlb: PAL.PAL and a Tfnt font, LZSS;
  sprites.lib: ARGB4444 pictures, Deflate), made by core.authoring.rsli.

tests/test_main_job.py checks that samples/ holds exactly what this writes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.animation.controller.codec import MATERIAL_CHANNEL  # noqa: E402
from core.animation.tracks import Animation, Track  # noqa: E402
from core.appearance.mat0 import ANIM_KEY, MAT0_TYPE_ID, OPAQUE, AnimBlock, Material, blend_attr1, phase  # noqa: E402
from core.appearance.material_tracks import LOOP  # noqa: E402
from core.appearance.wear import WEAR_ATTRS, WEAR_TYPE_ID  # noqa: E402
from core.authoring import effects, synth, units  # noqa: E402
from core.authoring.build import ModelDef, NodeDef, Part, build_model  # noqa: E402
from core.authoring.controllers import channel, walker_controller, walker_model  # noqa: E402
from core.authoring.interiors import interior_files  # noqa: E402
from core.authoring.map_game import mission_game_files, mission_world_files  # noqa: E402
from core.authoring.rsli import rsli_files  # noqa: E402
from core.authoring.synth import WALKER_SHAPES, box, box_uvs, dress, robot_libraries, sample_archive, sample_model  # noqa: E402
from core.container.nres import Archive  # noqa: E402

SAMPLES = ROOT / "samples"
GLOW_MASK = 0x02  # MAT0 track mask: the diffuse colour glides between keys (materials-texm.md 7)


def _material(name: str, phases: list, keys: list, mask: int = 0) -> tuple[str, bytes, int, dict]:
    material = Material(blend_attr1(OPAQUE), phases=np.array(phases),
                        animations=[AnimBlock(LOOP | mask << 3, np.array(keys, ANIM_KEY))])
    return name, material.to_bytes(), MAT0_TYPE_ID, {"attr1": material.attr1, "attr2": material.attr2}


def _wear(names: list[str]) -> bytes:
    return (f"{len(names)}\r\n" + "".join(f"{i} {n}\r\n" for i, n in enumerate(names))).encode()


def walker_files() -> dict[str, bytes]:
    """walker/: the model, its controller beside it (STEM.ctl), its material list and libraries."""
    libraries = robot_libraries()
    materials = libraries["Material.lib"]
    for entry in (
            # the belt: two textures stepping every 100 ms; the belt channel's slider plays it (digest 2.5)
            _material("WALKER_BELT", [phase((1.0, 1.0, 1.0, 1.0), "METAL.0"), phase((0.7, 0.7, 0.7, 1.0), "BODY.0",
                                                                                     cell=2)],
                      [(0, 100, 0), (1, 200, 0)]),
            # the lamp: the diffuse colour gliding red, green, red over a second, played by the clock
            _material("WALKER_LAMP", [phase((1.0, 0.25, 0.1, 1.0), "BODY.0", cell=2),
                                      phase((0.2, 1.0, 0.3, 1.0), "BODY.0", cell=2)],
                      [(0, 500, 0), (1, 1000, 0)], GLOW_MASK)):
        name, data, type_id, attrs = entry
        materials.add(name, data, type_id, **attrs)
    spec = dress(walker_model("walker.msh"), WALKER_SHAPES)
    for part, row in zip(spec.parts, (3, 1, 1, 2, 1)):  # body: lamp; turret, gun, right leg: metal; left leg: belt
        part.material = row
    controller = walker_controller()
    belt = channel(3, -1.0, -1.0, 0.0, 1.0, 0.0, MATERIAL_CHANNEL)
    controller.channels = np.concatenate([controller.channels, np.array([belt])])
    files = {"walker/walker.msh": build_model(spec).to_bytes(), "walker/walker.ctl": controller.to_bytes(),
             "walker/walker.wea": _wear(["SAMPLE_BODY", "SAMPLE_METAL", "WALKER_BELT", "WALKER_LAMP"])}
    files.update({f"walker/{name}": archive.to_bytes() for name, archive in libraries.items()})
    return files


def tower_model() -> ModelDef:
    """A tower (node 0) with a top (node 1) and an antenna (node 2): stage 0 whole, stage 1 shorter with the
    antenna gone, stage 2 a stump; LOD 1 leaves out the small pieces; slot 4 (First-Person) a shell around
    the top, seen from inside."""
    nodes = [NodeDef("base"), NodeDef("top", 0), NodeDef("antenna", 1)]
    parts = []

    def add(node: int, stage: int, lod: int, size, centre, material: int, inside_out: bool = False):
        pos, tris = box(size, centre)
        parts.append(Part(node, pos, tris[:, ::-1].copy() if inside_out else tris, uvs=box_uvs(), material=material,
                          slot=stage * 5 + lod))

    for lod in (0, 1):
        add(0, 0, lod, (2.0, 2.0, 3.0), (0, 0, 1.5), 0)
        add(1, 0, lod, (1.2, 1.2, 0.8), (0, 0, 0.4), 1)
        add(0, 1, lod, (2.0, 2.0, 2.0), (0, 0, 1.0), 0)
        add(1, 1, lod, (1.0, 1.2, 0.5), (0.1, 0, -0.75), 1)  # lower: the tower below is shorter
        add(0, 2, lod, (2.0, 2.0, 0.8), (0, 0, 0.4), 0)
    add(2, 0, 0, (0.08, 0.08, 1.2), (0, 0, 0.6), 1)
    add(1, 0, 4, (1.1, 1.1, 0.7), (0, 0, 0.4), 1, inside_out=True)
    tracks = [Track.static((0, 0, 0)), Track.static((0, 0, 3.0)), Track.static((0.3, 0.3, 0.8))]
    spec = dress(ModelDef(nodes, parts, Animation(1, tracks), stream_name="tower.msh"), synth.TOWER_SHAPES)
    for part in spec.parts:
        if part.slot == 4:  # the First-Person shell stays seen from inside
            part.triangles = part.triangles[:, ::-1].copy()
    return spec


def tower_archive() -> Archive:
    archive = Archive()
    archive.add("tower.msh", build_model(tower_model()).to_bytes())
    archive.add("tower.wea", _wear(["SAMPLE_BODY", "SAMPLE_METAL"]), WEAR_TYPE_ID, **WEAR_ATTRS)
    return archive


def unit_files() -> dict[str, bytes]:
    """unit/: core.authoring.units' game folder, with libraries that name its materials."""
    libraries = robot_libraries()
    materials = libraries["Material.lib"]
    for name, source in (("SYNTH_HULL", "SAMPLE_BODY"), ("SYNTH_METAL", "SAMPLE_METAL")):
        entry = materials.find(source)
        materials.add(name, bytes(entry.data), MAT0_TYPE_ID, attr1=entry.attr1, attr2=entry.attr2)
    files = {f"unit/{path}": data for path, data in units.unit_files(robot=True).items()}
    files.update({f"unit/{name}": archive.to_bytes() for name, archive in libraries.items()})
    return files


def sample_files() -> dict[str, bytes]:
    """Every file of samples/, by its path there."""
    model = build_model(dress(sample_model(), WALKER_SHAPES)).to_bytes()
    files = {"sample.msh": model, "sample.rlb": sample_archive(model).to_bytes()}
    files.update({name: archive.to_bytes() for name, archive in robot_libraries().items()})
    files["tower.rlb"] = tower_archive().to_bytes()
    files.update(walker_files())
    files.update(unit_files())
    files.update({f"maps/{path}": data for path, data in mission_game_files(robot=True).items()})
    files.update({f"maps/{path}": data for path, data in mission_world_files().items()})
    files.update({f"effects/{path}": data for path, data in effects.sample_files().items()})
    files.update({f"rsli/{path}": data for path, data in rsli_files().items()})
    files.update({f"interior/{path}": data for path, data in interior_files().items()})
    return files


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="Without options: write every sample into samples/ (replacing them).")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1, naming them, when samples/ differs from what would be written")
    args = parser.parse_args(argv)
    files = sample_files()
    if args.check:
        wrong = sorted(p for p, data in files.items() if not (SAMPLES / p).is_file()
                       or (SAMPLES / p).read_bytes() != data)
        extra = sorted(str(p.relative_to(SAMPLES)) for p in SAMPLES.rglob("*") if p.is_file()
                       and p.relative_to(SAMPLES).as_posix() not in files)
        for path in wrong:
            print(f"differs or missing: samples/{path}")
        for path in extra:
            print(f"not made by make_sample.py: samples/{path}")
        return 1 if wrong or extra else 0
    for path, data in files.items():
        target = SAMPLES / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    print(f"wrote {len(files)} files into {SAMPLES}: {', '.join(sorted(files))}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
