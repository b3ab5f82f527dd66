# Import Parkan MSH preset: an Empty per node and few keys (the game's pose within the export's tolerance), the
# chosen damage stage and LOD, the model's whole timeline: to move, re-time and re-key nodes by hand.
import bpy

op = bpy.context.active_operator

op.node_mode = 'EMPTIES'
op.animation = 'EDITING'
op.slots = 'CHOSEN'
op.stage = 0
op.lod = '0'
op.set_frame_range = True
op.global_scale = 1.0
op.clips = 'NONE'
op.root_motion = 'IN_PLACE'
op.frame_rate = 24.0
op.axis_forward = 'Y'
op.axis_up = 'Z'
