"""Replay files: read them within caps, re-run every record through the rules, trust nothing.

A record holds every answer and fault, so the rules alone (no bots) reproduce the game.
``replay_record`` re-plays one record and refuses it at the first turn whose recorded
fields differ from what the rules give; ``verify_document`` does that for every record
of a file, checks the records against the file's header, and recomputes the summary, so
a forged score or board never reaches a table or a renderer.
Record and turn numbers in messages count from 1.

Files of schema version 1 (one seat a turn: ``{"seat", "answer", "fault", ...}``) are read
by converting each turn to version 2 (``{"seats": [seat], "answers": [answer],
"faults": [fault], ...}``); ``verify_document`` returns them converted. Version 3 is version 2
with an optional debug part per record (``engine.play.debug_part``): checked for its shape
and sizes, never by the rules.
"""

from __future__ import annotations

import json
from typing import Any

from engine.core.errors import AnswerError
from engine.core.json_depth import nesting_depth
from engine.core.outcome import FaultKind
from engine.core.randomness import check_secret
from engine.core.replay_limits import MAX_DEPTH, MAX_DOCUMENT_CHARS
from engine.core.spec import GameSpec
from engine.games.registry import get_game
from engine.play.debug_part import DebugError, check_debug
from engine.play.series import summarize
from engine.play.session import MAX_ANSWER_CHARS, SCHEMA_VERSION

MAX_BOTS = 64
MAX_RECORDS = 10_000
MAX_TOTAL_TURNS = 2_000_000
MAX_NAME_CHARS = 200
MAX_TEXT_CHARS = 1_000_000  # a fault message
MAX_BUDGET = 10**15  # a record's step budget

RECORD_KEYS = {"schema_version", "kind", "game", "settings", "seed", "secret", "bots", "bot_index",
               "start", "start_faults", "turns", "result", "budget", "debug"}
FAULT_KINDS = {kind.value for kind in FaultKind}
FROZEN, INVALID, TIMEOUT = FaultKind.FROZEN.value, FaultKind.INVALID.value, FaultKind.TIMEOUT.value
# Faults that count toward freezing a bot; "invalid" counts only where the game says so.
COUNTED_FAULTS = {FaultKind.ERROR.value, FaultKind.TIMEOUT.value}
V1_SUMMARY_KEYS = ("games", "mean_scores", "wins")
READABLE_VERSIONS = (1, 2, SCHEMA_VERSION)
RECORD_VERSIONS = (2, SCHEMA_VERSION)  # a record's turns as the rules read them (1 is upgraded)



class ReplayError(ValueError):
    """A replay file that cannot be read, or a record the rules do not reproduce."""


# -- reading -----------------------------------------------------------------------------------
def parse_document(text: str) -> dict:
    """Parse a replay file within the size caps: a JSON object of a readable schema_version
    (a series, a game, or a tournament's bundle: ``engine.play.replay_bundle``); raises ReplayError."""
    if not isinstance(text, str):
        raise ReplayError("a replay is text")
    if len(text) > MAX_DOCUMENT_CHARS:
        raise ReplayError(f"the file is {len(text) / 2**20:.1f} MB; a replay may be at most "
                          f"{MAX_DOCUMENT_CHARS // 2**20} MB")
    depth = nesting_depth(text)
    if depth > MAX_DEPTH:
        raise ReplayError(f"the JSON nests {depth} deep; a replay nests at most {MAX_DEPTH} deep")
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ReplayError(f"not JSON: {exc}") from None
    if not isinstance(document, dict):
        raise ReplayError("a replay is a JSON object")
    version = document.get("schema_version")
    if version not in READABLE_VERSIONS or isinstance(version, bool):
        raise ReplayError(f"unsupported schema_version {_show(version)} "
                          f"(this version reads {' and '.join(map(str, READABLE_VERSIONS))})")
    return document


def load_document(text: str) -> dict:
    """Parse a replay file (a series or a single game) within the size caps; raises ReplayError.

    Only the outer structure is checked here; ``verify_document`` checks the rest.
    """
    return series_of(parse_document(text))


def series_of(document: dict) -> dict:
    """A parsed file as a series: a game on its own is a series of one game."""
    version = document.get("schema_version")
    kind = document.get("kind")
    if kind == "game":
        # A game on its own is a series of one game whose bots are its seats (a record taken
        # from a series may have had its seats rotated: that mapping no longer applies).
        bots = document.get("bots")
        if isinstance(bots, list):
            document = {**document, "bot_index": list(range(len(bots)))}
        wrapper = {"schema_version": version, "kind": "series", "game": document.get("game"),
                   "bots": bots, "records": [document]}
        if "secret" in document:
            wrapper["secret"] = document["secret"]
        return wrapper
    if kind != "series":
        raise ReplayError(f"unknown kind {_show(kind)}: expected 'series' or 'game'")
    if not isinstance(document.get("records"), list):
        raise ReplayError("a series needs a list of records")
    return document


# -- a whole file ------------------------------------------------------------------------------
def verify_document(text: str) -> dict:
    """Parse, cap, re-run and re-score a replay file; returns it with the summary recomputed.

    Raises ReplayError naming the first difference between the file and the rules.
    """
    return verify_series(load_document(text))


def verify_series(document: dict) -> dict:
    """``verify_document`` of a parsed series (``series_of``)."""
    spec = _document_game(document.get("game"))
    bots = _document_bots(spec, document.get("bots"))
    secret = _secret(document)
    records = document["records"]
    if not records:
        raise ReplayError("the file holds no games")
    if len(records) > MAX_RECORDS:
        raise ReplayError(f"the file holds {len(records)} records; a replay may hold at most {MAX_RECORDS}")
    total = 0
    for number, record in enumerate(records, 1):
        if not isinstance(record, dict) or not isinstance(record.get("turns"), list):
            raise ReplayError(f"record {number}: a record is an object with a list of turns")
        total += len(record["turns"])
    if total > MAX_TOTAL_TURNS:
        raise ReplayError(f"the file holds {total} turns; a replay may hold at most {MAX_TOTAL_TURNS}")
    version = document.get("schema_version", SCHEMA_VERSION)
    records = [upgrade_record(r) for r in records]
    played: set[tuple[Any, int]] = set()
    for number, record in enumerate(records, 1):
        try:
            if secret is not None and record.get("secret") != secret:
                raise ReplayError("the record's secret is not the file's")
            _check_against_header(record, spec, bots, played)
            replay_record(record)
        except ReplayError as exc:
            separator = ", " if str(exc).startswith("turn ") else ": "
            raise ReplayError(f"record {number}{separator}{exc}") from None
    summary = summarize(spec, len(bots), records)
    if "summary" in document:
        # a version-1 summary has no scoring or ranking: compare what it has
        expected = summary if version != 1 else {k: summary[k] for k in V1_SUMMARY_KEYS}
        difference = _difference(document["summary"], expected, "")
        if difference:
            raise ReplayError(f"summary differs: {difference}")
    verified = {"schema_version": SCHEMA_VERSION, "kind": "series", "game": spec.name}
    if secret is not None:
        verified["secret"] = secret
    verified.update(bots=bots, records=records, summary=summary)
    return verified


def _secret(holder: dict) -> str | None:
    """The secret of a file or a record (None: a record from before secrets)."""
    secret = holder.get("secret")
    if secret is None:
        return None
    try:
        return check_secret(secret)
    except ValueError as exc:
        raise ReplayError(f"bad secret {_show(secret)}: {exc}") from None


def _document_game(name: object) -> GameSpec:
    if not isinstance(name, str):
        raise ReplayError(f"the file's game is {_show(name)}, not a game's name")
    try:
        return get_game(name)
    except ValueError as exc:
        raise ReplayError(str(exc)) from None


def _document_bots(spec: GameSpec, bots: object) -> list[str]:
    if not isinstance(bots, list):
        raise ReplayError("the file's bots are not a list of names")
    if len(bots) > MAX_BOTS:
        raise ReplayError(f"the file names {len(bots)} bots; a replay may name at most {MAX_BOTS}")
    if not spec.min_bots <= len(bots) <= spec.max_bots:
        raise ReplayError(f"{spec.title} takes {spec.min_bots} to {spec.max_bots} bots; "
                          f"the file names {len(bots)}")
    for name in bots:
        if not isinstance(name, str) or len(name) > MAX_NAME_CHARS:
            raise ReplayError(f"bot name {_show(name)} is not a name of at most {MAX_NAME_CHARS} characters")
    return bots


def _check_against_header(record: dict, spec: GameSpec, bots: list[str], played: set) -> None:
    """The record's game, bots and seats agree with the file's header; no bot plays a seed twice."""
    if record.get("game") != spec.name:
        raise ReplayError(f"the record's game {_show(record.get('game'))} is not the file's {spec.name!r}")
    names, index = record.get("bots"), record.get("bot_index")
    if not isinstance(names, list) or not isinstance(index, list) or len(names) != len(index) or not index:
        raise ReplayError("bots and bot_index must be lists of the same length")
    for seat, (name, bot) in enumerate(zip(names, index, strict=True)):
        if not _is_int(bot) or not 0 <= bot < len(bots):
            raise ReplayError(f"bot_index[{seat}] is {_show(bot)}, "
                              f"not a bot of the file (0..{len(bots) - 1})")
        if name != bots[bot]:
            raise ReplayError(f"seat {seat} is {_show(name)}, but bot {bot} of the file is {bots[bot]!r}")
        key = (record.get("seed") if _is_int(record.get("seed")) else None, bot)
        if key in played:
            raise ReplayError(f"bot {bot} ({bots[bot]!r}) plays seed {key[0]} twice")
        played.add(key)


# -- one record ----------------------------------------------------------------------------------
def upgrade_record(record: object) -> object:
    """A version-1 record as version 2 (a copy); anything else as it is."""
    if not isinstance(record, dict) or record.get("schema_version") != 1 \
            or not isinstance(record.get("turns"), list):
        return record
    turns = []
    for turn in record["turns"]:
        if isinstance(turn, dict) and "seat" in turn and "seats" not in turn:
            rest = {k: v for k, v in turn.items() if k not in ("seat", "answer", "fault")}
            turn = {"seats": [turn["seat"]], "answers": [turn.get("answer")],
                    "faults": [turn.get("fault")], **rest}
        turns.append(turn)
    return {**record, "schema_version": 2, "turns": turns}


def replay_record(record: dict) -> Any:
    """Re-run a record (version 1, 2 or 3) through the rules; returns the final state, or
    raises ReplayError."""
    try:
        return _replay(upgrade_record(record))
    except ReplayError:
        raise
    except (KeyError, TypeError, IndexError, AttributeError, ValueError, ArithmeticError,
            RecursionError) as exc:
        raise ReplayError(f"malformed record: {type(exc).__name__}: {exc}") from None


def _replay(record: dict) -> Any:
    if not isinstance(record, dict):
        raise ReplayError("a record is a JSON object")
    unknown = set(record) - RECORD_KEYS
    if unknown:
        raise ReplayError(f"unknown record field {_show(sorted(unknown)[0])}")
    version = record.get("schema_version")
    if version not in RECORD_VERSIONS or type(version) is not int or record.get("kind") != "game":
        raise ReplayError(f"a record has schema_version {SCHEMA_VERSION} (or 2, or 1) and kind 'game'")
    if "debug" in record and version != SCHEMA_VERSION:
        raise ReplayError(f"a debug part is a field of schema_version {SCHEMA_VERSION}")
    spec = _document_game(record.get("game"))
    seed, names = record.get("seed"), record.get("bots")
    if not _is_int(seed) or seed < 0:
        raise ReplayError(f"bad record header: the seed {_show(seed)} is not an integer >= 0")
    if not isinstance(names, list) or not 1 <= len(names) <= MAX_BOTS or not all(
            isinstance(name, str) and len(name) <= MAX_NAME_CHARS for name in names):
        raise ReplayError(f"bad record header: bots is not a list of 1 to {MAX_BOTS} names")
    seats = len(names)
    settings = _settings(spec, record.get("settings"))
    limit = _turn_limit(settings)
    turns = record.get("turns")
    if not isinstance(turns, list):
        raise ReplayError("turns is not a list")
    if len(turns) > limit:
        raise ReplayError(f"{len(turns)} turns, more than the settings allow ({limit})")
    secret = _secret(record)
    budget = record.get("budget")  # steps a move; absent in files from before it was kept
    if budget is not None and not (_is_int(budget) and 1 <= budget <= MAX_BUDGET):
        raise ReplayError(f"bad record header: the budget {_show(budget)} is not a whole number "
                          f"from 1 to {MAX_BUDGET}")
    try:
        state = spec.new_game(settings, seed, 1 if spec.side_by_side else seats, secret=secret)
    except ValueError as exc:
        raise ReplayError(f"bad record header: {exc}") from None
    if seats != state.num_players:
        raise ReplayError(f"{len(names)} bots in a game of {state.num_players}")
    if state.settings.to_json() != record["settings"]:
        raise ReplayError(f"the settings {record['settings']} do not fit the record's bots")
    wire = spec.wire
    difference = _difference(record.get("start"), wire.record_start(state), "start")
    if difference:
        raise ReplayError(f"the start position differs: {difference}")
    start_faults = record.get("start_faults")
    if not isinstance(start_faults, list) or len(start_faults) != seats or any(
            f not in (0, 1) or isinstance(f, bool) for f in start_faults):
        raise ReplayError(f"start_faults is not a list of {seats} zeros and ones")

    consecutive = [0] * seats
    frozen = [False] * seats
    may_freeze = [False] * seats  # after a time-out: the bot may have been stopped

    def freeze(seat: int) -> None:
        frozen[seat] = True
        state.freeze(seat)

    for seat, failed in enumerate(start_faults):
        if failed:
            freeze(seat)
    for number, turn in enumerate(turns, 1):
        try:
            _replay_turn(state, wire, turn, frozen, may_freeze, consecutive, freeze)
        except ReplayError as exc:
            raise ReplayError(f"turn {number}: {exc}") from None
    result = record.get("result")
    if not state.is_terminal() and isinstance(result, dict) and result.get("termination") == "frozen" \
            and any(may_freeze):  # stopped at the hard limit on the last turn
        freeze(may_freeze.index(True))
    if not state.is_terminal():
        raise ReplayError("the record ends before the game does")
    difference = _difference(result, state.outcome.to_json(), "result")
    if difference:
        raise ReplayError(f"result differs: {difference}")
    if "debug" in record:
        try:
            check_debug(record["debug"], turns, seats)
        except DebugError as exc:
            raise ReplayError(str(exc)) from None
    return state


def _replay_turn(state: Any, wire: Any, turn: object, frozen: list[bool], may_freeze: list[bool],
                 consecutive: list[int], freeze: Any) -> None:
    if not isinstance(turn, dict):
        raise ReplayError("a turn is a JSON object")
    if state.is_terminal():
        raise ReplayError("the game was already over")
    acting = list(state.acting_seats())
    seats, answers, faults = turn.get("seats"), turn.get("answers"), turn.get("faults")
    if seats != acting:
        raise ReplayError(f"seats {_show(seats)} moved out of turn (seats {acting} were to move)")
    if not isinstance(answers, list) or not isinstance(faults, list) \
            or len(answers) != len(seats) or len(faults) != len(seats):
        raise ReplayError("answers and faults are lists with one entry per seat")
    kinds: dict[int, str | None] = {}
    for seat, answer, fault in zip(seats, answers, faults, strict=True):
        if answer is not None and (not isinstance(answer, str) or len(answer) > MAX_ANSWER_CHARS):
            raise ReplayError(f"the answer {_show(answer)} is not text of at most "
                              f"{MAX_ANSWER_CHARS} characters")
        kind = _fault_kind(fault)
        if kind == FROZEN and answer is not None:
            raise ReplayError("a frozen bot is not asked, so it has no answer")
        if frozen[seat] and kind != FROZEN:
            raise ReplayError(f"seat {seat} played after it was frozen")
        if kind == FROZEN and not frozen[seat]:
            if not may_freeze[seat]:
                raise ReplayError(f"seat {seat} is marked frozen but never faulted enough to be frozen")
            freeze(seat)
        kinds[seat] = kind
    messages = {seat: wire.observation(state, seat, []) for seat in seats if kinds[seat] != FROZEN}
    actions = {}
    for seat, answer in zip(seats, answers, strict=True):
        kind = kinds[seat]
        if kind is None:
            if answer is None:
                raise ReplayError("a turn without a fault needs an answer")
            try:
                actions[seat] = wire.parse_answer(answer, state, seat)
            except AnswerError as exc:
                raise ReplayError(f"recorded answer rejected: {exc}") from None
        else:
            if kind == INVALID and answer is not None and _is_legal(wire, state, seat, answer):
                raise ReplayError(f"the answer {_show(answer)} is recorded as invalid but is a legal move")
            actions[seat] = state.default_action(seat)
    try:
        changes = state.apply_actions(actions)
    except AnswerError as exc:
        raise ReplayError(f"recorded answer is illegal: {exc}") from None
    expected = {"seats": seats, "answers": answers, "faults": faults,
                **wire.record_turn(state, messages, actions, changes)}
    difference = _difference(turn, expected, "")
    if difference:
        raise ReplayError(f"recorded {difference}")
    problem = wire.replay_check(turn, state, changes)  # the game's own, past the engine's comparison
    if problem:
        raise ReplayError(f"the game's replay check: {problem}")
    for seat in seats:
        kind = kinds[seat]
        if kind == FROZEN:
            continue
        counted = kind in COUNTED_FAULTS or (kind == INVALID and state.invalid_is_fault)
        consecutive[seat] = consecutive[seat] + 1 if counted else 0
        may_freeze[seat] = kind == TIMEOUT
        if consecutive[seat] >= state.fault_limit:
            freeze(seat)


def _is_legal(wire: Any, state: Any, seat: int, answer: str) -> bool:
    """Whether the answer parses and, played alone by its seat, is a legal move."""
    try:
        action = wire.parse_answer(answer, state, seat)
    except AnswerError:
        return False
    if len(state.acting_seats()) > 1:
        return True  # a simultaneous game takes every action that parses
    trial = state.copy()
    try:
        trial.apply_actions({seat: action})
    except AnswerError:
        return False
    return True


def _fault_kind(fault: object) -> str | None:
    if fault is None:
        return None
    if not isinstance(fault, dict) or fault.get("kind") not in FAULT_KINDS \
            or not isinstance(fault.get("message"), str) or len(fault["message"]) > MAX_TEXT_CHARS \
            or not set(fault) <= {"kind", "message", "line"} \
            or ("line" in fault and not _is_int(fault["line"])):
        raise ReplayError(f"the fault {_show(fault)} is not a fault (kind, message, line)")
    return fault["kind"]


def _settings(spec: GameSpec, data: object) -> Any:
    if not isinstance(data, dict) or not all(_is_int(v) and v >= 1 for v in data.values()):
        raise ReplayError(f"bad record header: the settings {_show(data)} are not whole numbers >= 1")
    try:
        return spec.settings_from_json(data)
    except (TypeError, ValueError) as exc:
        raise ReplayError(f"bad record header: {exc}") from None


def _turn_limit(settings: Any) -> int:
    """The most turns a game with these settings can have."""
    for key in ("max_turns", "max_moves"):  # the usual names of a game's turn limit
        limit = getattr(settings, key, None)
        if _is_int(limit):
            return limit
    return MAX_TOTAL_TURNS  # a game without one: the file's cap


# -- comparing ---------------------------------------------------------------------------------
def _difference(found: object, expected: object, path: str) -> str | None:
    """The first place where a value from the file differs from the rules' value, or None.

    Strict about types (``true`` is not ``1``), except that JSON numbers compare by value.
    """
    if _identical(found, expected):  # the common case, at C speed
        return None
    return _first_difference(found, expected, path)


def _identical(found: object, expected: object) -> bool:
    # Python's == takes True for 1 and 1.0 for 1; repr does not (nor does it for key order,
    # which only sends a value with its keys in another order down the slow path).
    try:
        return found == expected and repr(found) == repr(expected)
    except RecursionError:
        return False


def _first_difference(found: object, expected: object, path: str) -> str | None:
    if isinstance(expected, dict):
        if not isinstance(found, dict):
            return _mismatch(found, expected, path)
        for key in found:
            if key not in expected:
                return f"{_join(path, key)} is not a field of the record"
        for key, value in expected.items():
            if key not in found:
                return f"{_join(path, key)} is missing"
            difference = _first_difference(found[key], value, _join(path, key))
            if difference:
                return difference
        return None
    if isinstance(expected, (list, tuple)):
        if not isinstance(found, list):
            return _mismatch(found, expected, path)
        if len(found) != len(expected):
            return f"{path or 'the list'} has {len(found)} entries in the file, {len(expected)} by the rules"
        for i, (a, b) in enumerate(zip(found, expected, strict=True)):
            difference = _first_difference(a, b, f"{path}[{i}]")
            if difference:
                return difference
        return None
    if _is_number(expected) and _is_number(found):
        return None if found == expected else _mismatch(found, expected, path)
    if type(found) is not type(expected) or found != expected:
        return _mismatch(found, expected, path)
    return None


def _join(path: str, key: object) -> str:
    return f"{path}.{key}" if path else str(key)


def _mismatch(found: object, expected: object, path: str) -> str:
    return f"{path or 'the value'} is {_show(found)} in the file, {_show(expected)} by the rules"


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _show(value: object) -> str:
    try:
        text = json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
