"""A campaign mission's briefing flythrough (core.briefing.cfg, openparkan docs/21-briefing.md)."""
