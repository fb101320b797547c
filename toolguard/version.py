"""toolguard's version: one place, read by the package, the cache keys and the build."""

__version__ = "0.1.0"
