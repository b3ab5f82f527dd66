"""Units as the game assembles them (units-clips digest section 1): ``.dat`` unit trees (dat), ``objects.rlb``
records and their lookup (objects), control points (cpt), damage tables (ndp), finding a unit's parts
(resolve) and mounting them at their sockets (mount)."""
