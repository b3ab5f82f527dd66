"""The mission's sky in Blender (the sources' suggested mapping): the scene's World shows the dome of
the shown keyframe (io_msh.imp.sky_plan) as the game draws it, horizon to apex by elevation and the four
compass quarters by heading, its fog as the World's mist, and each body up at that time as a Sun
lamp along its arc with the weak counter light opposite.

Every colour the dome uses is an RGB node named ``slot N``; the sun's colour and light are the main lamp's
colour and strength, the counter light's its colour: those are what Export Parkan Map reads back into the
keyframe (io_msh.exp.map_sky)."""

from __future__ import annotations

import math
import uuid

import bpy
from mathutils import Vector

from ...core.sky.day import COUNTER_LIGHT, FOG_SCALE, RINGS, SUN_LIGHT
from ..com import compat
from ..com.colours import linear_rgba
from .sky_plan import SkyPlan

SKY = "msh_sky"                  # on the map's collection: sky.ske's bytes as read
SKY_NAME = "msh_sky_name"        # sky.ske's name as found in the mission's folder
SKY_SHOWN = "msh_sky_shown"      # [section, keyframe] the World shows
SKY_WORLD = "msh_sky_world"      # the World the import made
SKY_LAMPS = "msh_sky_lamps"      # "main", "counter" -> the lamps the import made
SKY_AS_SHOWN = "msh_sky_as_shown"  # each value the import set, as Blender holds it (what an edit differs from)
SKY_MATERIAL_NAMES = "msh_sky_materials"  # on the World: sky.wea's names
SKY_TOKEN = "msh_sky_token"      # on the map's collection and its World: tells a copy of that World (New World)
SLOT_NODE = "slot {}"
ROLES = {2: "horizon north", 3: "horizon east", 1: "horizon south", 4: "horizon west", 15: "apex",
         7: "ring 3 north", 10: "ring 3 east", 8: "ring 3 south", 9: "ring 3 west",
         11: "ring 2 north", 14: "ring 2 east", 12: "ring 2 south", 13: "ring 2 west"}
COUNTER_STRENGTH = 1.0  # the second light's strength: the sources give its colour only


def ring_elevations() -> tuple[float, float, float]:
    """Radians above the eye of dome rings 3, 2 and 1 (ring 4, the horizon, is at 0): a cap of height 10 000 and
    angle pi/4 drawn at the camera, its rings taken as evenly spaced in the cap's angle (our reading)."""
    height, cap = 10_000.0, math.pi / 4
    radius = height / (1.0 - math.cos(cap))
    out = []
    for ring in (3, 2, 1):
        angle = cap * ring / 4
        out.append(math.atan2(radius * math.cos(angle) - (radius - height), radius * math.sin(angle)))
    return out[0], out[1], out[2]


def build_sky(context, top, collection, plan: SkyPlan, name: str) -> None:
    """The World (made the scene's) and the lamps, recorded on ``top`` for the export."""
    key = plan.shown
    world = bpy.data.worlds.new(f"{name} sky")
    _dome(world, key)
    world.mist_settings.falloff = "LINEAR"
    world.mist_settings.start = key.number(5) * FOG_SCALE
    world.mist_settings.depth = max(0.0, (key.number(6) - key.number(5)) * FOG_SCALE)
    world[SKY_SHOWN] = plan.label
    world[SKY_TOKEN] = top[SKY_TOKEN] = uuid.uuid4().hex
    if plan.materials:
        world[SKY_MATERIAL_NAMES] = plan.materials  # sky.wea's nine by role: nebula, stars, clouds, ...
    context.scene.world = world
    lamps = {}
    for number, body in enumerate(plan.bodies):  # the sun and the moon may both be up: each its two lamps
        suffix = f" {number + 1}" if number else ""
        lamps["main" + suffix] = _lamp(collection, f"{name} {body.name}", body.direction, key.colour(SUN_LIGHT),
                                       key.values[2])
        lamps["counter" + suffix] = _lamp(collection, f"{name} {body.name} counter light",
                                          tuple(-c for c in body.direction), counter_colour(key), COUNTER_STRENGTH)
    top[SKY] = plan.data
    top[SKY_NAME] = plan.name
    top[SKY_SHOWN] = [plan.section, plan.keyframe]
    top[SKY_WORLD] = world
    top[SKY_LAMPS] = lamps
    top[SKY_AS_SHOWN] = shown_values(world, lamps)


def shown_values(world, lamps: dict) -> dict[str, list[float]]:
    """What the World and the lamps hold of the keyframe: ``slot N`` colours, the mist, the lamps' colours and
    the main lamp's strength."""
    values = {node.name: list(node.outputs[0].default_value)[:3] for node in world.node_tree.nodes
              if node.type == "RGB" and node.name.startswith("slot ")}
    values["mist"] = [world.mist_settings.start, world.mist_settings.depth]
    for role, lamp in lamps.items():
        values[role] = [*lamp.data.color, lamp.data.energy]
    return values


def counter_colour(key) -> tuple[int, int, int, int]:
    """Slot 21; a version-1 keyframe has none: the loader makes it of slot 19 x 0.3."""
    if len(key.slots) > COUNTER_LIGHT:
        return key.colour(COUNTER_LIGHT)
    red, green, blue, alpha = key.colour(SUN_LIGHT)
    return int(red * 0.3), int(green * 0.3), int(blue * 0.3), alpha


def shown_colour(rgba: tuple[int, int, int, int]) -> tuple[float, float, float, float]:
    """A slot's bytes as the RGB node shows them (linear, alpha 1: a colour node has none of its own)."""
    red, green, blue, _ = linear_rgba(tuple(c / 255.0 for c in rgba))
    return red, green, blue, 1.0


def _dome(world, key) -> None:
    tree = compat.node_tree(world)
    tree.nodes.clear()
    nodes, links = tree.nodes, tree.links
    coords = nodes.new("ShaderNodeTexCoord")
    split = nodes.new("ShaderNodeSeparateXYZ")
    links.new(coords.outputs["Generated"], split.inputs[0])
    elevation = _math(tree, "ARCSINE", split.outputs["Z"])
    heading = _math(tree, "ARCTAN2", split.outputs["X"], split.outputs["Y"])  # from +y toward +x
    quarter = _math(tree, "DIVIDE", heading.outputs[0], math.pi / 2)
    quarter = _math(tree, "WRAP", quarter.outputs[0], 4.0, 0.0)
    rings = []
    for row, slots in enumerate(RINGS[:3]):
        colours = [_colour(tree, slot, key, -600.0, 300.0 - 200.0 * (4 * row + q)) for q, slot in enumerate(slots)]
        mixed = colours[0].outputs[0]
        for step, colour in enumerate([*colours[1:], colours[0]]):  # quarter q..q+1, wrapping back to 0
            factor = _math(tree, "SUBTRACT", quarter.outputs[0], float(step))
            mixed = _mix(tree, mixed, colour.outputs[0], factor.outputs[0])
        rings.append(mixed)
    apex = _colour(tree, RINGS[3][0], key, -600.0, 500.0).outputs[0]
    mixed = rings[0]
    bounds = (0.0, *ring_elevations())
    for lower, upper, colour in zip(bounds[:-1], bounds[1:], (rings[1], rings[2], apex), strict=True):
        ramp = nodes.new("ShaderNodeMapRange")
        links.new(elevation.outputs[0], ramp.inputs[0])
        ramp.inputs[1].default_value, ramp.inputs[2].default_value = lower, upper
        mixed = _mix(tree, mixed, colour, ramp.outputs[0])
    background = nodes.new("ShaderNodeBackground")
    links.new(mixed, background.inputs["Color"])
    output = nodes.new("ShaderNodeOutputWorld")
    links.new(background.outputs[0], output.inputs["Surface"])
    output.location = (800.0, 0.0)


def _colour(tree, slot: int, key, x: float, y: float):
    node = tree.nodes.new("ShaderNodeRGB")
    node.name = SLOT_NODE.format(slot)
    node.label = f"{ROLES[slot]} (slot {slot})"
    node.outputs[0].default_value = shown_colour(key.colour(slot))
    node.location = (x, y)
    return node


def _math(tree, operation: str, *inputs):
    node = tree.nodes.new("ShaderNodeMath")
    node.operation = operation
    for socket, value in zip(node.inputs, inputs, strict=False):
        if isinstance(value, float):
            socket.default_value = value
        else:
            tree.links.new(value, socket)
    return node


def _mix(tree, a, b, factor):
    node = tree.nodes.new("ShaderNodeMix")
    node.data_type = "RGBA"
    sockets = {s.identifier: s for s in node.inputs}
    tree.links.new(factor, sockets["Factor_Float"])
    tree.links.new(a, sockets["A_Color"])
    tree.links.new(b, sockets["B_Color"])
    return next(s for s in node.outputs if s.identifier == "Result_Color")


def _lamp(collection, name: str, direction, rgba, strength: float):
    light = bpy.data.lights.new(name, "SUN")
    light.color = shown_colour(rgba)[:3]
    light.energy = strength if math.isfinite(strength) else 0.0
    lamp = bpy.data.objects.new(name, light)
    lamp.rotation_mode = "QUATERNION"
    lamp.rotation_quaternion = Vector(direction).to_track_quat("-Z", "Y")
    lamp.location = (0.0, 0.0, 100.0)
    collection.objects.link(lamp)
    return lamp


__all__ = ["SKY", "SKY_LAMPS", "SKY_NAME", "SKY_SHOWN", "SKY_TOKEN", "SKY_WORLD", "SLOT_NODE", "build_sky",
           "counter_colour", "ring_elevations", "shown_colour"]
