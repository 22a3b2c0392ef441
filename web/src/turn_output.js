// What each bot printed and answered at the turn on show, and how long it took: read from
// the record's debug part (engine/play/debug_part.py; schema version 3). A record from a
// file is untrusted even after the engine checked it, so everything here is text
// (textContent), never markup, and a record without a debug part shows the answers alone.
//
// renderTurnOutput(container, record, turns, turn, names)
//   turns: the record's turns as the viewer holds them; turn: 0 (the start) .. turns.length

const indexes = new WeakMap(); // record -> {starts: each turn's first place in time_us, byTurn}

function debugIndex(record, turns) {
  let found = indexes.get(record);
  if (found && found.n === turns.length && found.source === record.debug) return found;
  const debug = record.debug && typeof record.debug === "object" ? record.debug : {};
  const starts = new Array(turns.length + 1);
  let at = 0;
  for (let k = 0; k < turns.length; k++) {
    starts[k] = at;
    at += Array.isArray(turns[k].seats) ? turns[k].seats.length : 0;
  }
  starts[turns.length] = at;
  const byTurn = new Map(); // turn -> [[seat, stdout, stderr], ...]
  for (const entry of Array.isArray(debug.output) ? debug.output : []) {
    if (!Array.isArray(entry) || entry.length !== 4) continue;
    const [turn, seat, out, err] = entry;
    if (!byTurn.has(turn)) byTurn.set(turn, []);
    byTurn.get(turn).push([seat, String(out ?? ""), String(err ?? "")]);
  }
  found = { starts, byTurn, times: Array.isArray(debug.time_us) ? debug.time_us : null, debug,
    n: turns.length, source: record.debug };
  indexes.set(record, found);
  return found;
}

function el(tag, text, className) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (className) e.className = className;
  return e;
}

function ms(us) {
  return Number.isInteger(us) ? `${(us / 1000).toFixed(us < 10_000 ? 3 : 1)} ms` : "not timed";
}

export function renderTurnOutput(container, record, turns, turn, names) {
  if (!record || !Array.isArray(turns) || !Number.isInteger(turn)) {
    container.replaceChildren();
    container.hidden = true;
    return;
  }
  container.hidden = false;
  const { starts, byTurn, times, debug } = debugIndex(record, turns);
  const heading = el("h3", turn === 0 ? "At the start" : `Turn ${turn}`);
  const items = [];
  const printed = byTurn.get(turn) || [];
  const seatsOf = turn === 0 ? printed.map(([seat]) => seat) : (turns[turn - 1]?.seats || []);
  const seen = new Set();
  seatsOf.forEach((seat, k) => {
    if (seen.has(seat)) return;
    seen.add(seat);
    const row = el("div", undefined, "turn-bot");
    const name = names[seat] ?? `seat ${seat + 1}`;
    let line = `${seat + 1} ${name}`;
    if (turn > 0) {
      const t = turns[turn - 1];
      const answer = Array.isArray(t.answers) ? t.answers[k] : null;
      const fault = Array.isArray(t.faults) ? t.faults[k] : null;
      line += answer === null || answer === undefined ? ": no answer" : `: answered ${JSON.stringify(String(answer))}`;
      if (times) line += ` in ${ms(times[starts[turn - 1] + k])}`;
      if (fault && typeof fault === "object") line += ` (${String(fault.kind)}: ${String(fault.message ?? "")})`;
    }
    row.append(el("p", line, "turn-answer"));
    for (const [s, out, err] of printed) {
      if (s !== seat) continue;
      if (out) row.append(el("pre", out, "turn-stdout"));
      if (err) row.append(el("pre", err, "turn-stderr"));
    }
    items.push(row);
  });
  if (!items.length) items.push(el("p", turn === 0 ? "Nothing printed at the start." : "", "muted"));
  if (!record.debug) {
    items.push(el("p", record.result ? "This record has no bots' output or times (a file before schema version 3)."
      : "The bots' output and times show here when the game ends; their consoles have the output now.", "muted"));
  }
  const cut = Array.isArray(debug.cut) ? debug.cut : [];
  const cutNote = cut.map((c, seat) => (Number.isInteger(c) && c > 0 ? `${names[seat] ?? seat + 1}: ${c.toLocaleString("en")}` : ""))
    .filter(Boolean);
  if (cutNote.length) {
    items.push(el("p", `Output cut in this game (characters over the budgets): ${cutNote.join(", ")}.`, "muted"));
  }
  container.replaceChildren(heading, ...items);
}
