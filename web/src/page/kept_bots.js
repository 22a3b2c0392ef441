// Bots kept aside: a shared link (or another tab) never silently replaces stored code.
// Per game, in localStorage, a short stack of {bots, reason}; the notice offers the newest.
// Restoring swaps it with the bots on show, which are kept in its place (under the opposite
// reason), so nothing is lost whichever button is pressed. Other tabs' saved bots show here,
// unless this tab has edits not saved yet.

import * as storage from "../storage.js";
import { languageOf } from "../python2.js";
import { normaliseBots } from "./store.js";

const MAX_KEPT = 8;
const KEPT = {
  link: { text: "The bots you had before opening a shared link are kept.", button: "Restore my previous bots",
    back: "Your previous bots are back.", swap: "shared" },
  shared: { text: "The shared link's bots are kept.", button: "Use the shared bots",
    back: "The shared bots are back.", swap: "link" },
  tab: { text: "The version another tab saved at the same time is kept.", button: "Use the other tab's version",
    back: "Now showing the other tab's version.", swap: "own" },
  own: { text: "This tab's earlier version is kept.", button: "Use this tab's version again",
    back: "This tab's version is back.", swap: "tab" },
};

export function sameBots(a, b) {
  return a.length === b.length && a.every((x, i) => x.name === b[i].name && x.code === b[i].code
    && languageOf(x) === languageOf(b[i]));
}

// Oldest first: {bots, reason, at} (at: when it was kept, ms since 1970; null before it was noted).
export function keptStack(game) {
  const stack = storage.load(`previous-bots:${game}`, null);
  if (!Array.isArray(stack)) return [];
  return stack.filter((k) => k && Array.isArray(k.bots)).map((k) => ({
    bots: normaliseBots(k.bots), reason: Object.hasOwn(KEPT, k.reason) ? k.reason : "link",
    at: Number.isFinite(k.at) ? k.at : null,
  }));
}

// The newest kept version of a game's bots, or null.
function keptBots(game) {
  const stack = keptStack(game);
  return stack.length ? stack[stack.length - 1] : null;
}

export function keepBots(game, bots, reason, replaceNewest = false) {
  const stack = keptStack(game);
  if (replaceNewest) stack.pop();
  stack.push({ bots: bots.map((b) => ({ ...b })), reason, at: Date.now() });
  storage.save(`previous-bots:${game}`, stack.slice(-MAX_KEPT));
}

// The notice above the bots: what just happened, and the kept version on offer.
export function createNotice(app) {
  const { store, els } = app;
  let noticeLead = ""; // what just happened (a link opened, bots restored), shown before the offer

  function show(lead = noticeLead) {
    noticeLead = lead;
    const kept = keptBots(store.settings.game);
    const parts = [];
    if (lead) parts.push(lead);
    if (kept) parts.push(KEPT[kept.reason].text);
    const more = keptStack(store.settings.game).length - 1;
    if (more > 0) parts.push(`(${more} older kept version${more === 1 ? "" : "s"} behind it.)`);
    els.noticeText.textContent = parts.join(" ");
    els.noticeRestore.hidden = els.noticeDiscard.hidden = !kept;
    if (kept) els.noticeRestore.textContent = KEPT[kept.reason].button;
    els.notice.hidden = !parts.length;
  }

  function restore() {
    const g = store.settings.game;
    const kept = keptBots(g);
    if (!kept) return;
    store.saver.flush();
    const shown = store.botsOf(g).map((b) => ({ ...b }));
    store.botsByGame[g] = kept.bots;
    keepBots(g, shown, KEPT[kept.reason].swap, true);
    storage.save(`bots:${g}`, store.botsByGame[g]);
    app.panels.showBots();
    show(KEPT[kept.reason].back);
    els.noticeRestore.focus();
  }

  function discard() {
    const g = store.settings.game;
    const stack = keptStack(g);
    stack.pop();
    if (stack.length) storage.save(`previous-bots:${g}`, stack); else storage.remove(`previous-bots:${g}`);
    show("");
    if (stack.length) els.noticeRestore.focus(); else els.run.focus();
  }

  window.addEventListener("storage", (ev) => {
    const m = ev.key && ev.key.startsWith(storage.PREFIX)
      ? /^bots:(\w+)$/.exec(ev.key.slice(storage.PREFIX.length)) : null;
    if (!m || !store.botsByGame[m[1]] || ev.newValue === null) return;
    const g = m[1];
    let theirs;
    try { theirs = normaliseBots(JSON.parse(ev.newValue)); } catch { return; }
    if (sameBots(theirs, store.botsByGame[g])) return;
    if (store.saver.pending(`bots:${g}`)) {
      // Both tabs edited at once: this tab's edits are saved, the other tab's version is kept.
      keepBots(g, theirs, "tab");
      store.saver.flush();
      if (g === store.settings.game) show("These bots were also edited in another tab: this tab's version is saved.");
      return;
    }
    store.botsByGame[g] = theirs;
    if (g === store.settings.game) app.panels.showBots();
  });

  els.noticeRestore.addEventListener("click", restore);
  els.noticeDiscard.addEventListener("click", discard);
  els.noticeClose.addEventListener("click", () => { els.notice.hidden = true; els.run.focus(); });
  return { show };
}
