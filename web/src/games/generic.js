// The generic renderer: draws the picture an author's game returns from draw() (engine/authored/picture.py,
// docs/games.md "Pictures"), carried in the records: record.start.picture, then turn.picture
// whenever it changed. A game with no renderer of its own needs no JavaScript.
//
// A record is data from anywhere: only known values are drawn (sizes 1..256, characters that
// the picture's key names, '#rgb'/'#rrggbb' colours or seat numbers 0..7, finite coordinates);
// anything else is left out, and a picture that is not one is drawn as a message.

// The seats' colours, as engine/game_api.py COLOURS.
export const SEAT_COLOURS = ["#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4", "#f032e6", "#9a6324"];
const MAX_SIDE = 256;
const MAX_ITEMS = 2000;
const HEX = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const EMPTY = " .";

function colour(value) {
  if (Number.isInteger(value) && value >= 0 && value < SEAT_COLOURS.length) return SEAT_COLOURS[value];
  if (typeof value === "string" && HEX.test(value)) return value;
  return null;
}

function finite(...values) {
  return values.every((v) => typeof v === "number" && Number.isFinite(v) && Math.abs(v) <= 10 * MAX_SIDE);
}

function text(value, most = 200) {
  return typeof value === "string" ? value.slice(0, most) : "";
}

// The picture if its frame can be drawn: {width, height, ...} within bounds; otherwise null.
function usable(picture) {
  if (!picture || typeof picture !== "object" || Array.isArray(picture)) return null;
  const { width, height } = picture;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1
      || width > MAX_SIDE || height > MAX_SIDE) return null;
  return picture;
}

function initialFrame(record) {
  return { picture: usable(record && record.start && record.start.picture) };
}

function applyTurn(frame, turn) {
  if (turn && Object.hasOwn(turn, "picture")) return { picture: usable(turn.picture) };
  return { picture: frame.picture };
}

// Black on light colours, white on dark ones.
function ink(hex) {
  const h = hex.length === 4 ? hex.slice(1).split("").map((c) => c + c).join("") : hex.slice(1);
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16));
  return 0.299 * r + 0.587 * g + 0.114 * b > 150 ? "#111111" : "#ffffff";
}

function draw(ctx, w, h, frame) {
  ctx.fillStyle = "#ffffff";
  ctx.fillRect(0, 0, w, h);
  const p = frame.picture;
  if (!p) {
    ctx.fillStyle = "#333333";
    ctx.font = "14px sans-serif";
    ctx.fillText("This game's picture cannot be drawn.", 10, 24);
    return;
  }
  const captionSpace = typeof p.caption === "string" && p.caption ? 22 : 0;
  const cell = Math.max(1, Math.min(w / p.width, (h - captionSpace) / p.height));
  const ox = (w - cell * p.width) / 2, oy = (h - captionSpace - cell * p.height) / 2;
  ctx.fillStyle = "#f5f4ef";
  ctx.fillRect(ox, oy, cell * p.width, cell * p.height);
  const key = p.key && typeof p.key === "object" && !Array.isArray(p.key) ? p.key : {};
  if (Array.isArray(p.cells) && p.cells.length === p.height) {
    const font = `${Math.max(6, Math.floor(cell * 0.6))}px sans-serif`;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    for (let y = 0; y < p.height; y++) {
      const row = p.cells[y];
      if (typeof row !== "string" || row.length !== p.width) continue;
      for (let x = 0; x < p.width; x++) {
        const ch = row[x];
        if (EMPTY.includes(ch)) continue;
        const entry = Object.hasOwn(key, ch) ? key[ch] : null;
        const fill = entry && typeof entry === "object" ? colour(entry.color) : null;
        if (!fill) continue;
        ctx.fillStyle = fill;
        ctx.fillRect(ox + x * cell + 0.5, oy + y * cell + 0.5, cell - 1, cell - 1);
        const glyph = text(entry.glyph, 2);
        if (glyph && cell >= 8) {
          ctx.font = font;
          ctx.fillStyle = ink(fill);
          ctx.fillText(glyph, ox + (x + 0.5) * cell, oy + (y + 0.5) * cell);
        }
      }
    }
  }
  ctx.strokeStyle = "#dcdad2";
  ctx.lineWidth = 1;
  ctx.strokeRect(ox, oy, cell * p.width, cell * p.height);
  const shapes = Array.isArray(p.shapes) ? p.shapes.slice(0, MAX_ITEMS) : [];
  for (const s of shapes) {
    if (!s || typeof s !== "object") continue;
    const c = colour(s.color);
    if (!c) continue;
    ctx.fillStyle = c;
    ctx.strokeStyle = c;
    ctx.lineWidth = Math.max(1, cell * 0.08);
    const fill = s.fill !== false;
    if (s.shape === "circle" && finite(s.x, s.y, s.r) && s.r > 0) {
      ctx.beginPath();
      ctx.arc(ox + s.x * cell, oy + s.y * cell, s.r * cell, 0, 2 * Math.PI);
      if (fill) ctx.fill(); else ctx.stroke();
    } else if (s.shape === "rect" && finite(s.x, s.y, s.w, s.h) && s.w > 0 && s.h > 0) {
      if (fill) ctx.fillRect(ox + s.x * cell, oy + s.y * cell, s.w * cell, s.h * cell);
      else ctx.strokeRect(ox + s.x * cell, oy + s.y * cell, s.w * cell, s.h * cell);
    } else if (s.shape === "line" && finite(s.x, s.y, s.x2, s.y2)) {
      ctx.beginPath();
      ctx.moveTo(ox + s.x * cell, oy + s.y * cell);
      ctx.lineTo(ox + s.x2 * cell, oy + s.y2 * cell);
      ctx.stroke();
    }
  }
  const texts = Array.isArray(p.texts) ? p.texts.slice(0, MAX_ITEMS) : [];
  ctx.textAlign = "left";
  ctx.textBaseline = "alphabetic";
  ctx.font = `${Math.max(10, Math.floor(cell * 0.5))}px sans-serif`;
  for (const t of texts) {
    if (!t || typeof t !== "object" || !finite(t.x, t.y)) continue;
    ctx.fillStyle = colour(t.color) || "#111111";
    ctx.fillText(text(t.text), ox + t.x * cell, oy + t.y * cell);
  }
  if (captionSpace) {
    ctx.fillStyle = "#111111";
    ctx.font = "14px sans-serif";
    ctx.textAlign = "center";
    ctx.fillText(text(p.caption, 500), w / 2, h - 6);
  }
}

function legend(frame, names) {
  const p = frame.picture;
  const given = p && Array.isArray(p.legend) ? p.legend.slice(0, 32) : null;
  if (given && given.length) {
    // an entry in a seat's colour is that seat's: its bot's name leads the label
    const named = (e) => (Number.isInteger(e.color) && typeof names[e.color] === "string"
      ? `${names[e.color]}: ${text(e.label)}` : text(e.label));
    return given.filter((e) => e && colour(e.color)).map((e) => ({ colour: colour(e.color), label: named(e) }));
  }
  return names.map((name, seat) => ({ colour: SEAT_COLOURS[seat % SEAT_COLOURS.length], label: name }));
}

function describe(frame, names) {
  const p = frame.picture;
  const caption = p && typeof p.caption === "string" && p.caption ? `: ${text(p.caption, 500)}` : "";
  return `Board of ${names.join(", ")}, turn ${frame.turn} of ${frame.total}${caption}`;
}

function aspect(frame) {
  const p = frame.picture;
  return p ? p.width / p.height : 1;
}

// Where a bot's mark is (its cells: the picture's [x, y], the game's `mark_cells`), or null.
function markBox(frame, w, h, cells) {
  const p = frame.picture;
  const [x, y] = cells;
  if (!p || cells.length !== 2 || !(x >= 0 && x < p.width && y >= 0 && y < p.height)) return null;
  const captionSpace = typeof p.caption === "string" && p.caption ? 22 : 0;
  const cell = Math.max(1, Math.min(w / p.width, (h - captionSpace) / p.height));
  const ox = (w - cell * p.width) / 2, oy = (h - captionSpace - cell * p.height) / 2;
  return { x: ox + x * cell, y: oy + y * cell, w: cell, h: cell };
}

export default { initialFrame, applyTurn, draw, legend, describe, aspect, markBox };
