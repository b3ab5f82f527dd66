"""The command-line tool (``python -m core``): argument parsing and printing (main), and the in-memory
rewrite behind ``roundtrip`` (roundtrip)."""
