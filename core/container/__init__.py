"""The NRes container: archives of named entries (nres.md)."""
