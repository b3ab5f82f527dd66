"""Node animation: the track IR and canonical writer (tracks), the runtime's sampler and pose blend
(sampler), pose matrices (pose), key authoring within a tolerance (keys), msh-animation.md; and the
controller that picks clips out of the timeline (controller)."""
