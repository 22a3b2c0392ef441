// The board and the results: the viewer (web/src/viewer.js) with its saved speed, each bot's
// own view on demand (games whose renderer has seatView), and the results table.

import { Viewer } from "../viewer.js";
import { renderResults, renderTiming } from "../results.js";
import { renderTurnOutput } from "../turn_output.js";
import { createBoardMarks } from "../board_marks.js";
import * as storage from "../storage.js";

export function createBoard(app) {
  const { store, els } = app;
  const $ = (id) => document.getElementById(id);
  const viewer = new Viewer({
    canvas: $("board"), area: $("board-area"), legend: $("legend"), info: $("frame-info"),
    play: $("btn-play"), back: $("btn-back"), fwd: $("btn-fwd"), start: $("btn-start"), end: $("btn-end"),
    speed: $("speed"), speedOut: $("speed-out"), scrub: $("scrub"), record: $("record"),
  });
  const savedSpeed = Number(storage.load("speed", 30));
  if (savedSpeed >= 1 && savedSpeed <= 500) {
    $("speed").value = String(savedSpeed);
    $("speed").dispatchEvent(new Event("input"));
  }
  $("speed").addEventListener("input", () => store.saver.schedule("speed", () => Number($("speed").value)));

  const openViews = new Set(); // seats whose view is shown
  let viewSeats = ""; // the seats the toggles were built for

  function seatToggles(names) {
    const heading = document.createElement("h3");
    heading.textContent = "Bots' own views";
    const buttons = document.createElement("div");
    buttons.className = "view-buttons";
    buttons.setAttribute("role", "group");
    buttons.setAttribute("aria-label", "Show a bot's own view");
    names.forEach((nm, seat) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "seat-view-toggle";
      b.dataset.seat = String(seat);
      b.textContent = `View of ${seat + 1} ${nm}`;
      b.setAttribute("aria-pressed", openViews.has(seat) ? "true" : "false");
      b.addEventListener("click", () => {
        if (openViews.has(seat)) openViews.delete(seat); else openViews.add(seat);
        b.setAttribute("aria-pressed", openViews.has(seat) ? "true" : "false");
        viewer.onFrame(viewer.currentFrame(), names);
      });
      buttons.append(b);
    });
    const list = document.createElement("div");
    list.className = "seat-view-list";
    els.seatViews.replaceChildren(heading, buttons, list);
  }

  const marks = createBoardMarks($("board-marks"), () => viewer.render());
  // Each frame: the bots' marks, what they printed and answered at its turn, their own views.
  viewer.onFrame = (frame, names) => {
    const track = frame ? viewer.track : null;
    marks.show($("board"), viewer.renderer, frame, track && track.record, names);
    renderTurnOutput($("turn-output"), track && track.record, track && track.turns, frame ? frame.turn : null, names);
    seatViewsOfFrame(frame, names);
  };

  function seatViewsOfFrame(frame, names) {
    const renderer = viewer.renderer;
    if (!frame || !renderer || typeof renderer.seatView !== "function") {
      if (viewSeats) { els.seatViews.replaceChildren(); viewSeats = ""; openViews.clear(); }
      els.seatViews.hidden = true;
      return;
    }
    els.seatViews.hidden = false;
    const key = names.join("\u0000");
    if (key !== viewSeats) {
      viewSeats = key;
      seatToggles(names);
    }
    const list = els.seatViews.querySelector(".seat-view-list");
    const shown = [...openViews].filter((seat) => seat < names.length).sort((a, b) => a - b).map((seat) => {
      const fig = document.createElement("figure");
      fig.className = "seat-view";
      const cap = document.createElement("figcaption");
      const text = renderer.seatView(frame, seat);
      cap.textContent = `${seat + 1} ${names[seat]}: what it sees after turn ${frame.turn}`;
      const pre = document.createElement("pre");
      pre.textContent = text === null ? "Not playing any more: a dead bot sees nothing." : text;
      pre.setAttribute("tabindex", "0");
      pre.setAttribute("aria-label", `View of ${names[seat]}`);
      fig.append(cap, pre);
      return fig;
    });
    list.replaceChildren(...shown);
  }
  viewer.onDrawError = (message) => app.status.error(`The board could not draw a frame: ${message}.`);

  return {
    viewer,
    showResults(names, summary, note) { renderResults(els.results, names, summary, note); },
    // Each bot's median and worst move time, under the results (the run's `done` event).
    showTiming(names, timing) { renderTiming(els.results, names, timing); },
    // A console line's record and turn on the board; false when that record is not on show.
    jumpTo(index, turn) {
      if (!viewer.tracks[index]) return false;
      if (viewer.current !== index) viewer.selectRecord(index);
      viewer.step(0);
      viewer.seek(turn);
      $("board-area").scrollIntoView({ block: "nearest" });
      return true;
    },
    // A checked series (a replay file, a tournament's game) on the board; label names it in errors.
    showSeries(series, label) {
      const spec = store.specOf(series.game);
      series.title = spec.title || spec.name;
      viewer.load({ ...series, renderer: spec.renderer })
        .catch((e) => app.status.error(`The board cannot show ${label}: ${e.message}.`));
    },
  };
}
