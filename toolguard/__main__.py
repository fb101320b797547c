"""`python -m toolguard` runs the same command line as the `toolguard` script."""

import sys

from toolguard.launch import run

run(sys.argv)
