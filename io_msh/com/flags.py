"""The flag bits of faces (Res7 +0) and nodes (Res1 +0) the game reads, and the Blender names they get
(openparkan docs/07-objects.md; docs/formats/msh.md, "MSH fields the game reads").

Faces: one boolean face attribute per named bit, and the whole word in an integer attribute when it holds
bits without a name (kept as they are on export). Nodes: the whole word as a custom property on the bone or
Empty, and a boolean property per named bit.
"""

from __future__ import annotations

import numpy as np

# Res7 +0 u16: attribute name -> bit
FACE_BITS = {
    "msh_walkable": 0x02,     # walkable floor of a walk-in building; rounds strike it
    "msh_see_through": 0x04,  # foliage: rounds and collision pass
    "msh_door": 0x10,         # broad face of a door leaf
    "msh_glass": 0x20,        # glass: rounds pass
}
FACE_NAMED = sum(FACE_BITS.values())
FACE_WORD = "msh_face_flags"  # integer face attribute: the whole word, written only when unnamed bits are set

# Res1 +0 u16 (openparkan's reading): property name -> bit
NODE_BITS = {
    "msh_interior": 0x0001,   # interior node (i* names)
    "msh_cockpit": 0x0020,    # cockpit, drawn only in the first-person view
}
NODE_NAMED = sum(NODE_BITS.values())
NODE_WORD = "msh_node_flags"  # on the bone or Empty: the whole word as read
NODE_GROUP = "msh_node_group"  # on the collections holding the parts of interior or cockpit nodes


def face_bits(words: np.ndarray) -> dict[str, np.ndarray]:
    """Each named bit of the face words, as booleans."""
    words = np.asarray(words, np.int64)
    return {name: (words & bit) != 0 for name, bit in FACE_BITS.items()}


def face_words(raw: np.ndarray | None, bits: dict[str, np.ndarray], count: int) -> np.ndarray:
    """The face words: the named bits as given (a missing attribute: as in ``raw``), every other bit from
    ``raw`` (0 when the mesh has no word attribute)."""
    raw = np.zeros(count, np.int64) if raw is None else np.asarray(raw, np.int64) & 0xFFFF
    words = raw.copy()
    for name, bit in FACE_BITS.items():
        if name in bits:
            words = np.where(np.asarray(bits[name], bool), words | bit, words & ~bit)
    return words


def node_word(props, read: int = 0) -> int:
    """A node's flag word from its bone's or Empty's properties: the stored word with each named bit as
    its boolean property says (``read``: the word when the properties are missing)."""
    word = int(props.get(NODE_WORD, read)) & 0xFFFF
    for name, bit in NODE_BITS.items():
        if name in props:
            word = word | bit if props[name] else word & ~bit
    return word


def node_group(word: int) -> str | None:
    """The collection a node's parts go to on import: 'cockpit', 'interior' or None."""
    if word & NODE_BITS["msh_cockpit"]:
        return "cockpit"
    if word & NODE_BITS["msh_interior"]:
        return "interior"
    return None
