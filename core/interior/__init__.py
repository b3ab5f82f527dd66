"""Building interiors (spec: world digest section 4): the hall way, a building model's path graph (mesh stream
17, core.interior.hallway), and the ground plan ``.bas`` in ``fortif.rlb`` (NRes type BASE, core.interior.bas)."""
