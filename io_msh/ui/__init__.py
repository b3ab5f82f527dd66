"""What the user sees in Blender: the import and export operators, the file handler and menus
(operators), the Parkan sidebar panel (panel), and the extension's preferences (preferences)."""
