// The challenge panel's trial view: the author's field shown read-only and one "Your bot"
// editor that plays against the whole field (a tournament, runField) without changing it, and
// where it would rank. Its methods are the ChallengePanel's (challenge_panel.js mixes them in).

import * as model from "./challenge_model.js";
import * as store from "./storage.js";
import { summary } from "./challenge_entries_view.js";

const YOUR_BOT_DEFAULT = "Your bot";
// The first line of "Your bot" until the visitor writes their own: the editor starts as a
// marked copy of the game's first example (a bot that plays, to learn the game's API from),
// and Run refuses it unedited, since its rank would be the example's, not the visitor's.
const startLine = (example) => `# Your bot starts as a copy of the example "${example}": edit it, then run it against the field.\n`;

export class TrialView {
  renderTrial() {
    const d = model.details();
    const e = this.els;
    e.trialTitle.textContent = d.title;
    e.trialDescription.textContent = d.description;
    e.trialDescription.hidden = !d.description.trim();
    const items = model.entries().map((entry) => {
      const li = document.createElement("li");
      li.className = `trial-entry${entry.enabled ? "" : " off"}`;
      const head = document.createElement("span");
      head.className = "trial-entry-name";
      if (entry.link && /^https?:\/\//.test(entry.link)) {
        const a = document.createElement("a");
        a.href = entry.link;
        a.rel = "noopener noreferrer";
        a.target = "_blank";
        a.textContent = entry.name;
        head.append(a);
      } else {
        head.textContent = entry.name;
      }
      const meta = document.createElement("span");
      meta.className = "entry-meta";
      meta.textContent = summary(entry);
      const code = document.createElement("details");
      const sum = document.createElement("summary");
      sum.textContent = "Code";
      sum.setAttribute("aria-label", `Code of ${entry.name}`);
      const pre = document.createElement("pre");
      pre.textContent = entry.code; // shown, never run until Run
      pre.tabIndex = 0;
      pre.setAttribute("aria-label", `Code of ${entry.name}`);
      code.append(sum, pre);
      li.append(head, meta, code);
      return li;
    });
    e.trialEntries.replaceChildren(...items);
  }

  // ---- the trial version: your bot against the field -------------------------------------------
  yourKey() { return `challenge:yours:${model.currentGame()}`; }

  ensureYourEditor() {
    const saved = store.load(this.yourKey(), null) || {};
    if (document.activeElement !== this.els.yourName) {
      this.els.yourName.value = typeof saved.name === "string" ? saved.name : YOUR_BOT_DEFAULT;
    }
    const [first, source] = Object.entries(this.deps.examples())[0] || [];
    const code = typeof saved.code === "string" ? saved.code : first ? startLine(first) + source : "";
    if (!this.yourEditor) {
      this.yourEditor = this.deps.createEditor(this.els.yourEditorHost, {
        label: "Your bot code", doc: code, onChange: () => this.saveYourBot(),
      });
      this.yourGame = model.currentGame();
    } else if (this.yourGame !== model.currentGame()) {
      this.yourGame = model.currentGame();
      this.yourEditor.value = code;
    }
  }

  saveYourBot() {
    if (!this.yourEditor) return;
    store.save(this.yourKey(), { name: this.els.yourName.value, code: this.yourEditor.value });
  }

  // The author's field with your bot added (a copy: the field itself is not changed).
  challengeWithYourBot() {
    const c = model.currentChallenge();
    const taken = new Set(c.entries.map((e) => e.name));
    let name = this.els.yourName.value.trim() || YOUR_BOT_DEFAULT;
    if (taken.has(name)) name = `${name} (you)`.slice(0, model.MAX_NAME_CHARS);
    c.entries = c.entries.filter((e) => e.enabled !== false).concat([{ name, code: this.yourEditor.value }]);
    return { challenge: c, name };
  }

  async runYourBot() {
    this.ensureYourEditor();
    if (!this.yourEditor.value.trim()) {
      this.fail("Your bot has no code yet: write a bot in the Your bot code editor.");
      return;
    }
    const copied = this.unedited(this.yourEditor.value);
    if (copied) {
      this.fail(`Your bot is still the example “${copied}” unedited: change its code first, so that the rank is `
        + `your bot's (to see ${copied} itself play, add it to the field in the Author's view).`);
      return;
    }
    const { challenge, name } = this.challengeWithYourBot();
    const c = await this.checked(JSON.stringify(challenge), "Cannot run your bot against the field");
    if (!c) return;
    this.say(""); // checked: the tournament's own status line takes over
    this.yourRun = { name };
    this.els.trialRank.textContent = `Running ${name} against ${c.entries.length - 1} entries…`;
    if (!this.deps.runField(c, name)) {
      this.els.trialRank.textContent = "";
      this.yourRun = null;
    }
  }

  // The example a code is, with or without the starting line (null: the visitor's own).
  unedited(code) {
    const examples = this.deps.examples();
    const body = code.replace(/^# Your bot starts as a copy of the example "[^"\n]*"[^\n]*\n/, "");
    return Object.keys(examples).find((k) => examples[k].trim() === body.trim()) || null;
  }

  // The page's run ended (finished, stopped or failed): no "Running…" left behind.
  runEnded() {
    if (!this.yourRun) return;
    this.els.trialRank.textContent = `${this.yourRun.name}'s run ended before its rank was known.`;
    this.yourRun = null;
  }

  // The engine's final leaderboard of a tournament (rows with place and name, ranked by the
  // engine): where your bot placed, when it was your bot's run.
  // A tournament's first fault per entry ({name: {line, game, turn}}), marked on its line in
  // the editor that shows that entry's code: the open entry's, or "Your bot" after its run.
  markProblems(problems) {
    if (!problems || typeof problems !== "object") return;
    const where = (p) => [Number.isInteger(p.game) ? `game ${p.game + 1}` : "",
      !Number.isInteger(p.turn) ? "" : p.turn === 0 ? "at the start" : `turn ${p.turn}`].filter(Boolean).join(", ");
    const open = this.body && model.entry(this.body.id);
    for (const [name, p] of Object.entries(problems)) {
      if (!p || !Number.isInteger(p.line)) continue;
      if (open && open.name === name) this.body.editor.markFault(p.line, where(p) || "loading the bot");
      if (this.yourRun && this.yourRun.name === name && this.yourEditor) {
        this.yourEditor.markFault(p.line, where(p) || "loading the bot");
      }
    }
  }

  showRank(rows) {
    if (!this.yourRun || !Array.isArray(rows)) return;
    const mine = rows.find((r) => r && r.name === this.yourRun.name);
    if (!mine) return;
    const tied = rows.filter((r) => r.place === mine.place).length > 1;
    this.els.trialRank.textContent = `${this.yourRun.name} would rank ${ordinal(mine.place)}${tied ? " (tied)" : ""} `
      + `of ${rows.length}. The author's field is unchanged.`;
    this.yourRun = null;
  }
}

function ordinal(n) {
  const s = n % 100 >= 11 && n % 100 <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th");
  return `${n}${s}`;
}
