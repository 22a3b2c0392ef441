"""Running bots: loading a bot's code (``code``, Python 2 in ``python2``), running it in
process or in a sandboxed process (``runners``, ``native``, ``host``, ``sandbox``, ``pipes``,
``kept``), its step budget (``step_budget``, ``budget_*``), reading its reply (``answer``,
``reply``), and an entry's form to a bot (``entries``).

May import: ``engine.core``, ``engine.games``, ``engine.authored``.
"""
