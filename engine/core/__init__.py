"""The engine's vocabulary, shared by every other package: a game's spec (``spec``), how a game
ends (``outcome``), the errors a move or a game's code raises (``errors``), time limits
(``timing``), seeds and secrets (``randomness``), the bounds of a replay and of untrusted JSON
(``replay_limits``, ``json_depth``, ``json_count``) and a function bot's answer as text
(``answer_text``). The public API of an author's game is ``engine.game_api``, which stays at
the top so that authors' modules keep their import; it belongs to this layer.

May import: the standard library only (no other ``engine`` package).
"""
