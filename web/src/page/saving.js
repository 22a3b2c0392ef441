// Saving that fails: a warning that stays until a save works again, with the bots' code to
// download meanwhile. Flushes pending saves when the page is left or hidden.

import * as storage from "../storage.js";

// What the visitor would lose.
const WATCHED_SAVES = /^(settings|bots:|previous-bots:|challenge:(field|kept|yours):)/;

export function bindSaving(app) {
  const { store, els } = app;
  const failedSaves = new Map(); // key -> the error of its last save
  window.addEventListener("pagehide", () => store.saver.flush());
  window.addEventListener("beforeunload", () => store.saver.flush());
  document.addEventListener("visibilitychange", () => { if (document.hidden) store.saver.flush(); });

  function showSaveWarning() {
    if (!failedSaves.size) {
      els.saveWarning.hidden = true;
      return;
    }
    const error = [...failedSaves.values()].pop();
    const why = error && error.name === "QuotaExceededError" ? "its storage is full"
      : `it refused to store them${error && error.name ? ` (${error.name})` : ""}`;
    els.saveWarningText.textContent = `Your bots' code is not being saved: ${why}. Edits made now are lost `
      + "when you reload or close this page. To keep them, download the code (or copy it from the editors).";
    els.saveWarning.hidden = false;
  }
  storage.onSave((key, ok, error) => {
    if (!WATCHED_SAVES.test(key)) return;
    if (ok) failedSaves.delete(key); else failedSaves.set(key, error);
    showSaveWarning();
  });

  function downloadBots() {
    const g = store.settings.game;
    const panels = app.panels.list;
    const text = store.botsOf(g).slice(0, store.botCount(g))
      .map((b, i) => `# ---- Bot ${i + 1}: ${b.name} (${g}) ----\n${panels[i] ? panels[i].editor.value : b.code}\n`)
      .join("\n");
    const url = URL.createObjectURL(new Blob([text], { type: "text/x-python" }));
    const a = document.createElement("a");
    a.href = url;
    a.download = `koth-arena-${g}-bots.py`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }

  function retrySaving() {
    for (const g of Object.keys(store.botsByGame)) if (g) storage.save(`bots:${g}`, store.botsByGame[g]);
    storage.save("settings", store.settings);
    if (!failedSaves.size) app.status.set("Saved: your code is kept in this browser again.");
  }
  els.downloadBots.addEventListener("click", downloadBots);
  els.retrySave.addEventListener("click", retrySaving);
}
