// The challenge panel's files and links: export and import of the challenge file, challenge
// links (#c=...), and a challenge's own game loaded on the visitor's press; every text is
// checked by the engine in the controller Worker before it replaces the field. Its methods
// are the ChallengePanel's (challenge_panel.js mixes them in).

import * as model from "./challenge_model.js";
import * as store from "./storage.js";
import { LinkError, LINK_PREFIX, limitsPassed, packChallenge, unpackChallenge } from "./challenge_link.js";
import { carriedGame } from "./challenge_game.js";

const MAX_FILE_BYTES = 16 * 1024 * 1024; // a challenge of 32 entries of 256 KiB fits easily

export class ChallengeFiles {
  // ---- files ---------------------------------------------------------------------------------
  async exportFile() {
    model.flush();
    const checked = await this.checked(JSON.stringify(model.currentChallenge()), "Cannot export the challenge");
    if (!checked) return;
    const text = `${JSON.stringify(checked, null, 2)}\n`;
    const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
    const a = document.createElement("a");
    a.href = url;
    a.download = `${slug(checked.title)}.challenge.json`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    this.say(`Exported ${a.download}: ${checked.entries.length} entries.`);
  }

  async importFile(file) {
    if (file.size > MAX_FILE_BYTES) {
      this.fail(`Could not import ${file.name}: it is ${file.size.toLocaleString("en")} bytes; a challenge file `
        + `is at most ${MAX_FILE_BYTES.toLocaleString("en")}. Nothing was changed.`);
      return;
    }
    let text;
    try {
      text = await file.text();
    } catch (e) {
      this.fail(`Could not read ${file.name}: ${e.message}. Nothing was changed.`);
      return;
    }
    await this.importText(text, file.name, "file");
  }

  // A challenge file's (or link's) text: checked by the engine, then it replaces the field on
  // show (which is kept aside). Returns whether it was taken.
  async importText(text, what, reason) {
    if (!(await this.loadCarriedGame(text, what))) return false;
    const c = await this.checked(text, `Could not open ${what}`, " Nothing was changed.");
    if (!c) return false;
    if (c.entries.length > model.MAX_ENTRIES) {
      this.fail(`Could not open ${what}: it has ${c.entries.length} entries; the page holds at most `
        + `${model.MAX_ENTRIES} (python -m engine tournament --challenge FILE plays any number). Nothing was changed.`);
      return false;
    }
    model.replaceChallenge(c, reason);
    this.deps.pageError("");
    const n = c.entries.length;
    this.say(`Opened “${c.title}”: ${n} entr${n === 1 ? "y" : "ies"} of ${c.game}. `
      + "Nothing runs until you press Run.");
    return true;
  }

  // A challenge on an author's game carries its module: loaded (after the visitor's press:
  // it is a stranger's code) before the engine checks the challenge. Whether to go on.
  async loadCarriedGame(text, what) {
    const carried = carriedGame(text);
    if (!carried || this.deps.gameLoaded(carried.game, carried.source)) return true;
    this.deps.showField();
    this.say(`${what[0].toUpperCase()}${what.slice(1)} plays its own game: press Load this game to open it.`);
    if (!(await this.gamePrompt.ask(carried, what))) {
      this.say(`Did not open ${what}: its game was not loaded. Nothing was changed.`);
      return false;
    }
    this.say(`Loading “${carried.game}” (its code runs in a Worker of its own)…`);
    let out;
    try {
      out = await this.deps.loadGame(carried.source);
    } catch (e) {
      out = { error: e.message };
    }
    if (!out || typeof out.error === "string" || !out.spec) {
      const line = out && Number.isInteger(out.line) ? ` (line ${out.line} of its game module)` : "";
      this.fail(`Could not open ${what}: its game did not load: ${out && out.error ? out.error : "no answer"}${line}. `
        + "Nothing was changed; ask its author for a working game module.");
      return false;
    }
    return true;
  }

  // The engine's verdict on a challenge's text: the checked challenge, or null (message shown).
  async checked(text, failLead, after = "") {
    this.say("Checking the challenge with the engine…");
    let out;
    try {
      out = await this.deps.check(text);
    } catch (e) {
      out = { error: e.message };
    }
    if (out && out.challenge) return out.challenge;
    this.fail(`${failLead}: ${out && out.error ? out.error : "the engine did not answer"}.${after}`);
    return null;
  }

  // ---- links ---------------------------------------------------------------------------------
  async shareLink() {
    model.flush();
    const c = await this.checked(JSON.stringify(model.currentChallenge()), "Cannot make a link");
    if (!c) return;
    const url = `${location.origin}${location.pathname}${location.search}#${LINK_PREFIX}${await packChallenge(c)}`;
    const e = this.els;
    e.url.value = url;
    e.linkBox.hidden = false;
    const passed = limitsPassed(url.length);
    e.warning.hidden = !passed.length;
    if (passed.length) {
      e.warningText.textContent = `This link is ${url.length.toLocaleString("en")} characters: longer than `
        + `${passed.map((l) => l.where).join("; ")}. Where it may be cut, share the challenge file instead.`;
    }
    let copied = false;
    try {
      await navigator.clipboard.writeText(url);
      copied = true;
    } catch {
      e.url.focus();
      e.url.select();
    }
    this.say(`${copied ? "Challenge link copied to the clipboard" : "Challenge link ready: copy it from the box"} `
      + `(${url.length.toLocaleString("en")} characters).${passed.length ? " It is long: see the warning." : ""}`);
  }

  // Opens "#c=DATA" (app.js hands it over). Returns a promise of whether it was taken.
  async openLink(data) {
    let text;
    try {
      text = await unpackChallenge(data);
    } catch (e) {
      const why = e instanceof LinkError ? e.message : String(e);
      this.fail(`Could not open the challenge link: ${why}. Ask for the link again, or for the challenge file. `
        + "Nothing was changed.");
      return false;
    }
    const taken = await this.importText(text, "the challenge link", "link");
    if (taken) {
      history.replaceState(null, "", location.pathname + location.search);
      this.deps.showField();
      this.view = "trial";
      store.save("challenge:view", "trial");
      this.renderView();
    }
    return taken;
  }
}

function slug(title) {
  return String(title || "challenge").toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 60)
    || "challenge";
}
