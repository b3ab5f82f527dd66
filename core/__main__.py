import signal
import sys

from .cli.main import main

signal.signal(signal.SIGINT, signal.default_int_handler)  # loaded: Ctrl-C is main()'s (core/__init__.py)
code = main()
signal.signal(signal.SIGINT, signal.SIG_IGN)  # done: a Ctrl-C while Python shuts down changes nothing
sys.exit(code)
