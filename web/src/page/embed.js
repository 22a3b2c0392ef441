// The page inside a Stack Snippet (engine/contest/snippet.py's boot script sets kothEmbed). The
// snippet carries the challenge (the link format) and the question whose answers join the
// field; everything else came from the wheel. Opened once Python is ready: the challenge as a
// challenge link (checked by the engine, trial view), then the answers (se_import.js).

import * as challengeModel from "../challenge_model.js";

export function createEmbed(app) {
  const { store } = app;
  const data = globalThis.kothEmbed && typeof globalThis.kothEmbed === "object" ? globalThis.kothEmbed : null;
  let started = false;
  let done = false; // the snippet's challenge and answers are in (tests wait for it)

  async function start() {
    if (started) return;
    started = true;
    document.body.classList.add("embedded");
    // No link can lead back into a snippet's sandboxed frame, its storage lasts the visit, and
    // the site's sandbox allows no downloads.
    for (const id of ["share", "share-challenge", "snippet-export-open", "export-challenge"]) {
      const node = document.getElementById(id);
      if (node) node.hidden = true;
    }
    const taken = await app.challenge.panel.openLink(String(data.challenge || ""));
    if (taken && Number.isInteger(data.question)) {
      const site = typeof data.site === "string" && data.site ? data.site : "codegolf";
      const result = await app.challenge.stackExchange.run(String(data.question), site,
        { onStatus: (t) => app.status.set(t) });
      const added = result.entries.length ? challengeModel.addEntries(result.entries.map(
        ({ name, author, code, language, link }) => ({ name, author, code, language, link }))) : 0;
      const left = result.problems.map((p) => `${p.name || `answer ${p.answer_id}`} (${p.kind === "native-only"
        ? "native only" : p.reason})`);
      app.status.set(`${added} answer${added === 1 ? "" : "s"} of the question joined the field`
        + `${left.length ? `; not added: ${left.join(", ")}` : ""}. Press Run to play.`);
      if (result.error) app.status.error(`Some answers could not be read: ${result.error}.`);
    }
    // The snippet shows the field's leaderboard: tournament mode, one Run away.
    if (!store.tournamentMode() && !store.run) {
      app.tournament.setMode("tournament");
      app.tournament.showField();
    }
    done = true;
  }

  return { data, start, get done() { return done; } };
}
