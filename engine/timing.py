"""The timing policy every controller applies to a bot's turn, native or in the page."""

from __future__ import annotations


def hard_limit_ms(time_limit_ms: int) -> int:
    """How long to wait before a silent bot is stopped: 10x the limit, at least 2 s.

    An answer later than ``time_limit_ms`` but before this is a time-out fault and the bot
    goes on; nothing before this stops the bot (a ``timeout`` fault, and it is frozen).
    """
    return max(2000, 10 * time_limit_ms)
