"""``--timing``: each bot's median and worst move time, as lines for people.

Printed apart from the JSON that runs are compared by (on standard error under ``--json``),
since wall times differ from run to run: the times come from the replay's debug part
(``engine.play.debug_part``), never from the results.
"""

from __future__ import annotations

from engine.play.debug_part import move_times, timing


def timing_lines(records: list[dict], names: list[str]) -> list[str]:
    """One line per bot: its moves, median and worst wall time per move."""
    width = max((len(name) for name in names), default=0)
    lines = ["move time (wall clock, each reply's round trip):"]
    for name, times in zip(names, move_times(records, len(names)), strict=True):
        stats = timing(times)
        if not stats["moves"]:
            lines.append(f"  {name.ljust(width)}  no moves")
            continue
        lines.append(f"  {name.ljust(width)}  median {stats['median_ms']:.3f} ms, "
                     f"worst {stats['worst_ms']:.3f} ms over {stats['moves']:,} moves")
    return lines
