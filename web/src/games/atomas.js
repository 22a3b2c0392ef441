// Atomas's renderer: a ring of circles with numbers, the atom in play in the centre.
// Only known values are drawn: atoms 1..MAX_ATOM and the four specials; anything else
// (a replay is data from anywhere) is drawn as a grey "?".

const SPECIAL = new Map([
  ["+", { fill: "#d62828", text: "#ffffff", label: "+" }],
  ["-", { fill: "#1d4ed8", text: "#ffffff", label: "−" }],
  ["B", { fill: "#111111", text: "#ffffff", label: "+" }],
  ["C", { fill: "#f5f5f5", text: "#111111", label: "C" }],
]);
const UNKNOWN = { fill: "#9a9a9a", text: "#ffffff", label: "?" };
const MAX_ATOM = 9999;

// The style of a value: a special, an atom, or UNKNOWN.
function styleOf(item) {
  if (typeof item === "string" && SPECIAL.has(item)) return SPECIAL.get(item);
  if (Number.isInteger(item) && item >= 1 && item <= MAX_ATOM) {
    return { fill: atomColour(item), text: "#ffffff", label: String(item) };
  }
  return UNKNOWN;
}

// A value as text (labels, the last move): known values as they are, anything else "?".
function itemText(item) {
  return styleOf(item).label === "?" ? "?" : String(item);
}

function atomColour(v) {
  // hue walks around the wheel with the value; lightness alternates for neighbours
  const hue = (v * 47 + 200) % 360;
  const light = v % 2 ? 42 : 34;
  return `hsl(${hue} 62% ${light}%)`;
}

function drawItem(ctx, x, y, r, item) {
  const sp = styleOf(item);
  ctx.beginPath();
  ctx.arc(x, y, r, 0, Math.PI * 2);
  ctx.fillStyle = sp.fill;
  ctx.fill();
  ctx.lineWidth = Math.max(1.5, r * 0.08);
  ctx.strokeStyle = item === "C" ? "#555" : "rgba(0,0,0,0.35)";
  ctx.stroke();
  ctx.fillStyle = sp.text;
  if (item === "+" || item === "B") {
    const a = r * 0.55, t = Math.max(2, r * 0.18);
    ctx.fillRect(x - a, y - t / 2, 2 * a, t);
    ctx.fillRect(x - t / 2, y - a, t, 2 * a);
    if (item === "B") {
      ctx.strokeStyle = "#d62828";
      ctx.lineWidth = Math.max(2, r * 0.12);
      ctx.beginPath(); ctx.arc(x, y, r * 0.85, 0, Math.PI * 2); ctx.stroke();
    }
    return;
  }
  const label = sp.label;
  const fs = Math.round(r * (label.length > 2 ? 0.7 : label.length > 1 ? 0.85 : 1.0));
  ctx.font = `600 ${fs}px system-ui, sans-serif`;
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  ctx.fillText(label, x, y + fs * 0.04);
}

function draw(ctx, w, h, frame) {
  ctx.fillStyle = "#ffffff";
  ctx.fillRect(0, 0, w, h);
  const cx = w / 2, cy = h / 2;
  const R = Math.min(w, h) * 0.36;
  // ring guide
  ctx.beginPath();
  ctx.arc(cx, cy, R, 0, Math.PI * 2);
  ctx.strokeStyle = "#e2e0d8";
  ctx.lineWidth = 2;
  ctx.stroke();
  const items = Array.isArray(frame.board) ? frame.board : [];
  const n = items.length;
  const r = n ? Math.min(R * 0.24, (Math.PI * R / Math.max(n, 6)) * 0.82) : R * 0.2;
  items.forEach((item, i) => {
    const a = -Math.PI / 2 + (2 * Math.PI * i) / Math.max(n, 1);
    drawItem(ctx, cx + R * Math.cos(a), cy + R * Math.sin(a), r, item);
  });
  // index marks (small) so answers can be related to positions
  ctx.fillStyle = "#6b6b6b";
  ctx.font = `${Math.max(10, Math.round(r * 0.42))}px system-ui, sans-serif`;
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  items.forEach((_, i) => {
    const a = -Math.PI / 2 + (2 * Math.PI * i) / Math.max(n, 1);
    const rr = R + r + Math.max(9, r * 0.45);
    ctx.fillText(String(i), cx + rr * Math.cos(a), cy + rr * Math.sin(a));
  });
  // atom in play
  if (frame.atom !== null && frame.atom !== undefined) {
    drawItem(ctx, cx, cy, Math.min(R * 0.26, 40), frame.atom);
    ctx.fillStyle = "#444";
    ctx.font = `13px system-ui, sans-serif`;
    ctx.fillText("in play", cx, cy + Math.min(R * 0.26, 40) + 14);
  } else {
    ctx.fillStyle = "#444";
    ctx.font = `600 16px system-ui, sans-serif`;
    ctx.fillText(frame.total && frame.turn >= frame.total ? "game over" : "", cx, cy);
  }
  // score and move
  ctx.textAlign = "left";
  ctx.textBaseline = "top";
  ctx.fillStyle = "#1a1a1a";
  ctx.font = `600 18px system-ui, sans-serif`;
  ctx.fillText(`Score ${Number.isFinite(frame.score) ? frame.score : "?"}`, 12, 10);
  ctx.font = `14px system-ui, sans-serif`;
  ctx.fillStyle = "#444";
  ctx.fillText(`Move ${frame.turn} of ${frame.total}`, 12, 34);
  if (frame.last) {
    const f = frame.last.faults[0];
    ctx.textAlign = "right";
    const answer = typeof frame.last.answers[0] === "string" ? frame.last.answers[0].slice(0, 40) : "—";
    ctx.fillText(`last: ${itemText(frame.last.atom)} → ${answer}`, w - 12, 10);
    if (f) {
      ctx.fillStyle = "#b00020";
      ctx.fillText(`fault: ${String(f.kind).slice(0, 20)}`, w - 12, 30);
    }
  }
}

// The board after the start or a turn: the record holds it whole.
function initialFrame(record) {
  const start = record.start || {};
  return { board: Array.isArray(start.board) ? start.board : [], score: Number.isFinite(start.score) ? start.score : 0 };
}

function applyTurn(frame, turn) {
  return { board: Array.isArray(turn.board) ? turn.board : [], score: Number.isFinite(turn.score) ? turn.score : NaN };
}

function withAtom(frame) {
  // the atom in play is the one the next turn was asked about
  return frame.next ? frame.next.atom : null;
}

function legend(frame, names) {
  return [{ colour: null, label: `${names[0] ?? "bot"}: score ${frame.score}, ${frame.board.length} items` }];
}

function describe(frame, names) {
  const atom = withAtom(frame);
  const shown = atom === null || atom === undefined ? "none" : itemText(atom);
  const items = frame.board.map(itemText).join(" ");
  return `Atomas board, ${names[0] ?? "bot"}, move ${frame.turn} of ${frame.total}: score ${frame.score}, `
    + `${frame.board.length} items (${items || "empty"}), atom in play ${shown}`;
}

function lastMove(frame) {
  const last = frame.last;
  if (!last) return "";
  return `${itemText(last.atom)} → ${last.answers[0] ?? "—"}`;
}

// Where a bot's mark (its cells: [ring position], engine/core/marks.py) is on the ring, or null.
function markBox(frame, w, h, cells) {
  const n = Array.isArray(frame.board) ? frame.board.length : 0;
  const i = cells[0];
  if (cells.length !== 1 || !(i >= 0 && i < n)) return null;
  const R = Math.min(w, h) * 0.36;
  const r = Math.min(R * 0.24, (Math.PI * R / Math.max(n, 6)) * 0.82);
  const a = -Math.PI / 2 + (2 * Math.PI * i) / n;
  return { x: w / 2 + R * Math.cos(a) - r, y: h / 2 + R * Math.sin(a) - r, w: 2 * r, h: 2 * r };
}

export default { markBox, initialFrame, applyTurn, draw: (ctx, w, h, frame) => draw(ctx, w, h, { ...frame, atom: withAtom(frame) }),
  legend, describe, lastMove, turnWord: "Move" };
