"""Node materials and images for the looks of io_msh.imp.plan (core.appearance): what the game's device draws.

- base colour = texture x phase diffuse (x lightmap, on its own UV map), the
  diffuse given as the linear value of its sRGB bytes (io_msh.com.colours), so
  that Blender's linear multiply shows about the game's sRGB product;
- alpha = phase ambient alpha (x the texture's alpha unless the material is
  "lit skin"), used only by the blending modes;
- OPAQUE draws opaque, BLEND alpha-blends, ADD adds (emission over transparency);
- every face is two-sided; an atlas cell maps the UVs through a Mapping node,
  so the mesh keeps the file's UVs.

A graph is built once per shape (``GraphShape``: which nodes, not their values)
and copied for every look of that shape (material_animation.build_materials),
then given the look's values (``fill_material``).

Images are made once per library entry and shared by every model that uses
them (found again by their ``msh_texture`` property), and packed into the
.blend. Pixel rows are flipped so that the picture stands upright in
Blender, whose V is ``1 - v`` (io_msh.com.conversion): the texel the game shows
at a UV is the texel Blender shows there.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from contextlib import contextmanager
from dataclasses import dataclass, field

import bpy
import numpy as np

from ...core.appearance.mat0 import ADD, BLEND, OPAQUE
from ...core.appearance.resolve import Look, TextureRef, decoded
from ...core.errors import printable
from ..com import compat
from ..com import props as P
from ..com.colours import linear_rgba


def texture_key(ref: TextureRef) -> str:
    return printable(f"{ref.library}|{ref.entry}")


def image_for(ref: TextureRef, created) -> bpy.types.Image:
    """The Blender image of a library texture: the one an earlier import made, or a new packed one."""
    key = texture_key(ref)
    image = _known_image(key)
    if image is not None:
        return image
    rgba = decoded(ref)
    height, width = rgba.shape[:2]
    image = created.add(bpy.data.images.new(ref.entry, width, height, alpha=True))
    image.pixels.foreach_set((np.flipud(rgba).astype(np.float32) / 255.0).ravel())
    image.pack()
    image[P.TEXTURE] = key
    _IMAGES[key] = image.name
    return image


# texture key -> image name (a name, never a reference that a file load would leave dangling), refreshed by one
# scan when a key is missing
_IMAGES: dict[str, str] = {}


def _known_image(key: str) -> bpy.types.Image | None:
    """The image an earlier import made for ``key``: a look-up, not a scan of every image per texture (the
    100th import into a scene paid for all the images before it); a removed, renamed-away or not yet seen
    image sends it to one scan of bpy.data.images."""
    image = bpy.data.images.get(_IMAGES.get(key, ""))
    if image is not None and image.library is None and image.get(P.TEXTURE) == key:
        return image
    _IMAGES.clear()
    first = None
    for each in bpy.data.images:
        found = each.get(P.TEXTURE)
        if isinstance(found, str) and found not in _IMAGES:
            _IMAGES[found] = each.name
            if found == key:
                first = each
    return first


@dataclass(frozen=True)
class GraphShape:
    """What a look's node graph is made of, apart from its values: the looks of one shape wear
    copies of one graph built once (``Material.copy`` costs a tenth of building the nodes and links one by one),
    each then given its own values (``fill_material``)."""

    blend: str
    textured: bool
    mapped: bool          # the base texture through a Mapping node: an atlas cell, or one that the track animates
    texture_alpha: bool   # alpha = the texture's alpha x the phase's (a blending look that is not lit skin)
    lightmapped: bool
    animation: Hashable = None  # io_msh.imp.material_animation's part (None: not animated)


def graph_shape(look: Look, with_lightmap_uvs: bool, cell_animates: bool = False,
                animation: Hashable = None) -> GraphShape:
    textured = look.texture is not None
    return GraphShape(look.blend, textured, textured and (look.cell is not None or cell_animates),
                      textured and look.blend != OPAQUE and not look.lit_skin,
                      with_lightmap_uvs and look.lightmap is not None, animation)


@dataclass
class GraphSockets:
    """Where a template's graph wants what varies between the looks of its shape: the sockets given the diffuse
    colour and the alpha as constants, the base texture, its Mapping node, the lightmap texture and the
    Principled BSDF (None when the graph has none)."""

    diffuse: list = field(default_factory=list)
    alpha: list = field(default_factory=list)
    texture: bpy.types.Node | None = None
    mapping: bpy.types.Node | None = None
    lightmap: bpy.types.Node | None = None
    bsdf: bpy.types.Node | None = None


@dataclass(frozen=True)
class GraphPaths:
    """GraphSockets as paths from the node tree, the same in every copy of the template."""

    diffuse: tuple[str, ...]
    alpha: tuple[str, ...]
    texture: str | None
    mapping: str | None
    lightmap: str | None

    @classmethod
    def of(cls, sockets: GraphSockets) -> GraphPaths:
        def name(node):
            return None if node is None else node.name
        return cls(tuple(s.path_from_id() for s in sockets.diffuse), tuple(s.path_from_id() for s in sockets.alpha),
                   name(sockets.texture), name(sockets.mapping), name(sockets.lightmap))


def template_material(shape: GraphShape, name: str, created) -> tuple[bpy.types.Material, GraphSockets]:
    """A material with the graph of that shape, without the values of any look."""
    material = created.add(bpy.data.materials.new(name))
    material.use_backface_culling = False  # the game draws every batch two-sided
    if shape.blend in (BLEND, ADD):
        material.blend_method = "BLEND"
        material.surface_render_method = "BLENDED"
    graph = _Graph(compat.node_tree(material), shape)
    graph.build()
    graph.nodes.place()
    return material, graph.sockets


def fill_material(material: bpy.types.Material, look: Look, paths: GraphPaths, created) -> None:
    """Give a copy of a look's template graph the look's values."""
    material[P.MATERIAL] = look.wear_index
    if look.listed:
        material[P.WEAR_NAME] = look.name
    if look.lightmap_index is not None:
        material[P.LIGHTMAP] = look.lightmap_index
    if look.material_entry is not None:
        material[P.MAT0] = look.material_entry
    material.diffuse_color = linear_rgba(look.diffuse)
    tree = material.node_tree
    rgb = (*linear_rgba(look.diffuse[:3]), 1.0)
    for path in paths.diffuse:
        tree.path_resolve(path).default_value = rgb
    for path in paths.alpha:
        tree.path_resolve(path).default_value = look.diffuse[3]
    if paths.mapping is not None and look.cell is not None:
        u0, v0, du, dv = look.cell
        mapping = tree.nodes[paths.mapping]
        mapping.inputs["Location"].default_value = (u0, 1.0 - v0 - dv, 0.0)
        mapping.inputs["Scale"].default_value = (du, dv, 1.0)
    if paths.texture is not None:
        tree.nodes[paths.texture].image = image_for(look.texture, created)
    if paths.lightmap is not None:
        tree.nodes[paths.lightmap].image = image_for(look.lightmap, created)


class NewNodes:
    """The nodes added to a material's tree, placed all at once (``place``, one ``foreach_set``): a location set
    node by node updates the whole tree each time."""

    def __init__(self, tree) -> None:
        self.tree = tree
        self._placed: list[tuple[object, tuple[float, float]]] = []

    def new(self, kind: str, location, name: str | None = None, **settings):
        """A node of that kind, named and labelled ``name`` if given, with those settings."""
        node = self.tree.nodes.new(kind)
        if name is not None:
            node.name = node.label = name
        for key, value in settings.items():
            setattr(node, key, value)
        self._placed.append((node, location))
        return node

    def link(self, output, input_) -> None:
        self.tree.links.new(output, input_)

    def place(self) -> None:
        if not self._placed:
            return
        nodes = self.tree.nodes
        co = np.empty(2 * len(nodes), np.float32)
        nodes.foreach_get("location", co)
        for node, location in self._placed:
            at = 2 * nodes.find(node.name)
            co[at:at + 2] = location
        nodes.foreach_set("location", co)
        self._placed.clear()


def multiply(nodes: NewNodes, colour, location) -> tuple:
    """A Mix node multiplying the ``colour`` socket by its B input: (B, the product)."""
    mix = nodes.new("ShaderNodeMix", location, data_type="RGBA", blend_type="MULTIPLY")
    mix.inputs["Factor"].default_value = 1.0
    nodes.link(colour, mix_socket(mix, "A"))
    return mix_socket(mix, "B"), mix_socket(mix, "Result", output=True)


class _Graph:
    """The node tree of a shape, laid out left to right; the sockets that take a look's values are noted in
    ``sockets``, given no value."""

    def __init__(self, tree, shape: GraphShape) -> None:
        self.tree, self.shape = tree, shape
        self.sockets = GraphSockets()
        self.nodes = NewNodes(tree)
        tree.nodes.clear()

    def build(self) -> None:
        shape, sockets = self.shape, self.sockets
        out = self.nodes.new("ShaderNodeOutputMaterial", (900, 0))
        colour, alpha = self._colour_and_alpha()
        if shape.blend == ADD:
            emission = self.nodes.new("ShaderNodeEmission", (500, 100))
            self._feed(colour, emission.inputs["Color"], sockets.diffuse)
            self._feed(alpha, emission.inputs["Strength"], sockets.alpha)
            add = self.nodes.new("ShaderNodeAddShader", (700, 0))
            self.nodes.link(self.nodes.new("ShaderNodeBsdfTransparent", (500, -100)).outputs[0], add.inputs[1])
            self.nodes.link(emission.outputs[0], add.inputs[0])
            self.nodes.link(add.outputs[0], out.inputs["Surface"])
            return
        bsdf = sockets.bsdf = self.nodes.new("ShaderNodeBsdfPrincipled", (500, 0))
        self._feed(colour, bsdf.inputs["Base Color"], sockets.diffuse)
        if shape.blend == BLEND:
            self._feed(alpha, bsdf.inputs["Alpha"], sockets.alpha)
        self.nodes.link(bsdf.outputs[0], out.inputs["Surface"])

    def _feed(self, value, socket, constant_sockets: list) -> None:
        """Link the socket from ``value``, or note it in ``constant_sockets`` (``value`` None: a constant)."""
        if value is None:
            constant_sockets.append(socket)
        else:
            self.nodes.link(value, socket)

    def _colour_and_alpha(self):
        """The sockets giving the base colour and alpha; None for a constant."""
        shape = self.shape
        colour_socket = alpha_socket = None
        if shape.textured:
            texture = self.sockets.texture = self._image(P.BASE_UV, 0, shape.mapped)
            self.tree.nodes.active = texture  # Workbench's texture colour shows the active image
            colour_socket = self._multiply(texture.outputs["Color"], None, 100)
            if shape.texture_alpha:
                alpha_socket = self._math_multiply(texture.outputs["Alpha"], 100)
        if shape.lightmapped:
            lightmap = self.sockets.lightmap = self._image(P.LIGHTMAP_UV, -350, False)
            colour_socket = self._multiply(lightmap.outputs["Color"], colour_socket, 300)
        return colour_socket, alpha_socket

    def _image(self, uv_map: str, y: float, mapped: bool):
        """An Image Texture node on that UV map, through a Mapping node if ``mapped``."""
        uv = self.nodes.new("ShaderNodeUVMap", (-700, y), uv_map=uv_map)
        vector = uv.outputs["UV"]
        if mapped:
            vector = self._cell_mapping(vector, y)
        texture = self.nodes.new("ShaderNodeTexImage", (-250, y))
        self.nodes.link(vector, texture.inputs["Vector"])
        return texture

    def _cell_mapping(self, vector, y: float):
        """The Mapping node of the atlas cell (fill_material sets it: Direct3D u' = u0 + u * du, v' = v0 + v * dv,
        written for Blender's V = 1 - v; the identity without a cell)."""
        mapping = self.sockets.mapping = self.nodes.new("ShaderNodeMapping", (-480, y))
        if mapping.vector_type != "POINT":  # the default: not set again, which would update the tree
            mapping.vector_type = "POINT"
        self.nodes.link(vector, mapping.inputs["Vector"])
        return mapping.outputs["Vector"]

    def _multiply(self, socket, other, x: float):
        """``socket`` x ``other`` (None: the diffuse colour)."""
        by, product = multiply(self.nodes, socket, (x, 0))
        self._feed(other, by, self.sockets.diffuse)
        return product

    def _math_multiply(self, socket, x: float):
        """``socket`` x the alpha."""
        math = self.nodes.new("ShaderNodeMath", (x, -200), operation="MULTIPLY")
        self.nodes.link(socket, math.inputs[0])
        self.sockets.alpha.append(math.inputs[1])
        return math.outputs[0]


_MIX_SOCKETS: dict[tuple[bool, str, str], int] = {}  # (output, name, type) -> index: one layout per Blender


def mix_socket(mix, name: str, kind: str = "RGBA", output: bool = False):
    """A Mix node's socket of that name and type (it has an A, a B and a Result per data type), found by index
    once its place is known (not every socket read per node)."""
    key, sockets = (output, name, kind), mix.outputs if output else mix.inputs
    if key not in _MIX_SOCKETS:
        _MIX_SOCKETS[key] = next(i for i, s in enumerate(sockets) if s.name == name and s.type == kind)
    return sockets[_MIX_SOCKETS[key]]


# --------------------------------------------------------------------- FBX output
@contextmanager
def textures_for_fbx(materials):
    """Materials laid out so that Blender's FBX exporter carries their base texture, for the time of an
    FBX export; everything is restored afterwards.

    The FBX exporter reads only an Image Texture linked straight into the Principled BSDF's Base Color (it
    does not follow the Mix node that multiplies the diffuse colour in), and names the file from the
    image's path, which images decoded from a library do not have. So, for each material: the base texture
    is linked straight to Base Color, whose own value becomes the diffuse colour (FBX's DiffuseColor), and
    an image without a path gets its name as a ``.png`` file name (a packed image is embedded under it
    with ``embed_textures``). Yields the number of materials changed.
    """
    links, colours, paths = [], [], []
    try:
        for material in materials:
            tree = material.node_tree if material is not None else None
            bsdf = next((n for n in tree.nodes if n.type == "BSDF_PRINCIPLED"), None) if tree else None
            if bsdf is None or not bsdf.inputs["Base Color"].is_linked:
                continue
            socket = bsdf.inputs["Base Color"]
            texture = base_texture(tree)
            if texture is None or socket.links[0].from_node == texture:
                continue
            links.append((tree, socket.links[0].from_socket, socket))
            colours.append((socket, tuple(socket.default_value)))
            socket.default_value = (*material.diffuse_color[:3], 1.0)
            tree.links.new(texture.outputs["Color"], socket)
            image = texture.image
            if not image.filepath_raw:
                paths.append(image)
                image.filepath_raw = re.sub(r'[\\/:*?"<>|\x00-\x1f]', "_", image.name) + ".png"
        yield len(links)
    finally:
        for image in paths:
            image.filepath_raw = ""
        for socket, value in colours:
            socket.default_value = value
        for tree, source, socket in links:
            tree.links.new(source, socket)


def base_texture(tree):
    """The tree's image texture on the base UV map (not the lightmap's)."""
    for node in tree.nodes:
        if node.type != "TEX_IMAGE" or node.image is None:
            continue
        vector = node.inputs["Vector"]
        uv = vector.links[0].from_node if vector.is_linked else None
        while uv is not None and uv.type == "MAPPING":
            uv = uv.inputs["Vector"].links[0].from_node if uv.inputs["Vector"].is_linked else None
        if uv is None or uv.type != "UVMAP" or uv.uv_map != P.LIGHTMAP_UV:
            return node
    return None
