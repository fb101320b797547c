"""`python -m toolguard` runs the same command line as the `toolguard` script."""

from toolguard.entry import main

main()
