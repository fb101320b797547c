"""`python -m toolguard` runs the same command line as the `toolguard` script."""

import sys

from toolguard.one_shot import start

start(sys.argv)

from toolguard.cli import main  # noqa: E402 - after start-up is set

main()
