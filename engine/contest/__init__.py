"""Contests: tournaments and their ranking (``tournament``, ``ranking``, ``result_cache``,
``leaderboard_markdown``), challenges (``challenge``), Stack Exchange questions and their
answers (``stackexchange``, ``se_fetch``, ``question_entries``, ``command_entries``,
``build_cache``, ``answer_*``, ``html_text``) and the Stack Snippet (``snippet``).

May import: ``engine.core``, ``engine.games``, ``engine.authored``, ``engine.bots``,
``engine.play``.
"""
