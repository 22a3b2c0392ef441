// Results table: one row per bot, plus per-game rows in a collapsible <details>.
// It shows the engine's summary as it is (the page computes no result): one pass over
// the games for the bot rows, and the per-game rows only when opened, at most
// MAX_GAME_ROWS of them, so no summary can make the page build millions of cells.

export const MAX_GAME_ROWS = 500;

function fmt(v, digits = 1) {
  if (typeof v !== "number" || Number.isNaN(v)) return "—";
  return Number.isInteger(v) ? String(v) : v.toFixed(digits);
}

function cell(tag, text, attrs = {}) {
  const el = document.createElement(tag);
  el.textContent = text;
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  return el;
}

function isScore(v) { return typeof v === "number" && Number.isFinite(v); }

// Per bot: games played and faults, in one pass over the games.
function totals(games, nBots) {
  const played = new Array(nBots).fill(0);
  const faults = new Array(nBots).fill(0);
  for (const g of games) {
    const scores = g && Array.isArray(g.scores) ? g.scores : [];
    const f = g && Array.isArray(g.faults) ? g.faults : [];
    for (let i = 0; i < nBots; i++) {
      if (isScore(scores[i])) played[i]++;
      if (isScore(f[i])) faults[i] += f[i];
    }
  }
  return { played, faults };
}

// The bot order the engine ranked (best first), or the bots' own order when the summary
// has no ranking of these bots.
function rankedOrder(summary, nBots) {
  const r = summary && Array.isArray(summary.ranking) ? summary.ranking : null;
  const valid = r && r.length === nBots && new Set(r).size === nBots
    && r.every((b) => Number.isInteger(b) && b >= 0 && b < nBots);
  return valid ? r.slice() : [...Array(nBots).keys()];
}

// container: element to fill. summary: the engine's {games: [{seed, scores, winner, faults}],
// mean_scores, wins, scoring: "wins" | "mean_score", ranking}. "wins": a Wins column and a
// winner per game; "mean_score": the bots ranked by mean score.
export function renderResults(container, botNames, summary, note = "") {
  container.replaceChildren();
  const games = summary && Array.isArray(summary.games) ? summary.games : [];
  const byWins = !summary || summary.scoring !== "mean_score";
  const table = document.createElement("table");
  table.className = "results";
  const cap = cell("caption", "Results");
  if (note) cap.append(cell("span", ` (${note})`, { class: "muted" }));
  table.append(cap);
  const thead = document.createElement("thead");
  const hr = document.createElement("tr");
  const heads = byWins ? ["Bot", "Games", "Wins", "Mean score", "Faults"] : ["Bot", "Games", "Rank", "Mean score", "Faults"];
  heads.forEach((h) => hr.append(cell("th", h, { scope: "col" })));
  thead.append(hr);
  table.append(thead);
  const tbody = document.createElement("tbody");
  const { played, faults } = totals(games, botNames.length);
  const wins = summary && Array.isArray(summary.wins) ? summary.wins : [];
  const means = summary && Array.isArray(summary.mean_scores) ? summary.mean_scores : [];
  const order = byWins ? [...botNames.keys()] : rankedOrder(summary, botNames.length);
  order.forEach((i, place) => {
    const tr = document.createElement("tr");
    tr.append(cell("th", botNames[i], { scope: "row" }));
    const third = byWins ? fmt(wins[i] ?? 0) : (games.length ? String(place + 1) : "—");
    [String(played[i]), third, fmt(means[i], 2), String(faults[i])].forEach((v) => tr.append(cell("td", v)));
    tbody.append(tr);
  });
  if (!botNames.length) {
    const tr = document.createElement("tr");
    tr.append(cell("td", "No results yet.", { colspan: String(heads.length) }));
    tbody.append(tr);
  }
  table.append(tbody);
  container.append(table);

  const det = document.createElement("details");
  det.className = "per-game";
  det.append(cell("summary", `Per-game results (${games.length} game${games.length === 1 ? "" : "s"})`));
  let built = false;
  det.addEventListener("toggle", () => {
    if (!det.open || built) return;
    built = true;
    det.append(perGameTable(botNames, games, byWins));
  });
  container.append(det);
}

function perGameTable(botNames, games, byWins) {
  const frag = document.createDocumentFragment();
  const t2 = document.createElement("table");
  t2.append(cell("caption", "Per-game results"));
  const h2 = document.createElement("tr");
  ["Game", "Seed", ...botNames.map((n) => `${n} score`), ...(byWins ? ["Winner"] : [])]
    .forEach((h) => h2.append(cell("th", h, { scope: "col" })));
  const th2 = document.createElement("thead");
  th2.append(h2);
  t2.append(th2);
  const tb2 = document.createElement("tbody");
  const shown = Math.min(games.length, MAX_GAME_ROWS);
  for (let k = 0; k < shown; k++) {
    const g = games[k] || {};
    const tr = document.createElement("tr");
    tr.append(cell("th", String(k + 1), { scope: "row" }));
    tr.append(cell("td", isScore(g.seed) ? String(g.seed) : "—"));
    const scores = Array.isArray(g.scores) ? g.scores : [];
    const faults = Array.isArray(g.faults) ? g.faults : [];
    botNames.forEach((_, i) => {
      let v = fmt(scores[i]);
      const f = faults[i];
      if (isScore(f) && f) v += ` (${f} fault${f === 1 ? "" : "s"})`;
      tr.append(cell("td", v));
    });
    if (byWins) tr.append(cell("td", Number.isInteger(g.winner) ? botNames[g.winner] ?? "?" : "draw"));
    tb2.append(tr);
  }
  t2.append(tb2);
  frag.append(t2);
  if (games.length > shown) {
    frag.append(cell("p", `The first ${shown} of ${games.length} games are shown.`, { class: "muted" }));
  }
  return frag;
}

// Each bot's median and worst move time (the controller's `done` event: per bot {turns,
// median_ms, max_ms}, the round trip of each move), as a table under the results.
export function renderTiming(container, botNames, timing) {
  container.querySelector("table.timing")?.remove();
  if (!Array.isArray(timing) || !botNames.length) return;
  const table = document.createElement("table");
  table.className = "timing";
  table.append(cell("caption", "Move time (wall clock, each move's round trip)"));
  const thead = document.createElement("thead");
  const hr = document.createElement("tr");
  ["Bot", "Moves", "Median", "Worst"].forEach((h) => hr.append(cell("th", h, { scope: "col" })));
  thead.append(hr);
  const tbody = document.createElement("tbody");
  const msText = (v) => (isScore(v) ? `${v < 10 ? v.toFixed(3) : v.toFixed(1)} ms` : "—");
  botNames.forEach((name, i) => {
    const t = timing[i] && typeof timing[i] === "object" ? timing[i] : {};
    const tr = document.createElement("tr");
    tr.append(cell("th", name, { scope: "row" }));
    [isScore(t.turns) ? String(t.turns) : "0", msText(t.median_ms), msText(t.max_ms)].forEach((v) => tr.append(cell("td", v)));
    tbody.append(tr);
  });
  table.append(thead, tbody);
  container.append(table);
}
