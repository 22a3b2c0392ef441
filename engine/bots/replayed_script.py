"""A long-running script bot where its ``input()`` cannot block: the script is run again from
its start for every request, on every line it has been sent so far.

A stream-mode script (Flit's: one script for the whole game, reading lines as they come)
needs its ``input()`` to wait for the controller's next message. In a browser Worker that can
block neither on shared memory, nor through JSPI, nor through a service worker ("push"
mode: WebKit's Stack Snippet frame, an opaque origin), nothing can wait inside Python. So
the host keeps the game's messages, and each request runs the script afresh, with its
``random`` seeded as before, on all of them: where it reads past the last line it is
suspended (``ScriptSuspended``), and the reply is the one to the newest request. Earlier
turns' replies and output are the ones already sent, so they are dropped.

A script that answers the same given the same lines (the seeded ``random`` included) plays
exactly the game it plays where ``input()`` blocks. One that reads the clock may answer a
replayed turn differently: the game keeps the answer it got, the script goes on from its new
state, and its stderr says so once. The controller does not charge a turn for the replay of
the turns before it (``ReplayCredit``).
"""

from __future__ import annotations

import random

from engine.bots.code import BotCode
from engine.bots.runners import ScriptSuspended, StreamScriptRunner, _compiled

# How much longer than the first time a replay of earlier turns may take before it counts
# against the turn (a replay re-imports nothing, but its lists and strings are new again).
REPLAY_SLACK = 1.25


class ReplayedScriptRunner:
    """One stream-mode script bot, run again from its start on each request (module doc)."""

    def __init__(self, game: str, bot: BotCode, budget: int | None = None) -> None:
        self.game = game
        self.bot = bot
        self.compiled = _compiled(bot, budget)
        self.budget = self.compiled[1]
        self.messages: list[dict] = []  # the game's requests so far, the start first
        self.answers: dict[int, str | None] = {}  # request id -> the answer it was sent
        self.seed: int | None = None
        self.diverged = False

    def handle(self, request: dict) -> dict:
        """The reply to a ``start``, ``turn`` or ``end`` request of this game."""
        op = request.get("op")
        if op == "start":
            seed = request.get("seed")
            # no seed from the controller: one of its own, the same in every replay
            self.seed = seed if type(seed) is int and seed >= 0 else random.SystemRandom().getrandbits(63)
            self.messages = [request]
            self.answers = {}
            self.diverged = False
        elif not self.messages:
            return {"id": request.get("id"), "answer": None, "error": "the game has not started",
                    "line": None, "stdout": "", "stderr": ""}
        else:
            self.messages.append(request)
        reply = self._replay()
        if op == "end":
            self.messages = []
        return reply

    def _replay(self) -> dict:
        """Run the script from its start on every message so far; the reply to the last."""
        start, *rest = self.messages
        newest = self.messages[-1]
        queue = iter(rest)
        replies: dict[object, dict] = {}

        def receive() -> dict | None:
            message = next(queue, None)
            if message is None:
                raise ScriptSuspended
            return message

        runner = StreamScriptRunner(self.game, self.bot, receive, lambda reply: replies.setdefault(
            reply.get("id"), reply), compiled=self.compiled)
        try:
            runner.run(start["id"], start.get("message") or {}, self.seed, start.get("nonce"))
        except ScriptSuspended:
            pass
        reply = replies.get(newest.get("id"))
        self._note_divergence(replies, reply)
        if reply is None:  # it is waiting for more input without answering (as natively)
            reply = _silent(newest)
        if newest.get("op") == "turn":
            self.answers[newest.get("id")] = reply.get("answer")
        return reply

    def _note_divergence(self, replies: dict[object, dict], reply: dict | None) -> None:
        """Say once, on the newest reply's stderr, when a replayed turn answered otherwise."""
        if self.diverged or reply is None:
            return
        for rid, answer in self.answers.items():
            replayed = replies.get(rid)
            if replayed is not None and replayed.get("answer") != answer:
                self.diverged = True
                reply["stderr"] = (reply.get("stderr") or "") + (
                    f"[KotH Arena: replayed from its start, this script answered an earlier turn "
                    f"{replayed.get('answer')!r} where it had answered {answer!r}: here its input() "
                    "cannot wait, so it is run again on every line so far, and a script that reads "
                    "the clock may go another way]\n")
                return


def _silent(request: dict) -> dict:
    if request.get("op") == "end":
        return {"id": request.get("id"), "ok": True, "stdout": "", "stderr": ""}
    return {"id": request.get("id"), "answer": None, "error": None, "line": None, "stdout": "", "stderr": ""}


class ReplayCredit:
    """The controller's side: what a replayed script bot's turn is not charged for.

    A turn's round trip includes the replay of every turn before it, which the bot already
    paid for. So the time a turn is judged by is its round trip less the bot's own time so
    far (its start and each earlier turn's judged time), with ``REPLAY_SLACK``; its hard limit
    grows by the same. Kept by the controller from times it measured itself; the one word of
    the bot's Worker it takes is the load reply's ``replays``, sent before any of the bot's
    code has run.
    """

    def __init__(self) -> None:
        self.own_ms = 0.0

    def started(self, elapsed_ms: float) -> None:
        self.own_ms = max(0.0, elapsed_ms)

    @property
    def allowance_ms(self) -> float:
        return self.own_ms * REPLAY_SLACK

    def judged(self, elapsed_ms: float) -> float:
        """The turn's time, the replay taken off; counted into the next turns' allowance."""
        own = max(0.0, elapsed_ms - self.allowance_ms)
        self.own_ms += own
        return own



class ReplayCredits:
    """The controller's ``ReplayCredit`` per bot (any key: a seat, a tournament's group and
    seat), for the bots whose load reply said they are replayed."""

    def __init__(self) -> None:
        self.credits: dict[object, ReplayCredit] = {}

    def loaded(self, key: object, reply: object) -> None:
        """A bot was (re)loaded under ``key``; ``reply``: its load reply's fields (a dict)."""
        if isinstance(reply, dict) and reply.get("replays") is True:
            self.credits[key] = ReplayCredit()
        else:
            self.credits.pop(key, None)

    def wait_ms(self, key: object, op: str, wait_ms: float) -> float:
        """How long to wait for the reply to a request: a turn's (or the end's) hard limit
        grows by the replay of the turns before it."""
        credit = self.credits.get(key)
        return wait_ms + credit.allowance_ms if credit is not None and op in ("turn", "end") else wait_ms

    def timed(self, key: object, op: str, elapsed_ms: float) -> float:
        """The time a reply is judged by: a turn's without the replay."""
        credit = self.credits.get(key)
        if credit is None:
            return elapsed_ms
        if op == "start":
            credit.started(elapsed_ms)
        elif op == "turn":
            return credit.judged(elapsed_ms)
        return elapsed_ms
