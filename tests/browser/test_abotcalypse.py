"""aBOTcalypse in the page: the side view, the replay controls, deaths, and each bot's own
view on demand, which must be exactly what the engine shows the bot."""
from __future__ import annotations

import random
import re

import pytest
from conftest import ROOMY_MS, wait_until
from native_match import native_replay
from playwright.sync_api import expect
from test_accessibility import _serious_violations

from engine.games.abotcalypse.rules import PRESETS, AbotState

pytestmark = pytest.mark.browser

NAMES = ["ann", "bob", "cy", "di"]


def pick(rng: random.Random, actions: list) -> object:
    """A random action, throws and drops upward rare (they kill their bots fast)."""
    calm = [a for a in actions if a.kind != "throw" and str(a) != "drop up"]
    return rng.choice(actions if rng.random() < 0.04 else calm)


def engine_game(seed: int) -> tuple[dict, list[AbotState]]:
    """A trial-preset game of four random bots played by the engine's rules, as a record in
    schema version 2, and the state after every turn (states[t] = after t turns)."""
    settings = PRESETS["trial"]
    state = AbotState(settings, seed, "test secret")
    rng = random.Random(seed)
    states = [state.copy()]
    turns = []
    while not state.is_terminal():
        seats = list(state.acting_seats())
        actions = {s: pick(rng, state.legal_actions(s)) for s in seats}
        events = state.apply_actions(actions)
        turns.append({"seats": seats, "answers": [str(actions[s]) for s in seats],
                      "faults": [None] * len(seats), **events})
        states.append(state.copy())
    record = {"game": "abotcalypse", "seed": seed, "secret": "test secret", "settings": settings.to_json(),
              "bots": NAMES, "bot_index": [0, 1, 2, 3], "start": state.start_json(), "turns": turns,
              "result": state.outcome.to_json()}
    return record, states


def test_replay_side_view_deaths_and_each_bots_view(arena, results_dir):
    record, states = engine_game(seed=8)
    total = len(record["turns"])
    final = states[-1]
    dead = [s for s in range(4) if not final.alive[s]]
    assert dead, "the chosen seed should kill a bot"
    page = arena.page
    page.evaluate("(rec) => window.kothArena.viewer.load({renderer: 'abotcalypse', bots: rec.bots, "
                  "records: [rec]})", record)
    expect(arena.canvas).to_have_attribute(
        "aria-label", re.compile(rf"^aBOTcalypse board 48×24, turn 0 of {total}: 4 of 4 bots alive"))

    # Play a little, then scrub to the end: the deaths are shown with their turn and cause.
    arena.label("Speed").fill("200")
    arena.button("Play").click()
    wait_until(page, "Number(document.getElementById('scrub').value) >= 5")
    board = page.get_by_role("group", name=re.compile("^Board viewer"))
    board.focus()
    board.press("End")
    label = arena.canvas_label()
    assert label.startswith(f"aBOTcalypse board 48×24, turn {total} of {total}: "), label
    causes = {"fall": "fell", "crushed": "crushed", "thrown": "hit by a thrown rock",
              "collision": "collision", "meteor": "meteor"}
    for seat in dead:
        death = f"{NAMES[seat]} died turn {final.death_turns[seat]} ({causes[final.death_causes[seat]]})"
        assert death in label, (death, label)
        expect(page.locator("#legend")).to_contain_text(death.split(" ", 1)[1])
    expect(page.locator("#frame-info")).to_contain_text("game over")
    page.locator("#board-area").screenshot(path=str(results_dir / "abotcalypse-board.png"))

    # Each bot's own view on demand: the engine's view_rows, character for character.
    views = page.get_by_role("group", name="Show a bot's own view")
    expect(views.get_by_role("button")).to_have_count(4)
    turn = 10
    assert all(states[turn].alive) and not all(states[turn + 30].alive)
    arena.label("Turn").fill(str(turn))
    for seat in range(4):
        views.get_by_role("button", name=f"View of {seat + 1} {NAMES[seat]}").click()
    first = views.get_by_role("button", name=f"View of 1 {NAMES[0]}")
    expect(first).to_have_attribute("aria-pressed", "true")
    for seat in range(4):
        shown = page.get_by_label(f"View of {NAMES[seat]}", exact=True)
        if states[turn].alive[seat]:
            expect(shown).to_have_text("\n".join(states[turn].view_rows(seat)))
        else:
            expect(shown).to_contain_text("dead bot sees nothing")
    # Stepping on changes the views with the board; a bot that died says so.
    board.focus()
    board.press("ArrowRight")
    living = next(s for s in range(4) if states[turn + 1].alive[s])
    expect(page.get_by_label(f"View of {NAMES[living]}", exact=True)).to_have_text(
        "\n".join(states[turn + 1].view_rows(living)))
    later = turn + 30
    arena.label("Turn").fill(str(later))
    for seat in range(4):
        shown = page.get_by_label(f"View of {NAMES[seat]}", exact=True)
        if states[later].alive[seat]:
            expect(shown).to_have_text("\n".join(states[later].view_rows(seat)))
        else:
            expect(shown).to_contain_text("dead bot sees nothing")
    page.locator("section.viewer").screenshot(path=str(results_dir / "abotcalypse-views.png"))
    assert _serious_violations(page) == []  # the views and their toggles too
    # Hidden again on demand.
    views.get_by_role("button", name=f"View of 1 {NAMES[0]}").click()
    expect(page.get_by_label(f"View of {NAMES[0]}", exact=True)).to_have_count(0)


def replayed_states(record: dict) -> list[AbotState]:
    """The engine's states after each turn of a record the page played (its own secret and
    the actions it recorded)."""
    from engine.games.abotcalypse.rules import REST, AbotSettings, parse_action

    state = AbotState(AbotSettings(**record["settings"]), record["seed"], record["secret"])
    states = [state.copy()]
    for turn in record["turns"]:
        played = turn["played"]
        state.apply_actions({s: parse_action(played[s]) if played[s] else REST for s in state.acting_seats()})
        assert state.snapshot()["bots"] == turn["bots"], "the page's record is not the engine's game"
        states.append(state.copy())
    return states


def test_a_four_bot_match_runs_animates_and_replays(arena, results_dir):
    page = arena.page
    arena.setup(game="abotcalypse", games=1, seed=3, time_limit_ms=1000)
    expect(page.locator("#bot-panels .bot-panel:visible")).to_have_count(4)
    names = []
    for n, example in enumerate(["random", "builder", "thrower", "random"], start=1):
        arena.label(f"Bot {n} example").select_option(example)
        arena.label(f"Bot {n} name").fill(f"{example} {n}")
        names.append(f"{example} {n}")
    arena.label("Max turns").fill("80")  # short enough for a test
    arena.start_run()
    # It animates while it runs: the board follows the live game.
    wait_until(page, "(window.kothArena.viewer.tracks[0] || {length: 0}).length >= 3", 120_000)
    assert re.match(r"aBOTcalypse board 48×24, turn \d+ of \d+: ", arena.canvas_label())
    status = arena.wait_finished(300_000)
    assert status.startswith("Finished: 1 game;"), status

    (record,) = arena.records()
    total = len(record["turns"])
    assert record["settings"]["max_turns"] == 80 and 1 <= total <= 80
    assert max(len(t["seats"]) for t in record["turns"]) >= 2, "every living bot acts each turn"
    # The results are the engine's: ranked by mean score (each bot's survival).
    heads = arena.results_table().get_by_role("columnheader").all_inner_texts()
    assert heads == ["Bot", "Games", "Rank", "Mean score", "Faults"], heads
    rows = [arena.result_row(n) for n in names]
    scores = record["result"]["scores"]
    for n, row in zip(names, rows, strict=True):
        seat = record["bot_index"].index(names.index(n))
        assert float(row[3]) == scores[seat], (n, row, scores)
    order = arena.results_table().get_by_role("rowheader").all_inner_texts()
    means = [float(arena.result_row(n)[3]) for n in order]
    assert means == sorted(means, reverse=True), (order, means)

    # Replay: from the start, play, then scrub to the end: the deaths are marked.
    states = replayed_states(record)
    board = page.get_by_role("group", name=re.compile("^Board viewer"))
    board.focus()
    board.press("Home")
    assert arena.canvas_label().startswith(f"aBOTcalypse board 48×24, turn 0 of {total}: 4 of 4 bots alive")
    arena.button("Play").click()
    wait_until(page, "Number(document.getElementById('scrub').value) >= 3")
    board.press("End")
    label = arena.canvas_label()
    final = states[-1]
    for seat in range(4):
        name = names[record["bot_index"][seat]]
        if final.alive[seat]:
            assert f"{name} alive at" in label, label
        else:
            assert f"{name} died turn {final.death_turns[seat]}" in label, label
    page.locator("#board-area").screenshot(path=str(results_dir / "abotcalypse-match.png"))

    # A bot's own view on demand, as the engine would have sent it.
    turn = min(5, total)
    arena.label("Turn").fill(str(turn))
    seat = next(s for s in range(4) if states[turn].alive[s])
    name = names[record["bot_index"][seat]]
    page.get_by_role("button", name=f"View of {seat + 1} {name}").click()
    shown = page.get_by_label(f"View of {name}", exact=True)
    expect(shown).to_have_text("\n".join(states[turn].view_rows(seat)))


def test_a_script_bot_runs_afresh_each_turn_with_its_memory_file(arena):
    """A posted script, as on the original challenge: started each turn with the view as its
    last argument, in a directory of its own where storage.txt keeps its plan's step."""
    arena.setup(game="abotcalypse", games=1, seed=5, time_limit_ms=ROOMY_MS)  # asserts no faults
    arena.button("Remove bot").click()
    arena.button("Remove bot").click()
    expect(arena.page.locator("#bot-panels .bot-panel:visible")).to_have_count(2)
    arena.label("Bot 1 example").select_option("script")
    arena.label("Bot 2 example").select_option("builder")
    arena.label("Max turns").fill("12")
    arena.run(timeout_ms=300_000)
    (record,) = arena.records()
    seat = record["bot_index"].index(0)
    played = [t["played"][seat] for t in record["turns"] if seat in t["seats"]]
    faults = [t["faults"][t["seats"].index(seat)] for t in record["turns"] if seat in t["seats"]]
    assert faults and not any(faults), (faults, arena.console(1).inner_text())
    # its plan, one step a turn: only a memory kept between runs gets past the first step
    plan = ["drop down", "drop left", "drop right", "drop up", "move up", "drop up", "move down"]
    assert played[:len(plan)] == plan[:len(played)], played


def test_a_native_replay_opens_ranked_by_mean_score(arena, tmp_path):
    replay = tmp_path / "abot.json"
    summary = native_replay(replay, "abotcalypse", "builtin:random", "builtin:builder", "--games", "2",
                            "--max-turns", "30", "--seed", "2")["summary"]
    arena.label("Open replay…").set_input_files(str(replay))
    expect(arena.status).to_contain_text("Opened abot.json: aBOTcalypse, 2 records")
    assert arena.canvas_label().startswith("aBOTcalypse board 48×24, turn 0 of ")
    # The engine's summary as it is: ranked by mean score, best first.
    names = ["random", "builder"]
    order = arena.results_table().get_by_role("rowheader").all_inner_texts()
    assert order == [names[i] for i in summary["ranking"]], order
    for i, name in enumerate(names):
        row = arena.result_row(name)
        assert row[2] == str(summary["ranking"].index(i) + 1), row
        assert float(row[3]) == summary["mean_scores"][i], row
