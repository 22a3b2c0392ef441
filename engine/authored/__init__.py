"""An author's game (one module against ``engine.game_api``): reading and checking its module
(``game_module``), the ``GameSpec`` made from its description (``authored_spec``), the host
that runs its code in a process or Worker of its own (``game_host``) and its pictures
(``picture``). The engine's side of that host, which runs it sandboxed, is ``engine.play``'s
``game_proxy`` (it needs ``engine.bots``' sandbox, which needs this package's bot side).

May import: ``engine.core`` (and ``engine.game_api``).
"""
