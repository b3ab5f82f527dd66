"""Previews of an effect's emitters where Blender can show them (core.effects.preview gives the numbers): a
burst or stream (types 7, 8, 10) as a small emitter mesh with a particle system, a sprite (3, 4, 9) as a square
turned to the scene's camera (Track To) that grows over its window, with an emission material named after the
material the emitter names, showing that material's texture when the libraries have it (else plain). The game's
random generator is not reproduced: a preview shows when, how many, how long and how far, not the game's
picture.

Previews are no part of the model: they sit in their own collection (PREVIEWS), outside the model's hierarchy,
and follow their effect's Empty by a constraint; the export never reads them (it reads the root's descendants),
so they change no exported byte. Each is marked with msh_effect_preview (PREVIEW)."""

from __future__ import annotations

import bpy
import numpy as np

from ...core.effects.preview import particle_preview, sprite_preview
from ..com import compat
from ..com import props as P
from .materials import image_for

PREVIEWS = "Effect previews"
PREVIEW = P.EFFECT_PREVIEW
EMITTER_RADIUS = 0.05


def build_previews(obj, effect, created) -> None:
    """The previews of ``effect``'s (an EffectPlan's) emitters, following its Empty ``obj``."""
    header = effect.params
    scene = bpy.context.scene
    fps = scene.render.fps / (scene.render.fps_base or 1.0)
    for index, block in enumerate(header.get("blocks", ())):
        particles, sprite = particle_preview(header, block), sprite_preview(header, block)
        if particles is None and sprite is None:
            continue
        collection = _collection(scene, created)
        if particles is not None:
            preview = _emitter(f"{effect.name} emitter {index}", particles, scene.frame_start, fps, created)
        else:
            preview = _sprite(f"{effect.name} sprite {index}", sprite, effect.textures, scene, fps, created)
        collection.objects.link(preview)
        follow = preview.constraints.new("COPY_TRANSFORMS" if particles is not None else "COPY_LOCATION")
        follow.target = obj
        if sprite is not None and scene.camera is not None:
            face = preview.constraints.new("TRACK_TO")
            face.target, face.track_axis, face.up_axis = scene.camera, "TRACK_Z", "UP_Y"
        preview[PREVIEW] = effect.reference
        preview[f"{P.EFFECT}_emitter"] = index


def _collection(scene, created):
    found = bpy.data.collections.get(PREVIEWS)
    if found is None or PREVIEW not in found:
        found = created.add(bpy.data.collections.new(PREVIEWS))
        found[PREVIEW] = "every effect preview of the scene"
    if found.name not in scene.collection.children:
        scene.collection.children.link(found)
    return found


def _emitter(name: str, p, frame_start: int, fps: float, created):
    mesh = created.add(bpy.data.meshes.new(name))
    r = EMITTER_RADIUS
    verts = [(r, 0, 0), (-r, 0, 0), (0, r, 0), (0, -r, 0), (0, 0, r), (0, 0, -r)]
    faces = [(0, 2, 4), (2, 1, 4), (1, 3, 4), (3, 0, 4), (2, 0, 5), (1, 2, 5), (3, 1, 5), (0, 3, 5)]
    mesh.from_pydata(verts, [], faces)
    mesh.update()
    obj = created.add(bpy.data.objects.new(name, mesh))
    obj.modifiers.new("Effect particles", "PARTICLE_SYSTEM")
    settings = obj.particle_systems[0].settings
    created.add(settings)
    start = frame_start + p.start * fps
    settings.frame_end = start + max(p.end - p.start, 1.0 / fps) * fps   # a burst: within one frame
    settings.frame_start = start
    settings.count = p.count
    settings.lifetime = max(p.lifetime * fps, 1.0)
    settings.emit_from = "FACE"
    settings.normal_factor = p.speed
    settings.particle_size = settings.display_size = p.size
    settings.effector_weights.gravity = 0.0    # the game moves a particle by its position channel only
    return obj


def _sprite(name: str, s, textures: dict, scene, fps: float, created):
    mesh = created.add(bpy.data.meshes.new(name))
    mesh.from_pydata([(-0.5, -0.5, 0), (0.5, -0.5, 0), (0.5, 0.5, 0), (-0.5, 0.5, 0)], [], [(0, 1, 2, 3)])
    mesh.uv_layers.new(name="UVMap")
    mesh.update()
    mesh.materials.append(_emission(s.material or "effect sprite", textures.get(s.material), created))
    obj = created.add(bpy.data.objects.new(name, mesh))
    first, last = scene.frame_start + s.start * fps, scene.frame_start + max(s.end, s.start + 1.0 / fps) * fps
    # hidden (scale 0) outside its window, growing linearly over it
    co = np.array([first - 1, 0.0, first, s.size_start, last, s.size_end, last + 1, 0.0], np.float32)
    target = compat.ChannelTarget(created.add(bpy.data.actions.new(name)), obj, name)
    for axis in range(3):
        target.linear_fcurve("scale", axis, "Effect preview", co)
    return obj


def _emission(material: str, texture, created):
    """An emission material named after the game's: its texture's colour and alpha when ``texture`` (a
    TextureRef) is given, else plain."""
    name = f"{material} (effect preview)"
    found = bpy.data.materials.get(name)
    if found is not None and PREVIEW in found:
        return found
    out = created.add(bpy.data.materials.new(name))
    out[PREVIEW] = material
    tree = compat.node_tree(out)
    tree.nodes.clear()
    emission = tree.nodes.new("ShaderNodeEmission")
    emission.inputs["Strength"].default_value = 2.0
    output = tree.nodes.new("ShaderNodeOutputMaterial")
    surface = emission.outputs["Emission"]
    if texture is not None:
        image = tree.nodes.new("ShaderNodeTexImage")
        image.image = image_for(texture, created)
        tree.links.new(image.outputs["Color"], emission.inputs["Color"])
        clear, mix = tree.nodes.new("ShaderNodeBsdfTransparent"), tree.nodes.new("ShaderNodeMixShader")
        tree.links.new(image.outputs["Alpha"], mix.inputs[0])
        tree.links.new(clear.outputs[0], mix.inputs[1])
        tree.links.new(surface, mix.inputs[2])
        surface = mix.outputs[0]
    tree.links.new(surface, output.inputs["Surface"])
    return out
