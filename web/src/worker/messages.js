// The controller Worker's messages: one entry point (onMessage) for what the page sends, a
// dict in, and for each engine request one dict out, tagged with the request's id (or run):
// an exception in the engine is turned into the reply's `error`, never thrown at the page.
// Requests that need Python wait in a queue until it is ready (pythonReady).

import { isShared } from "../shared_memory.js";
import { ctl, pageInit, snapshotFromBoot } from "./state.js";
import { bindPython as bindRuns, pythonReady as runsReady, requestRun, stopRun } from "./run_loop.js";

const py = {}; // main.py's functions, once Python is ready
const queued = { verifies: [], checks: [], stackExchange: [] };
let python2Queue = Promise.resolve();

const failure = (text) => (err) => ({ error: `${text} (${String(err).slice(0, 300)})` });

// Posts {...tags, ...work()}, or the failure's fields when work throws. `over`: the reply's
// fields first and the tags over them.
function answer(tags, work, fail, over = false) {
  let fields;
  try {
    fields = work();
  } catch (err) {
    fields = fail(err);
  }
  self.postMessage(over ? { ...fields, ...tags } : { ...tags, ...fields });
}

async function answerAsync(tags, work, fail) {
  let fields;
  try {
    fields = await work();
  } catch (err) {
    fields = fail(err);
  }
  self.postMessage({ ...tags, ...fields });
}

const text = (value) => (typeof value === "string" ? value : "");

// A challenge file or link the page opened (issue 9): the engine checks it (main.py
// check_challenge) and the page gets the challenge as the file format writes it, or the
// reader's one-line message.
function checkChallenge(data) {
  answer({ type: "challenge-checked", id: data.id }, () => {
    const out = JSON.parse(py.checkChallenge(text(data.text)));
    return typeof out.error === "string" ? { error: out.error } : { challenge: out.challenge };
  }, failure("the engine failed while checking it"));
}

// A replay file the page opened: the engine re-runs it (main.py verify_replay) and the
// page gets the verified document, or the first difference as the error.
function verifyReplay(data) {
  answer({ type: "verified", id: data.id }, () => {
    const out = JSON.parse(py.verifyReplay(text(data.text)));
    return typeof out.error === "string" ? { error: out.error } : { document: out.document };
  }, failure("the engine failed while checking the file"));
}

// The input each seat asked at a turn of the viewer's game was sent (main.py turn_input).
function turnInput(data) {
  answer({ type: "turn-input", id: data.id }, () => {
    const out = JSON.parse(py.turnInput(text(data.text), Number(data.turn) || 0));
    return typeof out.error === "string" ? { error: out.error } : { turn: out.turn, inputs: out.inputs };
  }, failure("the engine failed while deriving the input"));
}

// An author's game (main.py load_game): its spec, or the error and its line.
function loadGame(data) {
  answerAsync({ type: "game_loaded", id: data.id }, async () => {
    const out = JSON.parse(await py.loadGame(text(data.source)));
    return typeof out.error === "string"
      ? { error: out.error, line: Number.isInteger(out.line) ? out.line : null } : { spec: out.spec };
  }, failure("the engine failed while loading the game"));
}

// The latest tournament as Markdown or as one replay file (main.py tournament_file).
function tournamentFile(data) {
  const tags = { type: "tournament-file", run: data.run, what: data.what };
  if (!py.tournamentFile) {
    self.postMessage({ ...tags, error: "Python is not ready" });
    return;
  }
  answer(tags, () => JSON.parse(py.tournamentFile(Number(data.run), String(data.what), String(data.date ?? ""))),
    failure("the engine failed"));
}

function tournamentReplay(data) {
  if (!py.tournamentReplay) return;
  answer({ type: "tournament-replay", run: data.run, index: data.index },
    () => JSON.parse(py.tournamentReplay(Number(data.run), Number(data.index))),
    failure("the game could not be read"));
}

// Entries from a Stack Exchange question (web/src/se_import.js fetches the answers; the
// engine reads them: main.py se_question and se_parse, engine/contest/stackexchange.py), and the
// challenge as a Stack Snippet (main.py export_snippet: the Pyodide pinned is this one's).
function stackExchangeRequest(data) {
  if (!py.seQuestion) {
    queued.stackExchange.push(data);
    return;
  }
  if (data.type === "snippet-export") {
    answer({ type: "snippet-exported", id: data.id }, () => {
      const options = { ...(data.options && typeof data.options === "object" ? data.options : {}),
        pyodideVersion: ctl.pyodide.version };
      return JSON.parse(py.exportSnippet(String(data.challenge ?? ""), JSON.stringify(options)));
    }, failure("the engine failed while exporting"), true);
    return;
  }
  const site = String(data.site ?? "");
  answer({ type: data.type === "se-question" ? "se-question" : "se-parsed", id: data.id }, () => (
    data.type === "se-question"
      ? JSON.parse(py.seQuestion(String(data.text ?? ""), site))
      : JSON.parse(py.seParse(JSON.stringify(Array.isArray(data.items) ? data.items : []), site))
  ), failure("the engine failed while reading the answers"), true);
}

// {type: "python2", id, code, convert} -> {type: "python2", id, reason, converted?, diff?,
// error?, line?}: main.py's python2_view, one request at a time, after Python is ready.
function python2Request(data) {
  python2Queue = python2Queue.then(async () => {
    while (!ctl.controller) await new Promise((resolve) => setTimeout(resolve, 100));
    await answerAsync({ type: "python2", id: data.id }, async () => JSON.parse(
      await ctl.pyodide.pyimport("arena_main").python2_view(text(data.code), data.convert === true)),
    (err) => ({ reason: null, error: `the Python 2 check failed (${String(err).slice(0, 300)})` }));
  });
}

function init(data) {
  if (data.stopFlag instanceof Int32Array && isShared(data.stopFlag.buffer)) {
    ctl.stopFlag = data.stopFlag;
  }
  if (data.siteFiles && typeof data.siteFiles === "object") ctl.siteFiles = data.siteFiles;
  // How the bots serve (web/src/page/bot_modes.js): a mode the page asks for, and whether the
  // page's service worker relays (never inside a Stack Snippet: its origin is opaque).
  const bots = data.bots && typeof data.bots === "object" ? data.bots : {};
  ctl.force = ["relay", "push"].includes(bots.force) ? bots.force : null;
  ctl.relay = bots.relay === true && !ctl.siteFiles;
  pageInit.resolve({ snapshotFromPage: data.snapshotFromPage === true });
}

const HANDLERS = {
  "se-question": stackExchangeRequest,
  "se-parse": stackExchangeRequest,
  "snippet-export": stackExchangeRequest,
  init,
  snapshot: (data) => snapshotFromBoot.resolve(data.bytes instanceof ArrayBuffer ? data.bytes : null),
  run: requestRun,
  tournament: requestRun,
  "tournament-replay": tournamentReplay,
  "tournament-file": tournamentFile,
  python2: python2Request,
  load_game: (data) => {
    if (py.loadGame && !ctl.activeRun) loadGame(data);
    else self.postMessage({ type: "game_loaded", id: data.id, error: "Python is busy: load the game when the run ends" });
  },
  verify: (data) => { if (py.verifyReplay) verifyReplay(data); else queued.verifies.push(data); },
  "turn-input": (data) => {
    if (py.turnInput && !ctl.activeRun) turnInput(data);
    else self.postMessage({ type: "turn-input", id: data.id, error: "Python is busy: ask again when the run ends" });
  },
  "challenge-check": (data) => { if (py.checkChallenge) checkChallenge(data); else queued.checks.push(data); },
  stop: stopRun,
};

// What the page sent: a message of one of the types above (others are ignored).
export function onMessage(data) {
  if (!data || typeof data !== "object" || !Object.hasOwn(HANDLERS, data.type)) return;
  HANDLERS[data.type](data);
}

// main.py is imported: its functions answer requests from now on.
export function bindPython(main) {
  ctl.controller = main.controller;
  bindRuns(main);
  Object.assign(py, {
    verifyReplay: main.verify_replay, checkChallenge: main.check_challenge,
    tournamentReplay: main.tournament_replay, tournamentFile: main.tournament_file, loadGame: main.load_game,
    turnInput: main.turn_input,
  });
}

// The page was told Python is ready: what it asked for meanwhile is answered.
export function pythonReady(main) {
  runsReady();
  const verifies = queued.verifies.splice(0);
  verifies.forEach(verifyReplay);
  Object.assign(py, { seQuestion: main.se_question, seParse: main.se_parse, exportSnippet: main.export_snippet });
  queued.stackExchange.splice(0).forEach(stackExchangeRequest);
  queued.checks.splice(0).forEach(checkChallenge);
}
