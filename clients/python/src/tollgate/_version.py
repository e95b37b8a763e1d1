"""The package's version (kept with the TypeScript package's)."""

__version__ = "0.1.0"
