"""New files made from definitions: models (build), edited slots spliced into a model (splice), and
generated models, libraries, units and controllers for samples and tests (synth, units, controllers)."""
