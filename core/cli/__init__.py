"""The command-line tool (``python -m core``): argument parsing and printing (main), the in-memory
rewrite behind ``roundtrip`` (roundtrip), and the unit and clips commands (unit, clips)."""
