// The viewer's text beside the board (web/src/viewer.js): the legend and the frame's line.

// The legend under the board: the renderer's items for the frame, with colour swatches.
export function renderLegend(viewer, fr) {
  const names = viewer.seatNames(viewer.track.record);
  const items = viewer.renderer.legend(fr, names).map((item) => {
    const el = document.createElement("li");
    if (item.colour) {
      const s = document.createElement("span");
      s.className = `swatch${item.small ? " small" : ""}${item.shape === "circle" ? " round" : ""}`;
      s.style.background = item.colour;
      s.setAttribute("aria-hidden", "true");
      el.append(s);
    }
    el.append(document.createTextNode(String(item.label)));
    return el;
  });
  viewer.el.legend.replaceChildren(...items);
}

// The line under the board: the turn, the last move, faults, and how the game ended.
export function renderInfo(viewer, fr) {
  const tr = viewer.track;
  const names = viewer.seatNames(tr.record);
  const parts = [`${viewer.renderer.turnWord ?? "Turn"} ${fr.turn} of ${fr.total}`];
  const last = fr.last;
  if (last) {
    const move = viewer.renderer.lastMove ? viewer.renderer.lastMove(fr, names) : "";
    if (move) parts.push(move);
    last.faults.forEach((f, k) => {
      if (f && typeof f === "object") {
        const who = names[last.seats[k]] ?? "bot";
        parts.push(`${who}: fault (${String(f.kind)}): ${String(f.message ?? "").slice(0, 200)}`);
      }
    });
  }
  if (fr.turn >= fr.total && tr.result) {
    const r = tr.result;
    let txt = `game over (${r.termination ?? "ended"})`;
    if (names.length > 1) {
      txt += Number.isInteger(r.winner) ? `: ${names[r.winner] ?? "?"} wins` : ": no single winner";
    }
    parts.push(txt);
  } else if (viewer.live && viewer.current === viewer.tracks.length - 1 && !tr.result) {
    parts.push("live");
  }
  viewer.el.info.textContent = parts.join(" · ");
}
