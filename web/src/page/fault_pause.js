// Pause on a fault, and the keys of the debugging loop (issue 22). With "Pause on a fault"
// on, the board stops at the turn where a bot faulted and says who, in which game, at which
// turn and line; runs.js marks the line in the bot's editor. The run itself goes on in its
// Worker: the board holds the turn until Play, and playing on stops at each later fault.
// Keys, anywhere but in an editor or a text field: P plays or pauses, N steps one turn, R runs
// the match again from its first turn with the same seed, secret, settings and step budget
// (the bots as the editors have them now, so that a fix is tried on the same games).

const KEYS = { p: "pause", n: "step", r: "rerun" };
const MAX_FAULTS = 1000; // faults of one run the board stops at; later ones are passed over
const MAX_NOTE_CHARS = 300; // of a fault's text in the note (the console has all of it)
const RETRY_MS = 500; // R during a run: how often to look whether Python is free for the run again
const MAX_RETRIES = 1200; // 10 minutes: a controller replaced for not stopping boots again meanwhile
const NOT_TYPING = new Set(["checkbox", "radio", "button", "submit", "reset", "range", "file", "color"]);

// Keys typed here are text, not commands: the code editors, text fields and menus.
export function typingIn(target) {
  if (!(target instanceof Element)) return false;
  if (target.closest(".cm-editor, textarea, select, [contenteditable]:not([contenteditable='false'])")) return true;
  return target instanceof HTMLInputElement && !NOT_TYPING.has(target.type);
}

// The fault's turn as the viewer counts: the message's own, else read from its "where"
// ("game 2, turn 14"; "at the start" is turn 0).
function faultTurn(m) {
  if (Number.isInteger(m.turn) && m.turn >= 0) return m.turn;
  const where = typeof m.where === "string" ? m.where : "";
  if (/\bat the start\b/.test(where)) return 0;
  const found = /\bturn (\d{1,9})\b/.exec(where);
  return found ? Number(found[1]) : null;
}

export function createFaultPause(app) {
  const { store } = app;
  const $ = (id) => document.getElementById(id);
  const box = $("pause-on-fault");
  const note = $("fault-pause");
  const rerunButton = $("btn-rerun");
  const viewer = app.board.viewer;
  let runId = null; // the run the faults below are of
  let faults = []; // {index, turn, bot, text, line, where}: where the board stops
  let pending = null; // the fault to stop at once its turn reaches the board
  let lastIndex = -1; // the record being played
  let runTracks = null; // the viewer's tracks of that run (another series on the board has others)
  let last = null; // the last match run: its request, with the secret its games used
  let rerunAfter = null; // R during a run: that run's id; when it has stopped, the match runs again

  box.checked = store.settings.pauseOnFault === true;
  box.addEventListener("change", () => {
    store.settings.pauseOnFault = box.checked;
    store.saveSettings();
  });

  viewer.nextStop = (index, t) => {
    if (viewer.tracks !== runTracks) return null; // a replay file or another run on show
    let next = null;
    for (const f of faults) if (f.index === index && f.turn > t && (next === null || f.turn < next)) next = f.turn;
    return next;
  };
  viewer.onHold = (index, t) => show(viewer.tracks === runTracks
    ? faults.find((f) => f.index === index && f.turn === t) || null : null);

  function show(fault) {
    if (!fault) {
      note.textContent = ""; // stays in the page, empty: a live region that is shown is not always read
      return;
    }
    const name = store.run?.names?.[fault.bot] ?? last?.bots?.[fault.bot]?.name ?? "";
    const who = `Bot ${fault.bot + 1}${name ? ` (${name})` : ""}`;
    let text = String(fault.text);
    if (fault.where && text.endsWith(` (${fault.where})`)) text = text.slice(0, -fault.where.length - 3);
    if (text.length > MAX_NOTE_CHARS) text = `${text.slice(0, MAX_NOTE_CHARS)}…`;
    const line = Number.isInteger(fault.line) ? `, line ${fault.line}` : "";
    note.textContent = `Paused at a fault of ${who}: ${fault.where || `turn ${fault.turn}`}${line}. ${text} `
      + "P plays on, N steps one turn, R runs the match again.";
  }

  function holdIfReached(run, force = false) {
    if (!pending) return;
    const rec = run.records[pending.index];
    if (!rec || (!force && rec.turns.length < pending.turn)) return;
    const fault = pending;
    pending = null;
    if (viewer.held || viewer.playing || !run.viewing) return; // the board stops there when played to it
    viewer.holdAt(fault.index, Math.min(fault.turn, rec.turns.length));
  }

  // Every message of a match run, after runs.js has handled it.
  function seen(m, run) {
    if (!run || m.run !== run.id || run.kind === "tournament") return;
    if (run.id !== runId) {
      runId = run.id;
      faults = [];
      pending = null;
      lastIndex = -1;
      show(null);
    }
    if (m.type === "record_start") {
      lastIndex = m.index;
      runTracks = viewer.tracks;
      if (run.request) {
        const secret = m.record && typeof m.record.secret === "string" ? m.record.secret : run.request.secret;
        last = { ...run.request, secret };
        rerunButton.disabled = false;
      }
    } else if (m.type === "console" && m.stream === "fault" && box.checked && lastIndex >= 0) {
      const turn = faultTurn(m);
      if (turn !== null && faults.length < MAX_FAULTS) {
        const fault = { index: lastIndex, turn, bot: m.bot, text: m.text ?? "", line: m.line ?? null,
          where: typeof m.where === "string" ? m.where : "" };
        faults.push(fault);
        if (!pending) pending = fault;
        holdIfReached(run);
      }
    } else if (m.type === "turns") {
      holdIfReached(run);
    } else if (m.type === "record_end" || m.type === "done" || m.type === "stopped") {
      holdIfReached(run, true);
    }
  }

  // A run has ended (finished, stopped, failed, or its Worker replaced).
  function ended(run) {
    if (rerunAfter !== run.id) return;
    rerunAfter = null;
    setTimeout(() => rerunWhenFree(0), 0); // after the message that ended it is handled
  }

  function rerunWhenFree(tries) {
    if (app.runs.canRun()) rerun();
    else if (!store.run && tries < MAX_RETRIES) setTimeout(() => rerunWhenFree(tries + 1), RETRY_MS);
  }

  function rerun() {
    if (store.run) {
      if (store.run.kind === "tournament" || !last) return;
      rerunAfter = store.run.id;
      app.runs.stop();
      return;
    }
    if (!last) {
      app.status.set("Run a match first: R runs it again with the same seed and secret.");
      return;
    }
    if (last.game !== store.settings.game || store.tournamentMode()) {
      const spec = store.specOf(last.game);
      app.status.error(`Cannot run again: the last match was ${spec ? spec.title : last.game}; `
        + "switch back to it (Match mode) first.");
      return;
    }
    app.runs.start(last);
  }

  function togglePlay() {
    viewer.togglePlay();
    if (viewer.playing) show(null);
  }
  $("btn-play").addEventListener("click", () => { if (viewer.playing) show(null); });

  const actions = {
    pause: togglePlay,
    step: () => viewer.step(1),
    rerun,
  };
  document.addEventListener("keydown", (ev) => {
    if (ev.defaultPrevented || ev.ctrlKey || ev.metaKey || ev.altKey || ev.isComposing) return;
    const action = typeof ev.key === "string" ? KEYS[ev.key.toLowerCase()] : undefined;
    if (!action || typingIn(ev.target) || document.querySelector("dialog[open]")) return;
    ev.preventDefault();
    actions[action]();
  });
  rerunButton.addEventListener("click", rerun);

  return { seen, ended, rerun };
}
