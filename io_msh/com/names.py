"""How Blender numbers the name of an ID whose name is taken: ``GLASS`` becomes ``GLASS.001``, and ``GLASS.001``
(or ``GLASS.5``) becomes ``GLASS.002``: it takes a name's ``.digits`` for its number and counts on from there."""

from __future__ import annotations

import re

_NUMBERED = re.compile(r"\.\d{3,}$")  # the number Blender gives a name in use
_NUMBER = re.compile(r"\.\d+$")     # what Blender takes for a name's number


def unnumbered(name: str) -> str:
    """``name`` without the number Blender gave it (``GLASS.001`` -> ``GLASS``)."""
    return _NUMBERED.sub("", name)


def family(name: str) -> str:
    """The name Blender numbers ``name`` from (``GLASS.1`` -> ``GLASS``): two names of one family compete for the
    same numbers."""
    return _NUMBER.sub("", name)
