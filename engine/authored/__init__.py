"""A game on the public API (one module against ``engine.game_api``): reading and checking its
module (``game_module``), the ``GameSpec`` made from its description (``authored_spec``), the
host that runs an author's game in a process or Worker of its own (``game_host``), its
pictures (``picture``), and the trusted path that plays a built-in game's module in this
process (``in_process``). The engine's side of the host, which runs an author's game
sandboxed, is ``engine.play``'s ``game_proxy`` (it needs ``engine.bots``' sandbox, which needs
this package's bot side).

May import: ``engine.core`` (and ``engine.game_api``).
"""
