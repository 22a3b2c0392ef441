// Share links: the form's game, settings and bots in the URL hash (#<base64url JSON>), made by
// Share and applied when a page opens with one; a game link (#g...) and a challenge link are
// handed to their own modules. Also the run's secret field (kept like the settings; a
// challenge's file and link carry it, a match's share link only when asked).

import * as storage from "../storage.js";
import { readRepeat, recipientNote, repeatFields } from "../share_repeat.js";
import { LINK_PREFIX } from "../challenge_link.js";
import { GAME_LINK_PREFIX } from "../game_link.js";
import { languageField } from "../python2.js";
import { FIELD_LABELS, LIMITS, MAX_PANELS, normaliseBots } from "./store.js";
import { keepBots, sameBots } from "./kept_bots.js";

export function createShareLinks(app) {
  const { store, els } = app;
  const $ = (id) => document.getElementById(id);
  const secretInput = $("secret");
  secretInput.value = String(storage.load("secret", "") || "");
  secretInput.addEventListener("input", () => storage.save("secret", secretInput.value));

  function shareObject() {
    const g = store.settings.game;
    const n = store.botCount();
    const fields = {};
    for (const [key, input] of app.form.fieldInputs) if (input.value.trim() !== "") fields[key] = Number(input.value);
    const module = app.gameEditor.loadedSource(g);
    return {
      v: 1,
      settings: { game: g, preset: store.gameSettings(g).preset, seed: store.settings.seed,
        games: store.settings.games, ...fields },
      bots: store.botsOf(g).slice(0, n).map((b) => ({ name: b.name, code: b.code, ...languageField(b) })),
      ...(module ? { game_module: module } : {}), // an author's game
    };
  }

  // A share link of an author's game carries its module: the visitor presses Load this game
  // (a stranger's code, shown first) and the link is applied once the game is known.
  function sharedGameModule(h) {
    let obj;
    try {
      obj = storage.decodeShare(h);
    } catch {
      return null; // applyHash says what is wrong with it
    }
    if (!obj || typeof obj.game_module !== "string" || typeof obj.settings?.game !== "string") return null;
    if (app.gameEditor.loadedSource(obj.settings.game) === obj.game_module) return null;
    return JSON.stringify({ game: obj.settings.game, game_module: obj.game_module });
  }

  // The run's bots and settings as a key: a link repeats the secret a run of the same drew.
  function runKey() {
    return JSON.stringify([shareObject(), store.settings.budget ?? null]);
  }

  async function shareLink() {
    store.saver.flush();
    const obj = shareObject();
    const repeat = repeatFields({ key: runKey(), secretField: secretInput.value, budget: store.settings.budget ?? null,
      include: $("share-secret").checked });
    const url = `${location.origin}${location.pathname}${location.search}#${storage.encodeShare({ ...obj, ...repeat.fields })}`;
    els.shareUrl.value = url;
    els.shareBox.hidden = false;
    $("share-note").textContent = repeat.note;
    app.status.clearError();
    try {
      await navigator.clipboard.writeText(url);
      app.status.set("Share link copied to the clipboard.");
    } catch {
      els.shareUrl.focus();
      els.shareUrl.select();
      app.status.set("Share link ready: copy it from the Share link URL box.");
    }
  }

  // The link's settings and bots, checked against the game's spec: {parsed, fields, repeat}
  // (or throws). Numbers out of the game's bounds are refused, never clamped.
  function readShare(h) {
    const obj = storage.decodeShare(h);
    const parsed = storage.checkShare(obj, store.gameNames(), MAX_PANELS);
    const repeat = readRepeat(obj);
    const g = parsed.settings.game;
    const spec = store.specOf(g);
    const name = parsed.settings.preset;
    if (name !== undefined && !spec.presets.some((p) => p.name === name)) {
      throw new Error(`${spec.title} has no preset ${JSON.stringify(name.slice(0, 40))}`);
    }
    const preset = store.presetOf(g, name);
    const [lo, hi] = store.botBounds(g, preset.name);
    if (parsed.bots.length < lo || parsed.bots.length > hi) {
      throw new Error(`the ${spec.title} ${preset.name} preset plays with ${lo === hi ? lo : `${lo} to ${hi}`} bots, `
        + `the link has ${parsed.bots.length}`);
    }
    const fields = {};
    const bounded = [["seed", FIELD_LABELS.seed, ...LIMITS.seed], ["games", FIELD_LABELS.games, ...LIMITS.games],
      ...spec.fields.map((f) => [f.key, String(f.label || f.key), f.min, f.max])];
    for (const [k, label, min, max] of bounded) {
      if (!Object.hasOwn(parsed.settings, k)) continue;
      const v = parsed.settings[k];
      if (!Number.isInteger(v)) throw new Error(`its ${label} is not a whole number`);
      if (v < min || v > max) throw new Error(`its ${label} is ${v}; the page allows ${min} to ${max}`);
      if (k !== "seed" && k !== "games") fields[k] = v;
    }
    return { parsed, fields, repeat };
  }

  // Applies a hash like "#<base64url JSON>"; returns true when it applied one. The bots on
  // show before are kept aside (one click to restore), and the notice shows what the link set.
  function applyHash() {
    let h = location.hash.replace(/^#/, "");
    if (!h) return false;
    if (h.startsWith(GAME_LINK_PREFIX)) { // one game, played again (game_link.js)
      if (!store.specs.length) store.hashPending = true;
      else app.runs.openGameLink(h.slice(GAME_LINK_PREFIX.length));
      return true;
    }
    if (h.startsWith(LINK_PREFIX)) { // a whole challenge (challenge_panel.js); older links below
      app.challenge.panel.openLink(h.slice(LINK_PREFIX.length));
      return true;
    }
    if (!store.specs.length) {
      store.hashPending = true; // applied once the games are known
      return true;
    }
    store.hashPending = false;
    if (h.startsWith("s=")) h = h.slice(2);
    const carried = sharedGameModule(h);
    if (carried) {
      app.challenge.panel.loadCarriedGame(carried, "the shared link").then((loaded) => {
        if (!loaded) return;
        store.settings.mode = "match"; // the prompt is shown with the challenge; the link is a match's
        store.saveSettings();
        app.tournament.showMode();
        applyHash();
      });
      return true;
    }
    let read;
    try {
      read = readShare(h);
    } catch (e) {
      app.status.error(`Could not apply the shared link: ${e.message}. Nothing was changed.`);
      return false;
    }
    const { parsed, fields, repeat } = read;
    const s = parsed.settings;
    const g = s.game;
    store.saver.flush();
    const before = store.botsOf(g).map((b) => ({ ...b }));
    const after = before.map((b) => ({ ...b }));
    parsed.bots.forEach((b, i) => { after[i] = { name: b.name, code: b.code, ...languageField(b) }; });
    // The visitor's own code is kept; bots an earlier link put there, unedited, are not.
    // Nor are the examples the page seeded (a first visit has nothing of its own to keep).
    const shipped = new Set(Object.values(store.examplesOf(g)));
    const own = before.some((b) => b.code.trim() && !shipped.has(b.code))
      && !sameBots(before, normaliseBots(storage.load(`shared-bots:${g}`, [])));
    if (own && !sameBots(before, after)) keepBots(g, before, "link");
    store.settings.game = g;
    const gs = store.gameSettings(g);
    gs.preset = store.presetOf(g, s.preset).name;
    gs.fields = fields;
    gs.count = parsed.bots.length;
    for (const k of ["seed", "games"]) if (k in s) store.settings[k] = s[k];
    if (repeat.secret) {
      secretInput.value = repeat.secret;
      storage.save("secret", repeat.secret);
    }
    if (repeat.budget) {
      store.settings.budget = repeat.budget;
      $("budget").value = String(repeat.budget);
    }
    store.botsByGame[g] = after;
    storage.save(`shared-bots:${g}`, after);
    store.saveSettings();
    store.saveBots(g);
    store.saver.flush();
    history.replaceState(null, "", location.pathname + location.search);
    app.status.clearError();
    app.form.showSettings();
    app.notice.show(`Opened a shared challenge: ${describeSettings(parsed.bots)}. ${recipientNote(repeat)} `
      + "Nothing runs until you press Run.");
    app.status.set("Applied the settings and bots from the shared link.");
    return true;
  }

  // "TITLE PRESET, seed 5, 10 games, Time limit (ms) 100, bots: a, b" for the notice.
  function describeSettings(bots) {
    const g = store.settings.game;
    const spec = store.specOf(g);
    const parts = [`${spec.title} ${store.gameSettings(g).preset}`, `seed ${store.settings.seed}`,
      `${store.settings.games} game${store.settings.games === 1 ? "" : "s"}`];
    for (const f of spec.fields) parts.push(`${f.label} ${store.fieldValue(g, f.key)}`);
    parts.push(`bots: ${bots.map((b) => b.name || "unnamed").join(", ")}`);
    return parts.join(", ");
  }

  els.share.addEventListener("click", shareLink);
  window.addEventListener("hashchange", () => applyHash());
  return {
    applyHash,
    runKey,
    secret: () => secretInput.value,
    setSecret(value) {
      secretInput.value = value;
      storage.save("secret", secretInput.value);
    },
  };
}
