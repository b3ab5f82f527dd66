"""Shared by import, export and batch: the MSH-to-Blender value mapping (conversion, colours), the Blender
version differences (compat), the custom property names of the scene contract (props), the model's
F-curves and their fingerprints (curves), walking a model's objects (hierarchy), and the controller's channel
sliders (sliders)."""
