"""A campaign mission's briefing flythrough (core.briefing.cfg, world digest §5)."""
