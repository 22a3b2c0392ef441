"""Playing games: one game's state and records (``session``), the turn loop (``driver``), a
series of games (``series``), a match between bots (``match``), replays (``replay``,
``replay_bundle``), and an author's game run behind its sandboxed host (``game_proxy``;
in the page ``page_game``).

May import: ``engine.core``, ``engine.games``, ``engine.authored``, ``engine.bots``.
"""
