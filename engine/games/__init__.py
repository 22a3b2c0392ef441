"""The built-in games, one folder each (``engine/games/<name>/``): a game on the public API
(``game.py`` against ``engine.game_api``, loaded in-process by ``engine.authored.in_process``:
every built-in game, each over its ``rules.py``) or a game of the older shape, ``rules.py``
(the pure state machine: nothing about bots or I/O)
and ``wire.py`` (what each bot is told, how its answer is read, and the game's ``SPEC``); and
``examples/`` (its example bots, plain bot source files shown in the page's examples menu and
playable as ``builtin:NAME``). The rule books for bot authors are in ``docs/rules/``.
``registry`` finds the games by folder.

May import: ``engine.core`` (and ``engine.game_api``), ``engine.authored`` (the one loader of
game-API modules).
"""
