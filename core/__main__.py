import signal
import sys

from .cli.main import main

signal.signal(signal.SIGINT, signal.default_int_handler)  # loaded: Ctrl-C is main()'s (core/__init__.py)
sys.exit(main())
