"""aBOTcalypse: its rules (``rules``), the game on the public API that the engine plays in-process
(``game``: settings, presets, each bot's view as text and as ``AbotView``, the record) and its
example bots (``examples/``, source files, not modules); its rule book for bot authors is
docs/rules/abotcalypse.md."""
