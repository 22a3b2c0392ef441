"""Atomas: its rules (``rules``), the game on the public API that the engine plays in-process
(``game``: settings, preset, text protocol, the function view) and its example bots
(``examples/``, source files, not modules); its rule book for bot authors is docs/rules/atomas.md."""
