// "Copy the input at this turn" and "Copy the command" under the board: the input each seat
// asked at the scrubbed turn was sent (the game's text protocol, derived by the engine in the
// controller Worker from the record: main.py turn_input, engine/play/reproduce.py), and the
// `python -m engine replay` command that re-feeds a bot that turn natively (docs/cli.md).
// The turn on show is the one whose move was last played (the viewer's position t, from 1).

import { fileName, gameDocument } from "../replay_files.js";

export function createTurnCopy(app) {
  const { store } = app;
  const viewer = app.board.viewer;
  const box = document.createElement("div");
  box.className = "buttons turn-copy";
  box.setAttribute("role", "group");
  box.setAttribute("aria-label", "This turn for the command line");
  const button = (text) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = text;
    box.append(b);
    return b;
  };
  const inputButton = button("Copy the input at this turn");
  const commandButton = button("Copy the command");
  document.getElementById("replay-files").after(box);
  let asked = 0; // the id of the request waiting for the engine

  // The finished game and turn on show, or null (with the status saying why).
  function shown() {
    const track = viewer.track;
    const record = track && track.record && track.record.result ? track.record : null;
    if (!record) {
      app.status.error("No finished game is on show.");
      return null;
    }
    const turn = Math.round(viewer.t);
    if (!(turn >= 1)) {
      app.status.error("Scrub to a turn first: the start has no input.");
      return null;
    }
    return { record, turn };
  }

  async function copy(text, what) {
    try {
      await navigator.clipboard.writeText(text);
      app.status.set(`Copied ${what}.`);
    } catch {
      app.status.error(`The browser refused the clipboard: ${what} is not copied.`);
    }
  }

  inputButton.addEventListener("click", () => {
    const at = shown();
    if (!at) return;
    if (!app.controller.alive() || !store.ready || store.run) {
      app.status.error("The input is derived by Python: ask again when it is ready and no run is going.");
      return;
    }
    asked += 1;
    app.controller.send({ type: "turn-input", id: asked, turn: at.turn,
      text: JSON.stringify(gameDocument(at.record)) });
  });

  commandButton.addEventListener("click", () => {
    const at = shown();
    if (!at) return;
    const { record, turn } = at;
    const seats = seatsAsked(record.turns[turn - 1]);
    const file = fileName(record.game, "seed", record.seed, (record.bots || []).join(" vs "));
    const words = ["python -m engine replay", file, "--turn", String(turn)];
    if (seats.length === 1) {
      const bot = fileName(record.bots[seats[0]]).replace(/\.json$/, ".py").replace(/-/g, "_");
      words.push("--seat", String(seats[0]), "--bot", bot);
    }
    if ((store.specOf(record.game) || {}).authored) words.push("--game-file", `${record.game}.py`);
    copy(words.join(" "), `the command (${file} is what Download this game saves)`);
  });

  // The engine's answer: the lines of each seat asked, one block per seat when several were.
  function onMessage(m) {
    if (!m || m.type !== "turn-input") return false;
    if (m.id !== asked) return true; // an earlier request
    if (typeof m.error === "string") {
      app.status.error(`No input at this turn: ${m.error}.`);
      return true;
    }
    const inputs = Array.isArray(m.inputs) ? m.inputs : [];
    const lines = (i) => (Array.isArray(i.lines) ? i.lines.map(String) : []);
    const text = inputs.length === 1 ? lines(inputs[0]).map((l) => `${l}\n`).join("")
      : inputs.map((i) => `# seat ${Number(i.seat)} (${String(i.name)})\n${lines(i).map((l) => `${l}\n`).join("")}`)
        .join("\n");
    const who = inputs.map((i) => `seat ${Number(i.seat)} (${String(i.name)})`).join(", ");
    copy(text, `the input at turn ${Number(m.turn)} of ${who || "no seat"}`);
    return true;
  }

  return { onMessage, inputButton, commandButton };
}

// The seats asked at a turn: those that acted, but frozen ones.
function seatsAsked(turn) {
  if (!turn || !Array.isArray(turn.seats)) return [];
  const faults = Array.isArray(turn.faults) ? turn.faults : [];
  return turn.seats.filter((seat, i) => !(faults[i] && faults[i].kind === "frozen"));
}
