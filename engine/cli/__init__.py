"""The command line (``python -m engine``): ``cli`` (the parser, ``match`` and ``verify``),
``cli_tournament``, ``cli_question``, ``cli_game_file`` and ``result_cli``. rich is imported
here alone, so that the rest of the engine stays standard library only.

May import: ``engine.core``, ``engine.games``, ``engine.authored``, ``engine.bots``,
``engine.play``, ``engine.contest``.
"""
