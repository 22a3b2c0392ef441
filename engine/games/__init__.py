"""The built-in games, one folder each (``engine/games/<name>/``): ``rules.py`` (the pure state
machine: nothing about bots or I/O), ``wire.py`` (what each bot is told, how its answer is
read, and the game's ``SPEC``) and ``examples/`` (its example bots, plain bot source files
shown in the page's examples menu and playable as ``builtin:NAME``). The rule books for bot
authors are in ``docs/rules/``. ``registry`` finds the games by folder.

May import: ``engine.core`` (and ``engine.game_api``).
"""
