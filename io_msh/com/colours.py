"""The game's colours in Blender's terms (no bpy).

The game multiplies a texel by the material's diffuse colour as stored, both
display (sRGB) values, and shows the product (docs/formats/materials.md,
"Colours"). Blender keeps colours linear and decodes sRGB textures to
linear before its shader multiplies them; so a diffuse colour is given to
Blender as the linear value of its sRGB bytes, and read back through the
inverse on export. The two functions are the sRGB transfer function (IEC
61966-2-1), the one Blender's "sRGB" colour space uses.
"""

from __future__ import annotations

import numpy as np


def srgb_to_linear(values) -> np.ndarray:
    c = np.asarray(values, np.float64)
    return np.where(c <= 0.04045, c / 12.92, ((np.maximum(c, 0.04045) + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(values) -> np.ndarray:
    c = np.asarray(values, np.float64)
    return np.where(c <= 0.0031308, c * 12.92, 1.055 * np.maximum(c, 0.0031308) ** (1 / 2.4) - 0.055)


def linear_rgba(rgba) -> tuple[float, ...]:
    """An (r, g, b[, a]) display colour as Blender's linear colour; alpha is not a colour and stays."""
    rgba = tuple(float(c) for c in rgba)
    return (*(float(c) for c in srgb_to_linear(rgba[:3])), *rgba[3:])


def display_rgba(rgba) -> tuple[float, ...]:
    """The inverse of ``linear_rgba``."""
    rgba = tuple(float(c) for c in rgba)
    return (*(float(c) for c in linear_to_srgb(rgba[:3])), *rgba[3:])
