// Results table: one row per bot, plus per-game rows in a collapsible <details>.

function fmt(v, digits = 1) {
  if (v === null || v === undefined || Number.isNaN(v)) return "—";
  return Number.isInteger(v) ? String(v) : Number(v).toFixed(digits);
}

function cell(tag, text, attrs = {}) {
  const el = document.createElement(tag);
  el.textContent = text;
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  return el;
}

// container: element to fill. summary: {games:[{seed, scores, winner, faults}], mean_scores, wins}
export function renderResults(container, game, botNames, summary, note = "") {
  container.replaceChildren();
  const games = (summary && summary.games) || [];
  const table = document.createElement("table");
  table.className = "results";
  const cap = cell("caption", "Results");
  if (note) cap.append(cell("span", ` (${note})`, { class: "muted" }));
  table.append(cap);
  const thead = document.createElement("thead");
  const hr = document.createElement("tr");
  const heads = ["Bot", "Games", "Wins", game === "flit" ? "Mean pieces" : "Mean score", "Faults"];
  heads.forEach((h) => hr.append(cell("th", h, { scope: "col" })));
  thead.append(hr);
  table.append(thead);
  const tbody = document.createElement("tbody");
  botNames.forEach((name, i) => {
    const tr = document.createElement("tr");
    tr.append(cell("th", name, { scope: "row" }));
    const played = games.filter((g) => g.scores && g.scores[i] !== null && g.scores[i] !== undefined).length;
    const faults = games.reduce((a, g) => a + ((g.faults && g.faults[i]) || 0), 0);
    const wins = summary && summary.wins ? summary.wins[i] : 0;
    const mean = summary && summary.mean_scores ? summary.mean_scores[i] : null;
    [String(played), fmt(wins), fmt(mean, 2), String(faults)].forEach((v) => tr.append(cell("td", v)));
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
  const t2 = document.createElement("table");
  t2.append(cell("caption", "Per-game results"));
  const h2 = document.createElement("tr");
  ["Game", "Seed", ...botNames.map((n) => `${n} ${game === "flit" ? "pieces" : "score"}`), "Winner"]
    .forEach((h) => h2.append(cell("th", h, { scope: "col" })));
  const th2 = document.createElement("thead");
  th2.append(h2);
  t2.append(th2);
  const tb2 = document.createElement("tbody");
  games.forEach((g, k) => {
    const tr = document.createElement("tr");
    tr.append(cell("th", String(k + 1), { scope: "row" }));
    tr.append(cell("td", String(g.seed ?? "—")));
    botNames.forEach((_, i) => {
      let v = g.scores ? fmt(g.scores[i]) : "—";
      const f = g.faults && g.faults[i];
      if (f) v += ` (${f} fault${f === 1 ? "" : "s"})`;
      tr.append(cell("td", v));
    });
    const w = g.winner === null || g.winner === undefined ? (botNames.length > 1 ? "draw" : "—") : botNames[g.winner] ?? "?";
    tr.append(cell("td", w));
    tb2.append(tr);
  });
  t2.append(tb2);
  det.append(t2);
  container.append(det);
}
