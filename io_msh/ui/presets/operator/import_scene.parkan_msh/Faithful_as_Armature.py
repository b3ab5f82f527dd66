# Import Parkan MSH preset: one armature per model, exactly the pose the game computes at every frame, every
# damage stage and LOD (the others hidden), and an action per clip of the model's controller with its channel
# sliders: to look at a model as the game plays it, or to export its clips for other engines.
import bpy

op = bpy.context.active_operator

op.node_mode = 'ARMATURE'
op.animation = 'FAITHFUL'
op.slots = 'ALL'
op.stage = 0
op.lod = '0'
op.set_frame_range = True
op.global_scale = 1.0
op.clips = 'ACTIONS'
op.root_motion = 'IN_PLACE'
op.frame_rate = 24.0
op.axis_forward = 'Y'
op.axis_up = 'Z'
