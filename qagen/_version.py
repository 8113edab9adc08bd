"""The package version (kept apart so modules can read it without importing the package)."""

__version__ = "0.2.0"
