"""The timing policy every controller applies to a bot's turn, native or in the page."""

from __future__ import annotations

# Under a step budget the steps decide a move, and the wall clock is only a safety net for
# what steps do not count (C calls such as sleep or a huge sort): at least this, whatever the
# time limit, so that a busy machine never turns a counted move into a time-out (a Flit
# trial move of 2 page matches at once took up to 1.0 s, half the 2 s hard limit of a 100 ms
# limit, at a load average of 40 on 2 cores).
BUDGET_BACKSTOP_MS = 60_000


def hard_limit_ms(time_limit_ms: int, steps_counted: bool = False) -> int:
    """How long to wait before a silent bot is stopped: 10x the limit, at least 2 s (at least
    ``BUDGET_BACKSTOP_MS`` when the move is limited by a step budget, ``steps_counted``).

    An answer later than ``time_limit_ms`` but before this is a time-out fault and the bot
    goes on (unless its steps are counted); nothing before this stops the bot (a ``timeout``
    fault, and it is frozen).
    """
    hard = max(2000, 10 * time_limit_ms)
    return max(hard, BUDGET_BACKSTOP_MS) if steps_counted else hard
