"""A step budget's verdict the controller can check: sealed in the bot's process, with a key
the bot's code cannot reach.

A bot owns its process: it can rewrite the bot host (``sys.modules``: ``BotHost.handle``,
``FunctionRunner.turn``), the cells of the budget's closures, or write its own replies
(``os.write`` on the reply pipe; in the page, the reply function it finds). So the host's
word that a move kept its budget proves nothing. What the controller trusts instead:

- At load the controller gives the host a fresh secret key (``key``, per process). The host
  hands it at once to ``install``, which keeps it only in an audit hook (PEP 578): a hook
  cannot be listed, removed or reached from Python, and under a step budget
  ``engine.bots.budget_guard`` refuses what would find it (frames, ``gc``'s walks, raw
  memory). The key is popped from the request; nothing else keeps it.
- Every ``start`` and ``turn`` request carries a fresh random ``nonce``. The host asks the
  hook to seal it (``seal``, an audit event anyone may raise: a seal states only the truth):
  the hook reads the budget's counter (an ``itertools.count``, which only moves forward) and
  returns ``HOOK:FROM:TO:TAG``, TAG = keyed BLAKE2b of ``NONCE:HOOK:FROM:TO``. HOOK names
  the hook (random, made at install: a new one is a new counter); TO is the count now;
  FROM is ``-``, except for a long-running script, whose turn starts when it reads ``M``
  (the count then, which the script decides anyway: it could think before reading ``M``).
  A nonce is sealed once; nonces come only with requests, so no seal is made in advance.
- The controller (``SealCheck``) checks the tag (``hmac.compare_digest``) and charges the
  move every step counted since the last seal it accepted (or since FROM, if later):
  work done between verdicts is charged too. A reply that is an answer (or a started
  game) without a valid seal is the bot's fault, "the bot tampered with its step budget";
  a seal over the limit is a budget fault.

What remains: a bot that rewrites its host can seal early and go on thinking, shifting that
work to its next move's charge (at most one move's worth at a time: over a game its
counted steps stay within limit × moves, but the last move's extra work is never charged),
and code that counts nothing (the real ``compile``, C functions) is bounded by the wall
clock only.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import secrets
import sys
from typing import Any

from engine.bots.answer import BotAnswer

SEAL_EVENT = "koth.budget.seal"
TURN_EVENT = "koth.budget.turn"
KEY_HEX = 64  # a key is 32 random bytes, in hexadecimal
MAX_NONCE = 64
MAX_SEAL = 200
MAX_SEALED = 1 << 20  # nonces one budget seals in its life (a game has far fewer moves)
_COUNT_TYPE = type(itertools.count())
TAMPERED = "the bot tampered with its step budget (its reply carries no valid verdict)"


def _tag(key: bytes, nonce: str, hook: str, start: str, to: int) -> str:
    return hashlib.blake2b(f"{nonce}:{hook}:{start}:{to}".encode(), key=key, digest_size=32).hexdigest()


# -- in the bot host ------------------------------------------------------------------------

def install(key: object, counter: Any, stream: bool) -> bool:
    """Seal verdicts of the budget counting on ``counter`` from now on, with ``key`` (hex
    text of ``KEY_HEX`` digits); False (nothing installed) for a key of another shape.

    Called by the host at load, before any of the bot's code runs. The hook and everything
    it uses are made here and live only in its cells: a hook is reachable from nowhere.
    ``stream``: a long-running script, whose turn starts at ``turn_started``.
    """
    if type(key) is not str or len(key) != KEY_HEX or counter.__class__ is not _COUNT_TYPE:
        return False
    try:
        keyed = hashlib.blake2b(key=bytes.fromhex(key), digest_size=32)
    except ValueError:
        return False
    # Everything the hook uses is bound now, so it calls no code a bot could replace later
    # (a patched builtin or global of this module): only the C types' own methods.
    copy, read = keyed.copy, counter.__repr__
    text, number, listing, length, append, encode, kind = str, int, list, len, list.append, str.encode, type
    seal_event, turn_event, max_nonce, max_sealed = SEAL_EVENT, TURN_EVENT, MAX_NONCE, MAX_SEALED
    sealed: set[str] = set()
    start: list[int | None] = [None]
    name = secrets.token_hex(8)  # this hook's, and so its counter's

    def count() -> int:
        return number(read()[6:-1])  # "count(N)"

    def hook(event: str, args: tuple) -> None:
        if event == seal_event:
            if length(args) != 3 or args[0] is not counter:
                return
            nonce, box = args[1], args[2]
            if (kind(nonce) is not text or not 0 < length(nonce) <= max_nonce
                    or kind(box) is not listing or nonce in sealed or length(sealed) >= max_sealed):
                return
            sealed.add(nonce)
            to = count()
            begun = "-" if start[0] is None else f"{start[0]}"
            mac = copy()
            mac.update(encode(f"{nonce}:{name}:{begun}:{to}"))
            append(box, f"{name}:{begun}:{to}:{mac.hexdigest()}")
        elif event == turn_event and stream and length(args) == 1 and args[0] is counter:
            start[0] = count()

    sys.addaudithook(hook)
    return True


def seal(counter: Any, nonce: object) -> str | None:
    """The sealed verdict for ``nonce`` (None if it was sealed before, or no key was given)."""
    box: list[str] = []
    sys.audit(SEAL_EVENT, counter, nonce, box)
    return box[0] if box and type(box[0]) is str else None


def turn_started(counter: Any) -> None:
    """A long-running script's turn starts now (it read ``M``)."""
    sys.audit(TURN_EVENT, counter)


# -- in the controller ----------------------------------------------------------------------

class SealCheck:
    """The controller's side for one bot under a step budget of ``limit`` steps a move."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.key = ""
        self.last = 0  # the count of the last seal accepted
        self.hook = ""  # the hook that made it
        self.nonce: str | None = None
        self.new_key()

    def new_key(self) -> str:
        """A key for a fresh bot host (a new process or load: its counter starts at 0)."""
        self.key = secrets.token_hex(KEY_HEX // 2)
        self.last, self.hook = 0, ""
        self.nonce = None
        return self.key

    def new_nonce(self) -> str:
        self.nonce = secrets.token_hex(16)
        return self.nonce

    def judge(self, answer: BotAnswer, sealed: object) -> BotAnswer:
        """The reply to the request of the last nonce, checked: an answer (or a started
        game, ``answer.error`` None) needs a valid seal within the budget; a fault's seal,
        if valid, is counted from."""
        nonce, self.nonce = self.nonce, None
        used = self._used(nonce, sealed)
        if answer.error is not None:
            return answer
        if used is None:
            return self._fault(answer, TAMPERED)
        if used > self.limit:
            return self._fault(answer, f"the move took {used:,} steps since the bot's last verdict, "
                                       f"over its budget of {self.limit:,}")
        return answer

    def _used(self, nonce: str | None, sealed: object) -> int | None:
        """Steps charged by a valid seal of ``nonce`` (and counted from it), or None."""
        if nonce is None or type(sealed) is not str or len(sealed) > MAX_SEAL:
            return None
        parts = sealed.split(":")
        if len(parts) != 4:
            return None
        hook, begun, to, tag = parts
        if not (to.isdigit() and to.isascii() and len(to) <= 30 and len(hook) <= 32 and (begun == "-" or (
                begun.isdigit() and begun.isascii() and len(begun) <= 30))):
            return None
        expected = _tag(bytes.fromhex(self.key), nonce, hook, begun, int(to))
        if not tag.isascii() or not hmac.compare_digest(expected, tag):
            return None
        # Another hook is another counter, from 0: a fresh Worker the page gave the same load
        # (key and all) after stopping the bot's. Counted from 0, it is never charged less.
        last = self.last if hook == self.hook else 0
        start = last if begun == "-" else max(last, int(begun))
        if start > int(to):  # the same counter, lower: not a count it ever had after the last
            return None
        self.last, self.hook = int(to), hook
        return int(to) - start

    @staticmethod
    def _fault(answer: BotAnswer, message: str) -> BotAnswer:
        return BotAnswer(None, message, None, answer.stdout, answer.stderr, True)
