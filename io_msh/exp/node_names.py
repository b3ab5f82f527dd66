"""Node names where the model stores them (plain Python): Res9's 32-byte names, or the Res10 label of a node
with no Res9 name; a renamed node's new name goes where the import read its name."""

from __future__ import annotations

import numpy as np

from ...core.container.nres import game_bytes
from ...core.errors import FormatError
from ...core.msh.labels import encode_labels
from ...core.msh.model import Model
from .scene_model import SceneModel

NAME_BYTES = 31  # Res9: 32-byte names with a NUL


def rename_nodes(model: Model, scene: SceneModel) -> None:
    """Store the new names of renamed nodes where the import read their names: Res9 when the node has a
    name there, else its Res10 label (msh-core.md 8.3 names Res10 for a rename)."""
    renamed = [(i, node) for i, node in enumerate(scene.nodes) if node.renamed]
    if not renamed:
        return
    names = model.node_names_raw.copy()
    labels = list(model.labels) + [None] * max(0, model.node_count - len(model.labels))
    for i, node in renamed:
        if named_by_label(names, i):
            labels[i] = stored_name(node, None)
        else:
            names[i] = stored_name(node, NAME_BYTES)
    if len(names):
        model.set_stream(9, names.tobytes())
    model.set_stream(10, encode_labels(labels), attr1=len(labels))


def named_by_label(names: np.ndarray, index: int) -> bool:
    """Whether the import read node ``index``'s name from its Res10 label (it has no Res9 name)."""
    return not (index < len(names) and names[index].rstrip(b"\0"))


def stored_name(node, limit: int | None) -> bytes:
    """The node's name in code page 1251 as typed (node names carry no escapes: the import reads them with
    ``game_text``); raises FormatError naming the bone or Empty when it cannot be stored."""
    try:
        raw = game_bytes(node.name)
    except UnicodeEncodeError:
        raise FormatError.single("scene", None, f"node {node.handle!r}: the name {node.name!r} cannot be "
                                                "stored in code page 1251; rename it") from None
    if limit is not None and len(raw) > limit:
        raise FormatError.single("scene", None, f"node {node.handle!r}: the name {node.name!r} is {len(raw)} "
                                                f"bytes; MSH node names hold at most {limit}")
    return raw
