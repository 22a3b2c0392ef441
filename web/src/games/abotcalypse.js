// aBOTcalypse's renderer: a side view of the board (y = 0 the bottom row) rebuilt turn by
// turn from the record's start (engine/games/abotcalypse/rules.py start_json) and each turn's
// events (rocks removed then added, the bots, the deaths, the hits, the meteors), and each
// bot's own view as text, built from a frame exactly as the engine builds it (view_rows).
// Only known values are drawn: cells off the board or positions that are not numbers are
// left out, and a bot whose position is unknown is named so in the description.

const MAX_SIDE = 400;
const VIEW_RADIUS = 20; // the rule book's Chebyshev radius
const TRAIL_CELLS = 5; // how far back along its line a meteor's trail is drawn
// Okabe–Ito palette, plus black and a dark blue-grey: eight seats. Each seat has a shape too.
const COLOURS = ["#0072b2", "#e69f00", "#009e73", "#cc79a7", "#d55e00", "#56b4e9", "#1b1b1b", "#6a3d9a"];
const SHAPES = ["circle", "square", "triangle", "diamond", "pentagon", "hexagon", "down-triangle", "star"];
const ROCK = "#7a6552";
const METEOR = "#e03a1e";
const CAUSES = { fall: "fell", crushed: "crushed", thrown: "hit by a thrown rock", collision: "collision", meteor: "meteor" };

const isInt = (v) => Number.isInteger(v);
const isNum = (v) => typeof v === "number" && Number.isFinite(v);

function side(v) { return isInt(v) && v >= 1 && v <= MAX_SIDE ? v : null; }

function botsFrom(list, previous = []) {
  if (!Array.isArray(list)) return previous;
  return list.map((b) => (Array.isArray(b) && isInt(b[0]) && isInt(b[1]) && typeof b[2] === "boolean"
    ? [b[0], b[1], b[2]] : null));
}

function meteorsFrom(list) {
  if (!Array.isArray(list)) return [];
  return list.filter((m) => Array.isArray(m) && isNum(m[0]) && isNum(m[1]) && isInt(m[2]));
}

function setRocks(frame, cells, value) {
  if (!Array.isArray(cells)) return;
  const { width, height, rocks } = frame;
  for (const c of cells) {
    if (Array.isArray(c) && isInt(c[0]) && isInt(c[1]) && c[0] >= 0 && c[1] >= 0 && c[0] < width && c[1] < height) {
      rocks[c[1] * width + c[0]] = value;
    }
  }
}

function initialFrame(record) {
  const start = record.start || {};
  const width = side(start.width) ?? 1, height = side(start.height) ?? 1;
  const frame = {
    width, height, known: side(start.width) !== null && side(start.height) !== null,
    rocks: new Uint8Array(width * height), bots: botsFrom(start.bots), meteors: meteorsFrom(start.meteors),
    deaths: [], hits: [], played: [],
  };
  setRocks(frame, start.rocks, 1);
  frame.deaths = frame.bots.map(() => null);
  return frame;
}

function applyTurn(frame, turn) {
  const next = { ...frame, rocks: frame.rocks.slice(), deaths: frame.deaths.slice() };
  setRocks(next, turn.rocks_removed, 0);
  setRocks(next, turn.rocks_added, 1);
  next.bots = botsFrom(turn.bots, frame.bots);
  next.meteors = meteorsFrom(turn.meteors);
  next.hits = Array.isArray(turn.hits) ? turn.hits.filter((h) => Array.isArray(h) && isInt(h[0]) && isInt(h[1])) : [];
  next.played = Array.isArray(turn.played) ? turn.played : [];
  const when = isInt(turn.turn) ? turn.turn : null;
  for (const d of Array.isArray(turn.deaths) ? turn.deaths : []) {
    if (!Array.isArray(d) || !isInt(d[0]) || d[0] < 0 || d[0] >= next.bots.length) continue;
    const cause = Object.hasOwn(CAUSES, d[1]) ? d[1] : "unknown";
    next.deaths[d[0]] = { cause, turn: when };
  }
  return next;
}

// ---- drawing -------------------------------------------------------------------------
function layout(w, h, frame) {
  const cell = Math.max(1, Math.min(w / frame.width, (h - 4) / frame.height));
  const bw = cell * frame.width, bh = cell * frame.height;
  const ox = (w - bw) / 2, oy = (h - bh) / 2;
  return { cell, ox, oy, bw, bh, px: (x) => ox + x * cell, py: (y) => oy + (frame.height - 1 - y) * cell };
}

function shapePath(ctx, shape, cx, cy, r) {
  ctx.beginPath();
  if (shape === "circle") { ctx.arc(cx, cy, r, 0, Math.PI * 2); return; }
  if (shape === "square") { ctx.rect(cx - r * 0.85, cy - r * 0.85, r * 1.7, r * 1.7); return; }
  if (shape === "star") {
    for (let i = 0; i < 10; i++) {
      const a = -Math.PI / 2 + (i * Math.PI) / 5, rr = i % 2 ? r * 0.45 : r * 1.05;
      ctx.lineTo(cx + rr * Math.cos(a), cy + rr * Math.sin(a));
    }
    ctx.closePath();
    return;
  }
  const sides = { triangle: 3, "down-triangle": 3, diamond: 4, pentagon: 5, hexagon: 6 }[shape] || 4;
  const turn = shape === "down-triangle" ? Math.PI / 2 : -Math.PI / 2;
  for (let i = 0; i < sides; i++) {
    const a = turn + (i * 2 * Math.PI) / sides;
    ctx.lineTo(cx + r * 1.05 * Math.cos(a), cy + r * 1.05 * Math.sin(a));
  }
  ctx.closePath();
}

function draw(ctx, w, h, frame, names) {
  ctx.fillStyle = "#ffffff";
  ctx.fillRect(0, 0, w, h);
  const L = layout(w, h, frame);
  const { cell, px, py } = L;
  ctx.fillStyle = "#eaf1f7"; // the sky
  ctx.fillRect(L.ox, L.oy, L.bw, L.bh);
  ctx.fillStyle = "#3b3027"; // the floor
  ctx.fillRect(L.ox, L.oy + L.bh, L.bw, 3);
  // rocks
  ctx.fillStyle = ROCK;
  const inset = cell >= 6 ? 0.5 : 0;
  for (let y = 0; y < frame.height; y++) {
    for (let x = 0; x < frame.width; x++) {
      if (frame.rocks[y * frame.width + x]) ctx.fillRect(px(x) + inset, py(y) + inset, cell - 2 * inset, cell - 2 * inset);
    }
  }
  // hits this turn: a small burst where something was destroyed
  ctx.strokeStyle = "#f2b400";
  ctx.lineWidth = Math.max(1.5, cell * 0.12);
  for (const [x, y] of frame.hits) {
    const cx = px(x) + cell / 2, cy = py(y) + cell / 2, r = Math.max(4, cell * 0.7);
    ctx.beginPath();
    for (let i = 0; i < 8; i++) {
      const a = (i * Math.PI) / 4;
      ctx.moveTo(cx + r * 0.35 * Math.cos(a), cy + r * 0.35 * Math.sin(a));
      ctx.lineTo(cx + r * Math.cos(a), cy + r * Math.sin(a));
    }
    ctx.stroke();
  }
  // meteors: a short trail back along the line they fall on, then the meteor in its cell
  const mr = Math.max(3, cell * 0.45);
  ctx.save();
  ctx.beginPath();
  ctx.rect(L.ox, L.oy, L.bw, L.bh);
  ctx.clip(); // trails end at the board's edge
  for (const [mx, my, angle] of frame.meteors) {
    const a = (angle * Math.PI) / 180;
    const cx = px(Math.trunc(mx)) + cell / 2, cy = py(Math.trunc(my)) + cell / 2;
    const tx = cx - Math.cos(a) * TRAIL_CELLS * cell, ty = cy + Math.sin(a) * TRAIL_CELLS * cell;
    const grad = ctx.createLinearGradient(cx, cy, tx, ty);
    grad.addColorStop(0, "rgba(224, 58, 30, 0.85)");
    grad.addColorStop(1, "rgba(224, 58, 30, 0)");
    ctx.strokeStyle = grad;
    ctx.lineWidth = Math.max(2, mr);
    ctx.lineCap = "round";
    ctx.beginPath(); ctx.moveTo(cx, cy); ctx.lineTo(tx, ty); ctx.stroke();
    ctx.lineCap = "butt";
    ctx.fillStyle = METEOR;
    ctx.beginPath(); ctx.arc(cx, cy, mr, 0, Math.PI * 2); ctx.fill();
    ctx.strokeStyle = "#7a1200"; ctx.lineWidth = 1; ctx.stroke();
  }
  ctx.restore();
  // bots: a shape in the seat's colour with its number; the dead as a cross where they died
  const br = Math.max(5, cell * 0.48);
  const font = Math.max(10, Math.round(br * 1.1));
  const tags = []; // the number tags placed so far: one that would overlap goes higher
  frame.bots.forEach((b, s) => {
    if (!b) return;
    const [x, y, alive] = b;
    if (x < 0 || y < 0 || x >= frame.width || y >= frame.height) return;
    const cx = px(x) + cell / 2, cy = py(y) + cell / 2;
    const colour = COLOURS[s % COLOURS.length];
    if (alive) {
      shapePath(ctx, SHAPES[s % SHAPES.length], cx, cy, br);
      ctx.fillStyle = colour;
      ctx.fill();
      ctx.strokeStyle = "#ffffff";
      ctx.lineWidth = 1.5;
      ctx.stroke();
    } else {
      const r = br * 0.9;
      ctx.strokeStyle = "#111111";
      ctx.lineWidth = Math.max(3, br * 0.5);
      ctx.beginPath();
      ctx.moveTo(cx - r, cy - r); ctx.lineTo(cx + r, cy + r);
      ctx.moveTo(cx + r, cy - r); ctx.lineTo(cx - r, cy + r);
      ctx.stroke();
      ctx.strokeStyle = colour;
      ctx.lineWidth = Math.max(1.5, br * 0.25);
      ctx.stroke();
    }
    // the number, in a tag above the bot
    const label = alive ? String(s + 1) : `${s + 1}✝`;
    ctx.font = `700 ${font}px system-ui, sans-serif`;
    ctx.textAlign = "center";
    ctx.textBaseline = "bottom";
    const tw = ctx.measureText(label).width + 6;
    let ty = Math.max(font + 2, cy - br - 2);
    const overlaps = (t) => Math.abs(t.x - cx) < (t.w + tw) / 2 && Math.abs(t.y - ty) < font + 2;
    for (let k = 0; k < tags.length && tags.some(overlaps); k++) ty -= font + 2;
    tags.push({ x: cx, y: ty, w: tw });
    ctx.fillStyle = "rgba(255, 255, 255, 0.85)";
    ctx.fillRect(cx - tw / 2, ty - font - 1, tw, font + 2);
    ctx.fillStyle = alive ? colour : "#111111";
    if (alive && (s % COLOURS.length) === 6) ctx.fillStyle = "#1b1b1b";
    ctx.fillText(label, cx, ty + 1);
  });
  if (!frame.known) {
    ctx.fillStyle = "#b00020";
    ctx.font = "600 14px system-ui, sans-serif";
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    ctx.fillText("? the record's board size is not a known value", w / 2, h / 2);
  }
}

// The board's width over its height, for the viewer's canvas (a side view is wide).
function aspect(frame) {
  return frame.width / frame.height;
}

function botState(frame, s) {
  const b = frame.bots[s];
  const d = frame.deaths[s];
  if (!b) return "position unknown";
  if (b[2]) return `alive at ${b[0]},${b[1]}`;
  if (d) return `died${d.turn !== null ? ` turn ${d.turn}` : ""} (${CAUSES[d.cause] ?? "unknown cause"})`;
  return "dead";
}

function legend(frame, names) {
  const items = names.map((nm, s) => ({
    colour: COLOURS[s % COLOURS.length], shape: SHAPES[s % SHAPES.length],
    label: `${s + 1} ${nm} (${SHAPES[s % SHAPES.length]}): ${botState(frame, s)}`,
  }));
  items.push({ colour: ROCK, label: "rock" });
  items.push({ colour: METEOR, label: `meteor: ${frame.meteors.length}`, shape: "circle" });
  return items;
}

function describe(frame, names) {
  let rocks = 0;
  for (const r of frame.rocks) rocks += r;
  const bots = names.map((nm, s) => `${nm} ${botState(frame, s)}`);
  const alive = frame.bots.filter((b) => b && b[2]).length;
  return `aBOTcalypse board ${frame.width}×${frame.height}, turn ${frame.turn} of ${frame.total}: `
    + `${alive} of ${names.length} bots alive; ${bots.join(", ")}; ${rocks} rocks, ${frame.meteors.length} meteors`;
}

function lastMove(frame, names) {
  const played = frame.played;
  if (!frame.last || !Array.isArray(played)) return "";
  const parts = [];
  played.forEach((p, s) => { if (typeof p === "string") parts.push(`${names[s] ?? s + 1}: ${p.slice(0, 30)}`); });
  return parts.join(", ");
}

// The bot's own view, as the engine builds it (AbotState.view_rows): Chebyshev radius 20
// around the bot, cut at the board's edge with one ring of "#", top row first. Null for a
// bot that is dead or whose position is unknown (it is not asked any more).
function seatView(frame, seat) {
  const me = frame.bots[seat];
  if (!me || !me[2] || !frame.known) return null;
  const { width, height, rocks } = frame;
  const [x0, y0] = me;
  const left = Math.max(x0 - VIEW_RADIUS, -1), right = Math.min(x0 + VIEW_RADIUS, width);
  const bottom = Math.max(y0 - VIEW_RADIUS, -1), top = Math.min(y0 + VIEW_RADIUS, height);
  const innerLeft = Math.max(left, 0), innerRight = Math.min(right, width - 1) + 1;
  const innerBottom = Math.max(bottom, 0), innerTop = Math.min(top, height - 1) + 1;
  const inside = (x, y) => x >= innerLeft && x < innerRight && y >= innerBottom && y < innerTop;
  const marks = new Map();
  frame.bots.forEach((b, s) => {
    if (!b || !b[2] || !inside(b[0], b[1])) return;
    const key = `${b[0]},${b[1]}`;
    const have = marks.get(key);
    if (s === seat || (have !== "s" && have !== "S")) {
      const mark = s === seat ? "s" : "e";
      marks.set(key, rocks[b[1] * width + b[0]] ? mark.toUpperCase() : mark);
    }
  });
  for (const [mx, my] of frame.meteors) {
    const x = Math.trunc(mx), y = Math.trunc(my);
    if (inside(x, y)) marks.set(`${x},${y}`, "@");
  }
  const rows = [];
  for (let y = top; y >= bottom; y--) {
    if (y < 0 || y >= height) { rows.push("#".repeat(right - left + 1)); continue; }
    let row = left < 0 ? "#" : "";
    for (let x = innerLeft; x < innerRight; x++) row += marks.get(`${x},${y}`) ?? (rocks[y * width + x] ? "&" : ".");
    rows.push(row + (right >= width ? "#" : ""));
  }
  return rows.join("\n");
}

// Where a bot's mark (its cells: the board's [x, y], engine/games/abotcalypse/game.py) is, or null.
function markBox(frame, w, h, cells) {
  const [x, y] = cells;
  if (cells.length !== 2 || !(x >= 0 && x < frame.width && y >= 0 && y < frame.height)) return null;
  const { cell, px, py } = layout(w, h, frame);
  return { x: px(x), y: py(y), w: cell, h: cell };
}

export default { initialFrame, applyTurn, draw, legend, describe, lastMove, seatView, aspect, markBox };
