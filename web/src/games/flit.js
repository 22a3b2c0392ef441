// Flit's renderer: an N×N torus grid on a canvas, rebuilt turn by turn from each record's
// `changes`. Only colours 0..5 are drawn as pieces; any other value (a replay is data from
// anywhere) is drawn as a black cross.

// Okabe–Ito colour-blind-friendly palette for bots 1..4; neutral (5) grey.
const COLOURS = ["#f5f4ef", "#0072b2", "#e69f00", "#009e73", "#cc79a7", "#8c8c8c"];
const NEUTRAL = 5;
const MAX_SIZE = 512;

function applyChanges(board, n, changes) {
  if (!Array.isArray(changes)) return;
  for (const c of changes) {
    if (!Array.isArray(c) || c.length !== 3) continue;
    const [x, y, colour] = c;
    if (Number.isInteger(x) && Number.isInteger(y) && x >= 0 && y >= 0 && x < n && y < n) {
      board[y * n + x] = Number.isInteger(colour) && colour >= 0 && colour <= 255 ? colour : 255;
    }
  }
}

function initialFrame(record) {
  const s = record.settings || {};
  const size = Number.isInteger(s.size) && s.size >= 1 && s.size <= MAX_SIZE ? s.size : 16;
  const board = new Uint8Array(size * size);
  applyChanges(board, size, record.start && record.start.changes);
  return { size, board };
}

function applyTurn(frame, turn) {
  const board = frame.board.slice();
  applyChanges(board, frame.size, turn.changes);
  return { size: frame.size, board };
}

function counts(frame) {
  const out = new Array(COLOURS.length).fill(0);
  for (const c of frame.board) if (c < out.length) out[c]++;
  return out;
}

function drawUnknown(ctx, x, y, cell) {
  ctx.strokeStyle = "#000000";
  ctx.lineWidth = Math.max(1, cell * 0.12);
  ctx.beginPath();
  ctx.moveTo(x + 2, y + 2); ctx.lineTo(x + cell - 2, y + cell - 2);
  ctx.moveTo(x + cell - 2, y + 2); ctx.lineTo(x + 2, y + cell - 2);
  ctx.stroke();
}

function draw(ctx, w, h, frame) {
  const n = frame.size;
  const cell = Math.max(1, Math.floor(Math.min(w, h) / n));
  const side = cell * n;
  const ox = Math.floor((w - side) / 2), oy = Math.floor((h - side) / 2);
  ctx.fillStyle = "#ffffff";
  ctx.fillRect(0, 0, w, h);
  ctx.fillStyle = COLOURS[0];
  ctx.fillRect(ox, oy, side, side);
  ctx.strokeStyle = "#dcdad2";
  ctx.lineWidth = 1;
  ctx.beginPath();
  for (let i = 0; i <= n; i++) {
    ctx.moveTo(ox + i * cell + 0.5, oy); ctx.lineTo(ox + i * cell + 0.5, oy + side);
    ctx.moveTo(ox, oy + i * cell + 0.5); ctx.lineTo(ox + side, oy + i * cell + 0.5);
  }
  ctx.stroke();
  const pad = Math.max(1, Math.round(cell * 0.1));
  const b = frame.board;
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      const c = b[y * n + x];
      if (!c) continue;
      if (!(c >= 1 && c <= NEUTRAL)) {
        drawUnknown(ctx, ox + x * cell, oy + y * cell, cell);
        continue;
      }
      ctx.fillStyle = COLOURS[c];
      // neutral: a smaller square, so it differs by shape too
      const p = c === NEUTRAL ? Math.max(pad, Math.round(cell * 0.25)) : pad;
      ctx.fillRect(ox + x * cell + p, oy + y * cell + p, cell - 2 * p + 1, cell - 2 * p + 1);
    }
  }
  // the last move: source dashed outline, destination solid outline
  const mv = frame.last && frame.last.move;
  if (Array.isArray(mv) && mv.length === 4 && mv.every((v) => Number.isInteger(v) && v >= 0 && v < n)) {
    const [x0, y0, x1, y1] = mv;
    const lw = Math.max(2, Math.round(cell * 0.12));
    ctx.lineWidth = lw;
    ctx.strokeStyle = "#111111";
    ctx.setLineDash([Math.max(2, cell / 6), Math.max(2, cell / 8)]);
    ctx.strokeRect(ox + x0 * cell + lw / 2, oy + y0 * cell + lw / 2, cell - lw + 1, cell - lw + 1);
    ctx.setLineDash([]);
    ctx.strokeStyle = "#d00000";
    ctx.strokeRect(ox + x1 * cell + lw / 2, oy + y1 * cell + lw / 2, cell - lw + 1, cell - lw + 1);
  }
}

function legend(frame, names) {
  const k = counts(frame);
  const items = names.map((nm, s) => ({ colour: COLOURS[s + 1] || "#000000", label: `${nm}: ${k[s + 1] ?? 0} pieces` }));
  items.push({ colour: COLOURS[NEUTRAL], label: `neutral: ${k[NEUTRAL]}`, small: true });
  return items;
}

function describe(frame, names) {
  const k = counts(frame);
  const parts = names.map((nm, s) => `${nm} ${k[s + 1]} piece${k[s + 1] === 1 ? "" : "s"}`);
  if (k[NEUTRAL]) parts.push(`${k[NEUTRAL]} neutral`);
  return `Flit board, turn ${frame.turn} of ${frame.total}: ${parts.join(", ")}`;
}

// What the last turn did, for the info line.
function lastMove(frame, names) {
  const last = frame.last;
  if (!last) return "";
  const who = names[last.seats[0]] ?? "bot";
  return Array.isArray(last.move) ? `${who} moved ${last.move[0]},${last.move[1]} → ${last.move[2]},${last.move[3]}`
    : `${who} passed`;
}

// Where a bot's mark (its cells: [x, y], engine/core/marks.py) is on the board, or null.
function markBox(frame, w, h, cells) {
  const n = frame.size;
  const [x, y] = cells;
  if (cells.length !== 2 || !(x >= 0 && x < n && y >= 0 && y < n)) return null;
  const cell = Math.max(1, Math.floor(Math.min(w, h) / n));
  const ox = Math.floor((w - cell * n) / 2), oy = Math.floor((h - cell * n) / 2);
  return { x: ox + x * cell, y: oy + y * cell, w: cell, h: cell };
}

export default { initialFrame, applyTurn, draw, legend, describe, lastMove, markBox };
