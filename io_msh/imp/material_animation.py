"""Animated materials in Blender (the plan of io_msh.imp.material_keys), in an action on the material's node tree,
repeated by a Cycles modifier unless the track plays once (docs/formats/material-animation.md):

- an RGB node ``msh diffuse`` holding the diffuse colour, keyed linear (gliding, MAT0 mask 0x02) or constant;
- the atlas cell's Mapping node keyed constant, the box of the texture shown at that time;
- a texture switch: one Image Texture node per texture the track shows, picked by Mix nodes (colour and alpha)
  whose factors a constant-keyed Value node ``msh texture <i>`` sets (1: texture i is shown);
- ``msh alpha`` (the device's diffuse alpha: ambient alpha), ``msh ambient`` (into the Principled BSDF's emission,
  times the texture, as the device adds it), ``msh specular`` (its Specular Tint) and ``msh emissive`` (keyed,
  not wired: the device does not use it), each only when the track changes it;
- a belt's material (worn by the node of a flag-0x10 controller channel) has drivers reading the channel's 0..1
  slider on the model root instead of an action: slider x period gives the track's ms, keyed constant;
- a material whose tracks are alternatives (all static, more than one) has drivers reading its own ``msh_track``
  property, keyed constant at each track's index. Its ambient and specular stay in their nodes, not wired, as a
  material without animation does not show them: track 0 looks as the material would without the others.

The fingerprint of the curves written is kept on the material (``msh_material_curves``), so that the export can
tell an edited animation (which it does not write back) from the import's; it is made from the keys written, a
curve whose keys Blender merged read back."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import bpy
import numpy as np

from ..com import compat
from ..com import props as P
from ..com.curves import Curve, curve_settings, fingerprint
from ..com.material_curves import material_curve
from ..com.names import family
from ..com.sliders import add_slider, slider_fcurve
from .material_keys import MaterialKeys
from .materials import (
    GraphPaths,
    GraphShape,
    NewNodes,
    fill_material,
    graph_shape,
    image_for,
    mix_socket,
    multiply,
    template_material,
)

DIFFUSE_NODE = "msh diffuse"
ALPHA_NODE = "msh alpha"
COLOUR_NODES = {"ambient": "msh ambient", "specular": "msh specular", "emissive": "msh emissive"}
TEXTURE_NODE = "msh texture {}"
CONSTANT = bpy.types.Keyframe.bl_rna.properties["interpolation"].enum_items["CONSTANT"].value
TEMPLATE_NAME = "io_msh graph template"  # a material copied for the looks of one shape, until the last of them


def build_materials(plan, root, created, lightmapped: bool) -> dict:
    """The materials of the plan's looks by batch word, the animated ones keyed. The looks of one shape
    (materials.GraphShape) wear copies of one template graph, the last of them the template itself."""
    keyed = {}  # the curves copied for other materials' (ChannelTarget.keyed_fcurve): all made by this import
    shapes = {}
    for word, look in plan.looks.items():
        keys = plan.material_keys.get(word)
        shapes[word] = graph_shape(look, lightmapped, keys is not None and keys.cell_frames is not None,
                                   _animation_shape(keys))
    uses = Counter(shapes.values())
    left = dict(uses)
    template_name = _template_name([look.label for look in plan.looks.values()])
    templates = {}
    materials = {}
    for word, look in plan.looks.items():
        shape = shapes[word]
        if shape not in templates:
            templates[shape] = _template(shape, look.label if uses[shape] == 1 else template_name, created)
        template, paths, switch_images = templates[shape]
        left[shape] -= 1
        material = template if left[shape] == 0 else created.add(template.copy())
        if uses[shape] > 1:
            material.name = look.label
        fill_material(material, look, paths, created)
        keys = plan.material_keys.get(word)
        if keys is not None:
            _key_material(material, paths, switch_images, keys, root, created, keyed)
        materials[word] = material
    return materials


def _template_name(labels: list[str]) -> str:
    """A name for the templates that no look's name can meet: each look is named when its turn comes, as
    ``bpy.data.materials.new(label)`` named it before there were templates, which a template holding that name,
    or one Blender would number on from, would change (``label.001`` for ``label``)."""
    taken = {family(label) for label in labels}
    name, n = TEMPLATE_NAME, 1
    while name in taken:
        n += 1
        name = f"{TEMPLATE_NAME} {n}"
    return name


@dataclass(frozen=True)
class _AnimationShape:
    """The nodes an animation adds to a look's graph (its part of materials.GraphShape)."""

    # for each texture the track shows after phase 0's, whether it has an image (); without a texture switch
    switch: tuple[bool, ...]
    alpha: bool               # msh alpha
    colours: tuple[str, ...]  # the fields of COLOUR_NODES keyed
    choice: bool              # alternative tracks: the ambient and specular are not wired


def _animation_shape(keys: MaterialKeys | None) -> _AnimationShape | None:
    if keys is None:
        return None
    switch = () if keys.texture_frames is None else tuple(ref is not None for ref in keys.textures[1:])
    return _AnimationShape(switch, "alpha" in keys.fields, tuple(n for n in COLOUR_NODES if n in keys.fields),
                           bool(keys.tracks))


def _template(shape: GraphShape, name: str, created) -> tuple:
    """A material of that graph: (the material, its GraphPaths, the names of its texture switch's images)."""
    material, sockets = template_material(shape, name, created)
    switch_images = []
    if shape.animation is not None:
        nodes = NewNodes(material.node_tree)
        _diffuse_node(nodes, sockets.diffuse)
        texture_colour, switch_images = _texture_switch(nodes, sockets.texture, shape.animation.switch)
        if shape.animation.alpha and sockets.alpha:
            alpha = nodes.new("ShaderNodeValue", (-250, -450), ALPHA_NODE)
            nodes.link(alpha.outputs[0], sockets.alpha[0])
        for name in shape.animation.colours:
            _colour(nodes, sockets.bsdf, name, shape.animation.choice, texture_colour)
        nodes.place()
    return material, GraphPaths.of(sockets), switch_images


class _DriverTarget:
    """Driver curves keyed one by one (``compat.key_fcurve``), as ``compat.ChannelTarget.keyed_fcurve`` keys an
    action's."""

    def keyed_fcurve(self, data_path: str, index: int, group: str, co: np.ndarray, interpolation: int,
                     cyclic: bool):
        return compat.key_fcurve(self.new_fcurve(data_path, index, group), co, interpolation, cyclic)


class _BeltTarget(_DriverTarget):
    """Where a belt's material keys go (compat.ChannelTarget's ``new_fcurve``): drivers on the node tree reading
    the channel's slider on the model root, the keys' x being the slider value x the track's period (ms)."""

    def __init__(self, tree, root, belt, period_ms: int) -> None:
        self.tree, self.root, self.belt, self.period_ms = tree, root, belt, period_ms
        if belt.property not in root:
            add_slider(root, belt.property, belt.initial,
                       f"Controller channel {belt.index}: the belt; 0..1 plays its materials' track")

    def new_fcurve(self, data_path: str, index: int, _group: str):
        return slider_fcurve(self.tree, data_path, index, self.root, self.belt.property, self.period_ms)


class _TrackChoice(_DriverTarget):
    """Where the keys of a material's alternative tracks go: drivers on the node tree reading the material's own
    ``msh_track`` (a view: the export writes no track), the keys' x being the track index."""

    def __init__(self, tree, material, tracks: int) -> None:
        self.tree, self.material = tree, material
        material[P.TRACK] = 0
        material.id_properties_ui(P.TRACK).update(
            min=0, max=tracks - 1, soft_min=0, soft_max=tracks - 1, default=0,
            description=f"The MAT0 track shown, 0..{tracks - 1}: the material's alternatives (the game draws "
                        "track 0 on an object; the others are, for instance, a terrain's second stage)")

    def new_fcurve(self, data_path: str, index: int, _group: str):
        return slider_fcurve(self.tree, data_path, index, self.material, P.TRACK, id_type="MATERIAL")


def _key_material(material: bpy.types.Material, paths: GraphPaths, switch_images: list, keys: MaterialKeys, root,
                  created, keyed: dict) -> None:
    """Key the animated nodes of a look's graph (``_template``) and give them their first values."""
    tree = material.node_tree
    if keys.tracks:
        target = _TrackChoice(tree, material, keys.tracks)
    elif keys.belt is None:
        action = created.add(bpy.data.actions.new(f"{material.name}|track 0"))
        target = compat.ChannelTarget(action, tree, material.name, keyed)
    else:
        target = _BeltTarget(tree, root, keys.belt, keys.period_ms)
    target = _Written(target, material)
    nodes = tree.nodes
    if DIFFUSE_NODE in nodes:
        _key_node(target, nodes[DIFFUSE_NODE], DIFFUSE_NODE, (keys.colour_frames, keys.colour, keys.colour_glides,
                                                               keys.cyclic))
    if paths.mapping is not None and keys.cell_frames is not None:
        u0, v0, du, dv = keys.cell_boxes.T
        path = f'nodes["{paths.mapping}"].inputs'
        co = _key_co(keys.cell_frames, np.column_stack([u0, 1.0 - v0 - dv, du, dv]))
        for k, (socket, index) in enumerate(((1, 0), (1, 1), (3, 0), (3, 1))):
            _keys(target, f"{path}[{socket}].default_value", index, paths.mapping, co[k], False, keys.cyclic)
    for i, image_node in enumerate(switch_images, 1):
        factor = (keys.texture_index == i).astype(np.float64)[:, None]
        label = TEXTURE_NODE.format(i)
        _key_node(target, nodes[label], label, (keys.texture_frames, factor, False, keys.cyclic))
        if image_node is not None:
            nodes[image_node].image = image_for(keys.textures[i], created)
    if ALPHA_NODE in nodes:
        field = keys.fields["alpha"]
        _key_node(target, nodes[ALPHA_NODE], ALPHA_NODE, (field.frames, field.values, field.glides, keys.cyclic))
    for name, label in COLOUR_NODES.items():
        if name in keys.fields:
            field = keys.fields[name]
            _key_node(target, nodes[label], label, (field.frames, field.values, field.glides, keys.cyclic))
    material[P.MATERIAL_CURVES] = fingerprint(target.curves)


class _Written:
    """A target (``keyed_fcurve``) that keeps the curves it made as Curves, as ``material_curves`` would read them
    back: the keys as written, unless ``update`` merged some (then read back; no read-back of
    every curve's keys)."""

    def __init__(self, target, material) -> None:
        self.target, self.material = target, material
        self.curves: list[Curve] = []
        self._settings: dict[bool, str] = {}  # cyclic -> the settings of the target's new curves

    def keyed_fcurve(self, data_path: str, index: int, group: str, co: np.ndarray, interpolation: int,
                     cyclic: bool) -> None:
        fcurve = self.target.keyed_fcurve(data_path, index, group, co, interpolation, cyclic)
        count = len(co) // 2
        if len(fcurve.keyframe_points) != count:
            self.curves.append(material_curve(self.material, fcurve))
            return
        settings = self._settings.get(cyclic)
        if settings is None:
            settings = self._settings[cyclic] = curve_settings(fcurve.extrapolation, fcurve.mute,
                                                               len(fcurve.modifiers))
        self.curves.append(Curve(-1, self.material.name, data_path, index, co, np.full(count, interpolation, np.int32),
                                 settings))


def _hold(node, value: tuple) -> None:
    """The value of an RGB or Value node's output, written without an RNA update (``foreach_set``): a value set
    alone updates the whole tree, and this tree is the import's new one, which nothing has evaluated yet: one
    update, not one per node)."""
    node.outputs.foreach_set("default_value", value)


def _key_node(target, node, label: str, keys_of) -> None:
    """Key an RGB (3 columns of values) or Value node's output, holding the first value."""
    frames, values, linear, cyclic = keys_of
    width = values.shape[1]
    _hold(node, (*values[0], 1.0) if width == 3 else (float(values[0][0]),))
    co = _key_co(frames, values)
    for index in range(width):
        _keys(target, f'nodes["{node.name}"].outputs[0].default_value', index, label, co[index], linear, cyclic)


def _texture_switch(nodes: NewNodes, base, switch: tuple[bool, ...]) -> tuple:
    """Image Texture nodes (given no image: _key_material does) for the other textures the track shows beside the
    ``base`` one, chosen by Mix nodes whose factor a Value node ``msh texture <i>`` gives: the socket giving the
    texture colour shown (None without a texture), and the names of the image nodes (None: drawn untextured)."""
    tree = nodes.tree
    if base is None:
        return None, []
    if not switch:
        return base.outputs["Color"], []
    colour_users = [link.to_socket for link in base.outputs["Color"].links]
    alpha_users = [link.to_socket for link in base.outputs["Alpha"].links]
    vector = base.inputs["Vector"].links[0].from_socket if base.inputs["Vector"].is_linked else None
    colour, alpha = base.outputs["Color"], base.outputs["Alpha"]
    x, y = base.location
    images = []
    for i, has_image in enumerate(switch, 1):
        value = nodes.new("ShaderNodeValue", (x, y - 300 * i - 150), TEXTURE_NODE.format(i))
        texture = None
        if has_image:
            texture = nodes.new("ShaderNodeTexImage", (x, y - 300 * i))
            if vector is not None:
                tree.links.new(vector, texture.inputs["Vector"])
        images.append(None if texture is None else texture.name)
        colour = _mix(nodes, "RGBA", colour, texture.outputs["Color"] if texture else (1.0, 1.0, 1.0, 1.0),
                      value, (x + 150, y - 300 * i + 100))
        if alpha_users:
            alpha = _mix(nodes, "FLOAT", alpha, texture.outputs["Alpha"] if texture else 1.0, value,
                         (x + 150, y - 300 * i - 100))
    for socket in colour_users:
        tree.links.new(colour, socket)
    for socket in alpha_users:
        tree.links.new(alpha, socket)
    return colour, images


def _mix(nodes: NewNodes, data_type: str, a, b, switch, location):
    """Mix ``a`` toward ``b`` by the switch's value; the result socket."""
    tree = nodes.tree
    mix = nodes.new("ShaderNodeMix", location)
    mix.data_type = data_type
    kind = "RGBA" if data_type == "RGBA" else "VALUE"
    tree.links.new(switch.outputs[0], mix.inputs["Factor"])
    tree.links.new(a, mix_socket(mix, "A", kind))
    if isinstance(b, bpy.types.NodeSocket):
        tree.links.new(b, mix_socket(mix, "B", kind))
    else:
        mix_socket(mix, "B", kind).default_value = b
    return mix_socket(mix, "Result", kind, output=True)


def _colour(nodes: NewNodes, bsdf, name: str, choice: bool, texture_colour) -> None:
    """The RGB node of the ambient, specular or emissive colour, wired as the device uses it."""
    tree = nodes.tree
    node = nodes.new("ShaderNodeRGB", (-250, 450 + 200 * list(COLOUR_NODES).index(name)), COLOUR_NODES[name])
    if bsdf is None or name == "emissive" or choice:
        return
    if name == "specular":
        tree.links.new(node.outputs[0], bsdf.inputs["Specular Tint"])
        return
    emission = node.outputs[0]
    if texture_colour is not None:  # the device adds the ambient before the texture stage multiplies
        by, product = multiply(nodes, texture_colour, (250, 350))
        tree.links.new(emission, by)
        emission = product
    tree.links.new(emission, bsdf.inputs["Emission Color"])
    bsdf.inputs["Emission Strength"].default_value = 1.0


def material_actions(materials) -> set:
    """The actions animating the materials' node trees."""
    out = set()
    for material in materials:
        anim = material.node_tree.animation_data if material.node_tree is not None else None
        if anim is not None and anim.action is not None:
            out.add(anim.action)
    return out


def _key_co(frames: np.ndarray, values: np.ndarray) -> np.ndarray:
    """(width, k x 2) float32 (frame, value) pairs, flattened, of each column of ``values`` (k, width)."""
    co = np.empty((values.shape[1], len(frames), 2), np.float32)
    co[:, :, 0] = frames
    co[:, :, 1] = values.T
    return co.reshape(values.shape[1], -1)


def _keys(target, data_path: str, index: int, group: str, co: np.ndarray, linear: bool, cyclic: bool) -> None:
    target.keyed_fcurve(data_path, index, group, co, compat.LINEAR if linear else CONSTANT, cyclic)


def _diffuse_node(nodes: NewNodes, sockets: list):
    """An RGB node feeding every socket the material graph gave the diffuse colour as a constant."""
    if not sockets:
        return None
    node = nodes.new("ShaderNodeRGB", (-250, 250), DIFFUSE_NODE)
    for socket in sockets:
        nodes.tree.links.new(node.outputs[0], socket)
    return node
