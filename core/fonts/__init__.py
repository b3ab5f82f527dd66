"""Fonts (world-digest section 6): the ``Tfnt`` glyph table with its atlas, and the ``PAL.PAL`` palette."""

from .palette import PAL_SIZE, Palette, is_palette, parse_palette
from .tfnt import GLYPH, Font, is_font, parse_font, validate_font

__all__ = ["GLYPH", "PAL_SIZE", "Font", "Palette", "is_font", "is_palette", "parse_font", "parse_palette",
           "validate_font"]
