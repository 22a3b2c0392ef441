// A challenge (file, link or Stack Snippet) that carries an author's game (`game_module`, the
// module's source): that code is a stranger's, like a bot's, so opening the challenge shows it
// and runs nothing; the game loads only when the visitor presses "Load this game", through the
// game editor's path (a restricted Worker of its own, engine/play/page_game.py), and only then does
// the engine check the challenge (engine/contest/challenge.py needs its game loaded).

import { el } from "./dom.js";

const MAX_SHOWN_CHARS = 300_000; // the code shown in the notice (a module is at most 256 KiB)

// {game, source} when the challenge's text carries a game module, else null (the engine says
// what is wrong with text that is not a challenge).
export function carriedGame(text) {
  let data;
  try {
    data = JSON.parse(text);
  } catch {
    return null;
  }
  if (!data || typeof data !== "object" || typeof data.game_module !== "string" || typeof data.game !== "string") {
    return null;
  }
  return { game: data.game, source: data.game_module };
}

// The notice asking whether to load a carried game; ask() resolves true (Load) or false
// (Don't load, or another challenge opened instead).
export class GameLoadPrompt {
  constructor(after) {
    this.text = el("p", { id: "challenge-game-text" });
    this.code = el("pre", { id: "challenge-game-code", class: "challenge-game-code", tabindex: "0",
      "aria-label": "The game module's code" });
    this.load = el("button", { type: "button", id: "challenge-game-load", class: "primary", text: "Load this game" });
    this.cancel = el("button", { type: "button", id: "challenge-game-cancel", text: "Don't load it" });
    this.root = el("div", { id: "challenge-game", class: "notice challenge-game", role: "region",
      "aria-label": "The challenge's own game", hidden: true }, [
      this.text,
      el("details", {}, [el("summary", { text: "Show the game's code" }), this.code]),
      el("div", { class: "notice-actions" }, [this.load, this.cancel]),
    ]);
    after.after(this.root);
    this.resolve = null;
    this.load.addEventListener("click", () => this.answer(true));
    this.cancel.addEventListener("click", () => this.answer(false));
  }

  ask({ game, source }, what) {
    this.answer(false); // an earlier question is superseded
    const lines = source.split("\n").length;
    this.text.textContent = `${what[0].toUpperCase()}${what.slice(1)} plays its own game, “${game}”: `
      + `${lines.toLocaleString("en")} line${lines === 1 ? "" : "s"} of Python by the challenge's author. Nothing `
      + "has run yet. Read its code below if you like; it runs in a restricted Worker of its own, with no access to "
      + "the page or your saved work, once you press Load this game.";
    this.code.textContent = source.length > MAX_SHOWN_CHARS ? `${source.slice(0, MAX_SHOWN_CHARS)}\n…` : source;
    this.root.hidden = false;
    requestAnimationFrame(() => this.load.focus());
    return new Promise((resolve) => { this.resolve = resolve; });
  }

  answer(load) {
    const resolve = this.resolve;
    this.resolve = null;
    this.root.hidden = true;
    if (resolve) resolve(load);
  }
}
