// The game editor: an author writes (or opens, or starts from an example) a game as one Python
// module (docs/games.md) and loads it. The controller Worker hands the module to a Worker of its
// own (engine/play/page_game.py), where the engine checks it and plays a short check game; the page
// gets the game's spec, adds it to the game menu, and from then on it runs like a built-in game,
// drawn by the generic renderer (web/src/games/generic.js). A mistake comes back as one line
// naming the method and the line, with a button that puts the cursor there.
//
// The module travels as text (a challenge file's, share link's or snippet's `game_module`:
// loadSource loads one, challenge_game.js asks first); it is kept in localStorage, and a game
// that was loaded is loaded again when Python is ready.
import { createEditor } from "./editor.js";
import { el } from "./dom.js";
import * as store from "./storage.js";
import landGrab from "../../examples/games/landgrab.py";
import lowestUnique from "../../examples/games/lowest_unique.py";

const EXAMPLE_GAMES = { "Lowest Unique (the tutorial's game)": lowestUnique, "Land Grab": landGrab };
const MAX_SOURCE_BYTES = 256 * 1024;
const SOURCE_KEY = "game-module";
const LOADED_KEY = "game-module-loaded";

export class GameEditor {
  // root: the (empty) section to build in; send(message) posts to the controller Worker and
  // returns false when it cannot (Python not ready); onLoaded(spec) adds the game to the page.
  constructor(root, { send, onLoaded }) {
    this.send = send;
    this.onLoadedHook = onLoaded;
    this.pending = null; // the id of the load being checked
    this.nextId = 0;
    this.busy = false;
    this.errorLine = null;
    this.loaded = null; // {name, source} of the author's game loaded now
    this.loadingSource = null; // the source of the load being checked
    this.sourceLoads = new Map(); // id -> resolve, for loadSource
    this.waiting = []; // loadSource calls made before Python was ready
    const heading = el("h2", { id: "game-editor-heading", text: "Your own game" });
    this.example = el("select", { id: "game-example" }, [
      el("option", { value: "", text: "Start from an example game…" }),
      ...Object.keys(EXAMPLE_GAMES).map((name) => el("option", { value: name, text: name })),
    ]);
    this.openButton = el("button", { type: "button", id: "game-open", text: "Open game file…" });
    this.file = el("input", { type: "file", id: "game-file", accept: ".py,text/x-python,text/plain", hidden: true,
      "aria-label": "Open a game module (.py)" });
    this.loadButton = el("button", { type: "button", id: "game-load", class: "primary", text: "Load game", disabled: true });
    this.status = el("p", { id: "game-status", class: "hint", "aria-live": "polite" });
    this.error = el("p", { id: "game-error", class: "game-error", role: "alert" });
    this.gotoLine = el("button", { type: "button", id: "game-goto-line", hidden: true });
    const editorBox = el("div", { class: "editor game-module-editor" });
    const details = el("details", { id: "game-editor-details" }, [
      el("summary", {}, [heading]),
      el("p", { class: "hint", text: "Write a new King-of-the-Hill game as one Python module (the API and a "
        + "tutorial: docs/games.md), load it, then pick its example bots above and press Run. The game's code "
        + "runs in a Worker of its own, as sandboxed as a bot's." }),
      el("div", { class: "game-editor-actions" }, [
        el("label", { for: "game-example", class: "visually-hidden", text: "Example games" }),
        this.example, this.openButton, this.file, this.loadButton,
      ]),
      editorBox, this.status, el("div", { class: "game-error-row" }, [this.error, this.gotoLine]),
    ]);
    root.append(details);
    const saved = store.load(SOURCE_KEY, "");
    this.editor = createEditor(editorBox, {
      doc: typeof saved === "string" ? saved : "",
      label: "Game module (Python)",
      onChange: (text) => {
        store.save(SOURCE_KEY, text);
        store.save(LOADED_KEY, false); // an edited module is loaded again by hand
      },
    });
    if (store.load(LOADED_KEY, false)) details.open = true;
    this.example.addEventListener("change", () => {
      const source = EXAMPLE_GAMES[this.example.value];
      if (source) this.editor.value = source;
      this.example.value = "";
    });
    this.openButton.addEventListener("click", () => this.file.click());
    this.file.addEventListener("change", () => this.openFile());
    this.loadButton.addEventListener("click", () => this.load());
    this.gotoLine.addEventListener("click", () => this.showLine(this.errorLine));
  }

  get value() { return this.editor.value; }
  set value(text) { this.editor.value = text; }

  async openFile() {
    const f = this.file.files && this.file.files[0];
    this.file.value = "";
    if (!f) return;
    if (f.size > MAX_SOURCE_BYTES) {
      this.showError(`${f.name} is ${f.size.toLocaleString("en")} bytes; a game module may have `
        + `${MAX_SOURCE_BYTES.toLocaleString("en")}.`);
      return;
    }
    try {
      this.editor.value = await f.text();
      this.status.textContent = `Opened ${f.name}: press Load game.`;
    } catch (e) {
      this.showError(`Could not read ${f.name}: ${e.message}.`);
    }
  }

  // Python is ready (again): loading is possible, and a game loaded before is loaded again.
  onReady() {
    this.ready = true;
    this.refresh();
    if (store.load(LOADED_KEY, false) && this.editor.value.trim()) this.load(true);
    for (const start of this.waiting.splice(0)) start();
  }

  onLost() {
    this.ready = false;
    this.pending = null;
    this.loaded = null;
    for (const resolve of this.sourceLoads.values()) {
      resolve({ error: "the page's Python restarted while the game was loading; open the challenge again" });
    }
    this.sourceLoads.clear();
    this.refresh();
  }

  // The module of the author's game loaded now as `name`, else null (a built-in game).
  loadedSource(name) {
    return this.loaded && this.loaded.name === name ? this.loaded.source : null;
  }

  // Loads a game module from elsewhere (a challenge's `game_module`) through the same check as
  // the editor's; it lands in the editor only when the editor holds nothing of the visitor's.
  // Resolves {spec} or {error, line}.
  loadSource(source) {
    return new Promise((resolve) => {
      const start = () => {
        this.nextId += 1;
        const id = this.nextId;
        if (!this.send({ type: "load_game", id, source })) {
          resolve({ error: "the page is busy with a run: stop it, then open the challenge again" });
          return;
        }
        this.sourceLoads.set(id, (out) => {
          if (out.spec) {
            this.loaded = { name: out.spec.name, source };
            if (!this.editor.value.trim()) {
              this.editor.value = source;
              store.save(LOADED_KEY, true); // loaded again after a reload, like the editor's own
            }
            this.onLoadedHook(out.spec);
          }
          resolve(out);
        });
      };
      if (this.ready) start();
      else this.waiting.push(start);
    });
  }

  setBusy(busy) {
    this.busy = busy;
    this.refresh();
  }

  refresh() {
    this.loadButton.disabled = !this.ready || this.busy || this.pending !== null;
  }

  load(quiet = false) {
    const source = this.editor.value;
    this.showError("");
    if (!source.trim()) {
      this.showError("The game module is empty: write one, open a file or start from an example.");
      return;
    }
    if (new TextEncoder().encode(source).length > MAX_SOURCE_BYTES) {
      this.showError(`The game module is over ${MAX_SOURCE_BYTES.toLocaleString("en")} bytes.`);
      return;
    }
    this.nextId += 1;
    if (!this.send({ type: "load_game", id: this.nextId, source })) {
      this.showError("Python is not ready yet: load the game once it is.");
      return;
    }
    this.pending = this.nextId;
    this.loadingSource = source;
    this.status.textContent = quiet ? "Loading your game again…" : "Checking the game (a short game with its default moves)…";
    this.refresh();
  }

  // The controller's answer: {id, spec} or {id, error, line}.
  onLoaded(m) {
    const fromSource = this.sourceLoads.get(m.id);
    if (fromSource) {
      this.sourceLoads.delete(m.id);
      const ok = typeof m.error !== "string" && m.spec && typeof m.spec.name === "string";
      fromSource(ok ? { spec: m.spec } : { error: typeof m.error === "string" ? m.error : "the engine sent no "
        + "description of it", line: Number.isInteger(m.line) ? m.line : null });
      return;
    }
    if (m.id !== this.pending) return;
    this.pending = null;
    this.refresh();
    if (typeof m.error === "string") {
      store.save(LOADED_KEY, false);
      this.status.textContent = "";
      this.showError(`The game did not load: ${m.error}`, Number.isInteger(m.line) ? m.line : null);
      return;
    }
    const spec = m.spec;
    if (!spec || typeof spec.name !== "string") {
      this.showError("The game did not load: the engine sent no description of it.");
      return;
    }
    store.save(LOADED_KEY, true);
    this.loaded = { name: spec.name, source: this.loadingSource };
    this.status.textContent = `Loaded ${String(spec.title || spec.name)}: choose bots (its examples are in `
      + "each bot's Example bots menu) and press Run.";
    this.onLoadedHook(spec);
  }

  showError(text, line = null) {
    this.error.textContent = text;
    this.errorLine = line;
    this.gotoLine.hidden = line === null;
    if (line !== null) this.gotoLine.textContent = `Show line ${line}`;
  }

  showLine(line) {
    const doc = this.editor.view.state.doc;
    if (!Number.isInteger(line) || line < 1 || line > doc.lines) return;
    const at = doc.line(line);
    this.editor.view.dispatch({ selection: { anchor: at.from, head: at.to }, scrollIntoView: true });
    this.editor.view.focus();
  }
}
