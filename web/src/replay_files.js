// Replay files out of the page, and back in by drag-and-drop; the one-game link's button.
//
// What the viewer shows is saved in the engine's replay format (engine/play/replay.py, schema
// version 3): the game on show as a "game" document (its record as the engine wrote it), or
// every game on show as a "series" (its records and bots; the summary is left for the
// reader to recompute). `python -m engine replay FILE` and the page's Open replay… read
// both, re-running every turn through the rules. A tournament's games as one file come from
// the engine (web/src/tournament_files.js). Files dropped on the page take the same path as
// the file picker's (app.js openReplayFile: size first, then nesting, then the engine).
//
// new ReplayFiles({container, viewer, linkContext, onOpenFile, status, error})
//   linkContext(record) -> {preset, budget, fields, bots: {name: {code, language}}} or null
//   onOpenFile(file)     the page's own opening of a replay file (checks and engine)

import { gameLinkData, GAME_LINK_PREFIX } from "./game_link.js";

const SCHEMA_VERSION = 3; // 3: a record may carry its debug part (engine/play/debug_part.py)

// Saves text as a file the browser downloads.
export function saveText(name, text, type = "application/json") {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

// A file name from untrusted words: letters, digits and dashes only.
export function fileName(...parts) {
  const words = parts.map((p) => String(p).toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, ""));
  return `${words.filter(Boolean).join("-").slice(0, 80) || "replay"}.json`;
}

// The finished record as a game document.
export function gameDocument(record) {
  const { schema_version: _v, kind: _k, ...rest } = record;
  return { schema_version: SCHEMA_VERSION, kind: "game", ...rest };
}

// Every finished record on show as one series, or null when the records cannot be one
// (a tournament's games: an entry plays a seed more than once).
export function seriesDocument(records, bots) {
  const seen = new Set();
  for (const r of records) {
    for (const b of r.bot_index || []) {
      const key = `${r.seed}/${b}`;
      if (seen.has(key)) return null;
      seen.add(key);
    }
  }
  return { schema_version: SCHEMA_VERSION, kind: "series", game: records[0].game, bots: bots.slice(), records };
}

export class ReplayFiles {
  constructor({ container, viewer, linkContext = () => null, onOpenFile, status, error }) {
    this.viewer = viewer;
    this.hooks = { linkContext, onOpenFile, status, error };
    const button = (id, text) => {
      const b = document.createElement("button");
      b.type = "button";
      b.id = id;
      b.textContent = text;
      return b;
    };
    this.gameButton = button("download-game", "Download this game");
    this.allButton = button("download-games", "Download all games shown");
    this.linkButton = button("game-link", "Link to this game");
    this.linkBox = document.createElement("div");
    this.linkBox.className = "share-box";
    this.linkBox.hidden = true;
    const label = document.createElement("label");
    label.htmlFor = "game-link-url";
    label.textContent = "Link to this game";
    this.linkUrl = document.createElement("input");
    this.linkUrl.id = "game-link-url";
    this.linkUrl.type = "text";
    this.linkUrl.readOnly = true;
    this.linkBox.append(label, this.linkUrl);
    const row = document.createElement("div");
    row.className = "buttons";
    row.append(this.gameButton, this.allButton, this.linkButton);
    container.replaceChildren(row, this.linkBox);
    this.gameButton.addEventListener("click", () => this.downloadGame());
    this.allButton.addEventListener("click", () => this.downloadAll());
    this.linkButton.addEventListener("click", () => this.makeLink());
  }

  finished() {
    return this.viewer.tracks.map((t) => t.record).filter((r) => r && r.result);
  }

  current() {
    const track = this.viewer.track;
    return track && track.record && track.record.result ? track.record : null;
  }

  downloadGame() {
    const record = this.current();
    if (!record) return this.hooks.error("No finished game is on show to download.");
    const names = (record.bots || []).join(" vs ");
    saveText(fileName(record.game, "seed", record.seed, names), JSON.stringify(gameDocument(record)));
    this.hooks.status(`Downloaded the game of seed ${record.seed} (${names}); Open replay… or a drop on the page opens it again.`);
    return undefined;
  }

  downloadAll() {
    const records = this.finished();
    if (!records.length) return this.hooks.error("No finished game is on show to download.");
    const doc = seriesDocument(records, this.viewer.botNames);
    if (!doc) {
      return this.hooks.error("These are a tournament's games: use Download all games under the leaderboard, "
        + "or download one game.");
    }
    saveText(fileName(doc.game, `${records.length}-games`), JSON.stringify(doc));
    this.hooks.status(`Downloaded ${records.length} game${records.length === 1 ? "" : "s"} as one replay file.`);
    return undefined;
  }

  async makeLink() {
    const record = this.current();
    if (!record) return this.hooks.error("No finished game is on show to link to.");
    let data;
    try {
      const label = this.viewer.labels[this.viewer.current] || `Game of seed ${record.seed}`;
      data = await gameLinkData(record, this.hooks.linkContext(record), label, this.viewer.t); // opens at this turn
    } catch (e) {
      return this.hooks.error(`No link to this game: ${e.message}.`);
    }
    const url = `${location.origin}${location.pathname}${location.search}#${GAME_LINK_PREFIX}${data}`;
    this.linkUrl.value = url;
    this.linkBox.hidden = false;
    try {
      await navigator.clipboard.writeText(url);
      this.hooks.status(`Link to this game copied (${url.length.toLocaleString("en")} characters): it plays the game again `
        + "with the engine, and carries the bots' code and the run's secret.");
    } catch {
      this.linkUrl.focus();
      this.linkUrl.select();
      this.hooks.status(`Link to this game ready (${url.length.toLocaleString("en")} characters; it carries the bots' `
        + "code and the run's secret): copy it from the box.");
    }
    return undefined;
  }
}

// Files dropped anywhere on `target` open as replays (one file at a time); what is not a
// file (dragged text, a link), or a drop a part of the page took (the Challenge section's
// challenge files), is left alone.
export function bindDrop(target, open, error) {
  const carriesFiles = (ev) => ev.dataTransfer && Array.from(ev.dataTransfer.types || []).includes("Files");
  target.addEventListener("dragover", (ev) => {
    if (!carriesFiles(ev) || ev.defaultPrevented) return;
    ev.preventDefault();
    ev.dataTransfer.dropEffect = "copy";
    document.body.classList.add("dropping");
  });
  target.addEventListener("dragleave", () => document.body.classList.remove("dropping"));
  target.addEventListener("drop", (ev) => {
    document.body.classList.remove("dropping");
    if (!carriesFiles(ev) || ev.defaultPrevented) return;
    ev.preventDefault();
    const files = Array.from(ev.dataTransfer.files || []);
    if (files.length !== 1) {
      error(`Drop one replay file at a time (${files.length} were dropped).`);
      return;
    }
    open(files[0]);
  });
}
