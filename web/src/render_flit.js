// Flit board renderer: an N×N torus grid on a canvas. Only colours 0..5 are drawn as
// pieces; any other value (a replay is data from anywhere) is drawn as a black cross.

// Okabe–Ito colour-blind-friendly palette for bots 1..4; neutral (5) grey.
export const FLIT_COLOURS = ["#f5f4ef", "#0072b2", "#e69f00", "#009e73", "#cc79a7", "#8c8c8c"];
export const FLIT_COLOUR_NAMES = ["empty", "blue", "orange", "green", "pink", "grey"];

export function drawFlit(ctx, w, h, frame) {
  const n = frame.size;
  const cell = Math.floor(Math.min(w, h) / n);
  const side = cell * n;
  const ox = Math.floor((w - side) / 2), oy = Math.floor((h - side) / 2);
  ctx.fillStyle = "#ffffff";
  ctx.fillRect(0, 0, w, h);
  ctx.fillStyle = FLIT_COLOURS[0];
  ctx.fillRect(ox, oy, side, side);
  // grid lines
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
      if (!(c >= 1 && c <= 5)) {
        drawUnknown(ctx, ox + x * cell, oy + y * cell, cell);
        continue;
      }
      ctx.fillStyle = FLIT_COLOURS[c];
      if (c === 5) {
        // neutral: a smaller grey diamond-ish square so it differs by shape too
        const p2 = Math.max(pad, Math.round(cell * 0.25));
        ctx.fillRect(ox + x * cell + p2, oy + y * cell + p2, cell - 2 * p2 + 1, cell - 2 * p2 + 1);
      } else {
        ctx.fillRect(ox + x * cell + pad, oy + y * cell + pad, cell - 2 * pad + 1, cell - 2 * pad + 1);
      }
    }
  }
  // last move: source dashed outline, destination solid outline
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

function drawUnknown(ctx, x, y, cell) {
  ctx.strokeStyle = "#000000";
  ctx.lineWidth = Math.max(1, cell * 0.12);
  ctx.beginPath();
  ctx.moveTo(x + 2, y + 2); ctx.lineTo(x + cell - 2, y + cell - 2);
  ctx.moveTo(x + cell - 2, y + 2); ctx.lineTo(x + 2, y + cell - 2);
  ctx.stroke();
}
