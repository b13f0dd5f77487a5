import sys

from .cli._main import main

# Guarded: a worker process started by spawn (--jobs where fork is not used) imports the main
# module again, and must not run the command a second time.
if __name__ == "__main__":
    sys.exit(main(prog="python -m chunker"))
