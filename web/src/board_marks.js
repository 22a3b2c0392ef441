// The squares bots marked for their authors (engine/core/marks.py), at the turn on show: drawn
// over the board (each game's renderer says where a mark's cells are: `markBox`), listed as
// text under it, and a checkbox per bot hides or shows that bot's marks. A record's marks are
// untrusted even after the engine checked them: each is checked again here, its colour must
// be a palette name or #rrggbb, and its text is drawn with fillText and listed as textContent,
// never as markup.
//
// const marks = createBoardMarks(container, redraw)
// marks.show(canvas, renderer, frame, record, names)   after the board is drawn, each frame

const PALETTE = new Set(["red", "green", "blue", "orange", "purple", "cyan", "magenta", "yellow",
  "white", "black", "grey"]);
const HEX = /^#[0-9a-fA-F]{6}$/;
const MAX_TEXT = 40;
const indexes = new WeakMap(); // record.debug -> Map(turn -> [{seat, cells, colour, text}])

function marksByTurn(record) {
  const debug = record && record.debug && typeof record.debug === "object" ? record.debug : null;
  if (!debug || !Array.isArray(debug.marks)) return new Map();
  let found = indexes.get(debug);
  if (found && found.source === debug.marks) return found.byTurn;
  const byTurn = new Map();
  for (const m of debug.marks) {
    if (!Array.isArray(m) || m.length !== 5) continue;
    const [turn, seat, cells, colour, text] = m;
    if (!Number.isInteger(turn) || !Number.isInteger(seat) || !Array.isArray(cells)
        || cells.length < 1 || cells.length > 3 || !cells.every(Number.isInteger)
        || typeof colour !== "string" || !(PALETTE.has(colour) || HEX.test(colour))
        || typeof text !== "string") continue;
    if (!byTurn.has(turn)) byTurn.set(turn, []);
    byTurn.get(turn).push({ seat, cells, colour, text: text.slice(0, MAX_TEXT) });
  }
  found = { source: debug.marks, byTurn };
  indexes.set(debug, found);
  return byTurn;
}

function drawMark(ctx, box, colour, text) {
  const lw = Math.max(2, Math.min(box.w, box.h) * 0.14);
  ctx.lineWidth = lw;
  ctx.strokeStyle = colour;
  ctx.strokeRect(box.x + lw / 2, box.y + lw / 2, box.w - lw, box.h - lw);
  if (!text) return;
  const size = Math.max(10, Math.min(14, box.h * 0.6));
  ctx.font = `600 ${size}px system-ui, sans-serif`;
  ctx.textAlign = "left";
  ctx.textBaseline = "bottom";
  ctx.lineWidth = 3;
  ctx.strokeStyle = "#ffffff";
  ctx.strokeText(text, box.x + box.w + 2, box.y + box.h);
  ctx.fillStyle = "#111111";
  ctx.fillText(text, box.x + box.w + 2, box.y + box.h);
}

export function createBoardMarks(container, redraw) {
  const hidden = new Set(); // seats whose marks are hidden
  let built = ""; // the bots the checkboxes were built for
  const toggles = document.createElement("div");
  toggles.className = "mark-toggles";
  toggles.setAttribute("role", "group");
  toggles.setAttribute("aria-label", "Show each bot's marks");
  const list = document.createElement("ul");
  list.className = "mark-list";
  list.setAttribute("aria-label", "The marks at this turn");

  function buildToggles(names) {
    hidden.clear();
    toggles.replaceChildren(...names.map((name, seat) => {
      const label = document.createElement("label");
      const box = document.createElement("input");
      box.type = "checkbox";
      box.checked = true;
      box.dataset.seat = String(seat);
      box.addEventListener("change", () => {
        if (box.checked) hidden.delete(seat); else hidden.add(seat);
        redraw();
      });
      label.append(box, document.createTextNode(` marks of ${seat + 1} ${name}`));
      return label;
    }));
  }

  function show(canvas, renderer, frame, record, names) {
    const byTurn = frame && renderer && typeof renderer.markBox === "function" ? marksByTurn(record) : new Map();
    if (byTurn.size === 0) {
      container.replaceChildren();
      container.hidden = true;
      built = "";
      return;
    }
    container.hidden = false;
    const key = names.join("\u0000");
    if (key !== built) {
      built = key;
      buildToggles(names);
      container.replaceChildren(toggles, list);
    }
    const shown = (byTurn.get(frame.turn) || []).filter((m) => m.seat < names.length && !hidden.has(m.seat));
    const ctx = canvas.getContext("2d");
    const dpr = window.devicePixelRatio || 1;
    ctx.save();
    try {
      ctx.scale(dpr, dpr);
      const w = canvas.width / dpr, h = canvas.height / dpr;
      for (const m of shown) {
        const box = renderer.markBox(frame, w, h, m.cells);
        if (box && [box.x, box.y, box.w, box.h].every(Number.isFinite)) drawMark(ctx, box, m.colour, m.text);
      }
    } finally {
      ctx.restore();
    }
    list.replaceChildren(...shown.map((m) => {
      const item = document.createElement("li");
      item.className = "mark-item";
      item.textContent = `${names[m.seat]}: (${m.cells.join(", ")}) ${m.colour}${m.text ? ` "${m.text}"` : ""}`;
      return item;
    }));
  }

  return { show };
}
