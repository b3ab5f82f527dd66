"""New files made from definitions: models (build) and generated models and libraries (synth)."""
