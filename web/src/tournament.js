// Tournament mode's view: the live leaderboard, the cross table (two-player games) and the
// games played, each one click from the viewer. It shows what the engine sends (the
// controller's "tournament-progress" / "tournament-done": rows already ranked, with their
// W/D/L or mean ± interval as text): no result is computed here. The messages are in
// docs/architecture.md ("Tournaments in the page").
//
// new TournamentView({container, send, begin, end, stop, openReplay, status})
//   send(message)        posts to the controller Worker
//   begin()              the page starts a run: its id, or null when it cannot now
//   end(text)            the run is over (text for the status line)
//   stop()               the page's Stop (the stop flag, the grace timer)
//   openReplay(document, label)  shows a game's series document in the viewer
//   status(text, fraction)       the page's status line and progress bar

const MAX_GAME_ROWS = 2000; // games listed (the newest are kept); more are counted, not listed
// Steps a move may take in a page tournament unless the visitor sets another budget (or 0:
// none). Counted, not timed: the same games on every machine and at any load; the time limit
// stays as a backstop far above it (its hard limit, 10x).
export const DEFAULT_TOURNAMENT_BUDGET = 1_000_000;
const VARIES = "No step budget: each move is limited by the wall clock, so results can vary from run to run "
  + "and from machine to machine (set a step budget to repeat them exactly).";

function el(tag, text = "", attrs = {}) {
  const node = document.createElement(tag);
  if (text) node.textContent = text;
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

// "about 2 min 5 s" from milliseconds (the engine's estimate of the time left).
export function formatDuration(ms) {
  if (!Number.isFinite(ms) || ms < 0) return "";
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

export class TournamentView {
  constructor({ container, send, begin = () => null, end = () => {}, stop = () => {},
    openReplay = () => {}, status = () => {} }) {
    this.container = container;
    this.send = send;
    this.hooks = { begin, end, stop, openReplay, status };
    this.run = null; // the id of the run this view shows (also after it ended, for replays)
    this.running = false;
    this.focus = null;
    this.names = new Set();
    this.gameRows = new Map(); // index -> <tr>
    this.pendingReplay = null;
    this.build();
  }

  build() {
    this.board = el("table", "", { class: "leaderboard" });
    this.cross = el("table", "", { class: "cross-table" });
    this.crossWrap = el("div", "", { class: "table-scroll", role: "region", "aria-label": "Cross table", tabindex: "0" });
    this.crossWrap.append(this.cross);
    this.crossWrap.hidden = true;
    this.games = el("table", "", { class: "tournament-games" });
    this.gamesCaption = el("caption", "Games played");
    const head = el("tr");
    for (const h of ["Game", "Seed", "Seats", "Scores", "Winner", "Replay"]) head.append(el("th", h, { scope: "col" }));
    const thead = el("thead");
    thead.append(head);
    this.gamesBody = el("tbody");
    this.games.append(this.gamesCaption, thead, this.gamesBody);
    this.gamesDetails = el("details", "", { class: "tournament-games-box" });
    const summary = el("summary", "Games played, each with its replay");
    const gamesWrap = el("div", "", { class: "table-scroll" });
    gamesWrap.append(this.games);
    this.gamesDetails.append(summary, gamesWrap);
    this.note = el("p", "", { class: "hint tournament-note" });
    this.varies = el("p", VARIES, { class: "hint tournament-varies", role: "note" });
    this.varies.hidden = true;
    this.problems = el("ul", "", { class: "tournament-problems", "aria-label": "Entries' first errors" });
    this.problems.hidden = true;
    const boardWrap = el("div", "", { class: "table-scroll" });
    boardWrap.append(this.board);
    this.container.replaceChildren(boardWrap, this.note, this.varies, this.problems, this.crossWrap, this.gamesDetails);
    this.gamesBody.addEventListener("click", (ev) => {
      const button = ev.target.closest("button[data-index]");
      if (button) this.watch(Number(button.dataset.index));
    });
    this.showBoard(null);
  }

  // Starts a tournament of `challenge` (the challenge file's object). Returns the run id,
  // or null when the page cannot start one now.
  start(challenge, { parallel = null, budget = null, focus = null } = {}) {
    if (this.running) return null;
    const run = this.hooks.begin();
    if (run === null || run === undefined) return null;
    this.run = run;
    this.running = true;
    this.focus = focus;
    this.names = new Set((challenge.entries || []).map((e) => e.name));
    this.gameRows.clear();
    this.gamesBody.replaceChildren();
    this.gamesCaption.textContent = "Games played";
    this.crossWrap.hidden = true;
    this.showBoard(null, "starting");
    this.note.textContent = "";
    this.varies.hidden = Number.isInteger(budget) && budget > 0; // where the wall clock decides
    this.hooks.status(`Tournament: starting ${challenge.entries.length} entries…`, 0);
    this.send({ type: "tournament", run, challenge, parallel, budget, focus });
    return run;
  }

  stop() {
    if (this.running) this.hooks.stop();
  }

  // Another game is on show: the last tournament's tables belong to the game before.
  clear() {
    if (this.running) return;
    this.run = null;
    this.focus = null;
    this.names = new Set();
    this.result = null;
    this.gameRows.clear();
    this.gamesBody.replaceChildren();
    this.gamesCaption.textContent = "Games played";
    this.crossWrap.hidden = true;
    this.problems.hidden = true;
    this.varies.hidden = true;
    this.note.textContent = "";
    this.showBoard(null);
  }

  // The page ended the run (Stop, an error, a replaced controller): no more updates.
  ended() {
    this.running = false;
  }

  // A controller message: true when this view handled it.
  onMessage(m) {
    if (!m || m.run !== this.run || this.run === null) return false;
    if (m.type === "tournament-progress") {
      if (!this.running) return true;
      this.showBoard(m, "running");
      if (m.played) this.addGame(m.played);
      const plan = m.plan || {};
      const left = Number.isFinite(m.eta_ms) && m.done > 0 ? `, about ${formatDuration(m.eta_ms)} left` : "";
      const pairs = plan.parallel ? `; ${plan.parallel} match${plan.parallel === 1 ? "" : "es"} at once` : "";
      this.hooks.status(`Tournament: ${m.done} of ${m.total} games played${left}${pairs}…`,
        m.total ? m.done / m.total : 0);
      return true;
    }
    if (m.type === "tournament-done") {
      this.running = false;
      this.result = m.tournament; // the engine's JSON, as `python -m engine tournament --json` prints it
      this.workers = m.workers || null; // bot Workers: live, peak, started, MB each (scripts/bench_web)
      this.plan = m.plan || null;
      this.showBoard(m, "final");
      const rows = Array.isArray(m.rows) ? m.rows : [];
      const top = rows.filter((r) => r.place === 1).map((r) => r.name).join(" and ");
      this.hooks.end(`Finished the tournament: ${(m.tournament && m.tournament.games || []).length} games in `
        + `${formatDuration(m.elapsed_ms)}; first: ${top || "—"}. Secret ${m.secret}.`);
      return true;
    }
    if (m.type === "tournament-replay") {
      if (this.pendingReplay !== m.index) return true;
      this.pendingReplay = null;
      if (typeof m.error === "string" || !m.document) {
        this.hooks.status(`Could not open game ${Number(m.index) + 1}: ${m.error || "no replay"}.`, null);
        return true;
      }
      this.hooks.openReplay(m.document, `game ${Number(m.index) + 1}`);
      return true;
    }
    if (m.type === "stopped" || m.type === "error") {
      if (this.running) {
        this.running = false;
        this.caption.append(el("span", m.type === "stopped" ? " (stopped)" : " (failed)", { class: "muted" }));
      }
      return false; // the page ends the run
    }
    return false;
  }

  watch(index) {
    if (this.run === null) return;
    this.pendingReplay = index;
    this.send({ type: "tournament-replay", run: this.run, index });
  }

  // ---- drawing what the engine sent
  showBoard(m, state = "") {
    const byRate = !m || m.ranked_by !== "mean_score";
    this.caption = el("caption", "Leaderboard");
    if (state === "running") this.caption.append(el("span", " (so far)", { class: "muted" }));
    if (state === "starting") this.caption.append(el("span", " (starting)", { class: "muted" }));
    const head = el("tr");
    const heads = ["#", "Entry", "Games", byRate ? "W/D/L" : "Mean ± 95%", "95% interval", "Faults", "Settled"];
    for (const h of heads) head.append(el("th", h, { scope: "col" }));
    const thead = el("thead");
    thead.append(head);
    const body = el("tbody");
    const rows = m && Array.isArray(m.rows) ? m.rows : [];
    for (const r of rows) {
      const tr = el("tr");
      if (r.focus) tr.className = "focus";
      const name = el("th", String(r.name), { scope: "row" });
      if (r.focus) name.append(el("span", " (your bot)", { class: "muted" }));
      tr.append(el("td", String(r.place)), name, el("td", String(r.games)), el("td", String(r.measure)),
        el("td", String(r.interval)), el("td", String(r.faults)),
        el("td", r.settled ? "settled" : "", { class: r.settled ? "settled" : "" }));
      body.append(tr);
    }
    if (!rows.length) {
      const tr = el("tr");
      tr.append(el("td", m ? "No games yet." : "Press Run to play every entry against the field.", { colspan: "7" }));
      body.append(tr);
    }
    this.board.replaceChildren(this.caption, thead, body);
    if (m && m.cross) this.showCross(m.order || [], m.cross);
    this.showProblems(m && m.problems && typeof m.problems === "object" ? m.problems : {});
    if (m && m.format) {
      const how = byRate ? "win rate (a draw is half a win)" : "mean score per game";
      this.note.textContent = `${m.title ? `${m.title}: ` : ""}${m.format} format, ranked by ${how}; a place is `
        + "settled when its 95% interval does not overlap its neighbours'. "
        + `Seed ${m.first_seed}, secret ${m.secret}.`;
    }
  }

  // Each entry's first error or fault (the engine's text and line), so its author can fix it.
  showProblems(problems) {
    const items = Object.entries(problems).map(([name, p]) => {
      const li = el("li");
      li.append(el("strong", String(name)));
      const where = Number.isInteger(p.line) ? ` line ${p.line}:` : ":";
      const turn = !Number.isInteger(p.turn) ? "" : p.turn === 0 ? ", at the start" : `, turn ${p.turn}`;
      const game = Number.isInteger(p.game) ? ` (game ${p.game + 1}${turn})` : "";
      li.append(document.createTextNode(`${where} ${String(p.text)}${game}`));
      return li;
    });
    this.problems.replaceChildren(...items);
    this.problems.hidden = !items.length;
  }

  showCross(order, cross) {
    const cap = el("caption", "Cross table: wins-draws-losses of the row against the column");
    const head = el("tr");
    head.append(el("td", ""));
    for (const b of order) head.append(el("th", String(b), { scope: "col" }));
    const thead = el("thead");
    thead.append(head);
    const body = el("tbody");
    for (const a of order) {
      const tr = el("tr");
      tr.append(el("th", String(a), { scope: "row" }));
      for (const b of order) {
        const c = a === b ? null : cross[a] && cross[a][b];
        tr.append(el("td", c ? `${c.wins}-${c.draws}-${c.losses}` : "·"));
      }
      body.append(tr);
    }
    this.cross.replaceChildren(cap, thead, body);
    this.crossWrap.hidden = false;
  }

  addGame(g) {
    const index = Number(g.index);
    if (!Number.isInteger(index) || this.gameRows.has(index)) return;
    const tr = el("tr");
    const seats = Array.isArray(g.seats) ? g.seats.map(String) : [];
    const scores = Array.isArray(g.scores) ? g.scores.map(String) : [];
    const watch = el("button", "Watch", { type: "button", "data-index": String(index),
      "aria-label": `Watch game ${index + 1}` });
    const cellWatch = el("td");
    cellWatch.append(watch);
    const failed = typeof g.error === "string"; // the author's game failed in it: no scores, no replay
    tr.append(el("th", String(index + 1), { scope: "row" }), el("td", String(g.seed)), el("td", seats.join(" vs ")),
      el("td", failed ? g.error : scores.join("–")),
      el("td", failed ? "—" : g.winner === null || g.winner === undefined ? "draw" : String(g.winner)),
      cellWatch);
    // in plan order, whatever order the games end in
    const after = [...this.gameRows.keys()].filter((i) => i > index).sort((a, b) => a - b)[0];
    if (after !== undefined) this.gamesBody.insertBefore(tr, this.gameRows.get(after));
    else this.gamesBody.append(tr);
    this.gameRows.set(index, tr);
    if (this.gameRows.size > MAX_GAME_ROWS) {
      const oldest = Math.min(...this.gameRows.keys());
      this.gameRows.get(oldest).remove();
      this.gameRows.delete(oldest);
    }
    this.gamesCaption.textContent = `Games played (${this.gameRows.size})`;
  }
}
