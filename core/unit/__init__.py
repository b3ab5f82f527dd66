"""Units as the game assembles them: ``.dat`` unit trees (dat), ``objects.rlb`` records and their lookup
(objects), control points (cpt), damage tables (ndp), their names (text), finding a unit's parts (resolve)
and mounting them at their sockets (mount)."""
