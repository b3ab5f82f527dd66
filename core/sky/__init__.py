"""A mission's atmosphere: ``sky.ske`` (the day's keyframes, core.sky.ske) and the sky at a time of day
(core.sky.day); its nine materials are ``sky.wea``, a WEAR list (core.appearance.wear)."""
