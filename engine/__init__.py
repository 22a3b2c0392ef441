"""KotH Arena's engine (standard library only: it runs in CPython and in Pyodide)."""

# The one place the project's version is written: pyproject.toml reads it (dynamic), and the
# Stack Snippet exporter pins the wheel of this version.
__version__ = "0.1.0"
