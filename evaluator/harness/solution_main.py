"""Entry point of the solution's process: python -P -s -m evaluator.harness.solution_main
CHANNEL_FD ARENA_FD (started by solution_process.py; the module itself is executor.py)."""

import sys

from .executor import main

if __name__ == "__main__":
    main(sys.argv[1:])
