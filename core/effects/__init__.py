"""Effects: explosions (``.exp``, what a hit plays), FXID effects (``effects.rlb``: a header and typed emitter
blocks) and how controllers and damage tables attach them to a model (spec: world digest section 2)."""
