"""`python -m toolguard` runs the same command line as the `toolguard` script."""

from toolguard.cli import main

main()
