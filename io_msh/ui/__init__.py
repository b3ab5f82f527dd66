"""What the user sees in Blender: the import and export operators, the file handler and menus
(operators), Write Clip to Timeline (clip_operators), Import and Export Unit (unit_operators), the Parkan
sidebar panel (panel), and the extension's preferences (preferences)."""
