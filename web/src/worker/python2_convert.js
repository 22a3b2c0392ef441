// Python 2 answers: fissix (python2.zip, built by scripts/build.py) never runs in the
// controller Worker: it is quadratic on some texts (8,000 u'' literals in one expression took
// 17.5 s). Each new source is converted in a conversion Worker: a bot Worker started with
// python2.zip, running engine/bots/python2_convert.py, its WebAssembly memory capped
// (bot_worker.js capMemory), terminated when a conversion runs past CONVERT_LIMIT_MS. main.py
// awaits convertPython2 with the controller's event loop free, and keeps each outcome
// (engine/bots/python2.py's cache).

import { BotWorker } from "./bot_handle.js";
import { STOPPED, siteFetch, untilStopped } from "./state.js";

const CONVERT_LIMIT_MS = 10_000; // as engine/bots/python2_convert.py CPU_LIMIT_S
const CONVERT_IDLE_MS = 30_000; // an idle conversion Worker is stopped (its memory freed) after this
const MAX_CONVERSION_CHARS = 2 << 20; // a reply, as MAX_REPLY_BYTES there
let python2Zip = null; // a promise of python2.zip's bytes
let converterWorker = null;
let converterIdle = null;
let conversionIds = 0;
let conversions = Promise.resolve(); // one at a time
const converting = new Map(); // source -> its conversion under way (a tournament's matches share it)

function python2ZipBytes() {
  if (!python2Zip) {
    python2Zip = siteFetch("python2.zip").then((response) => {
      if (!response.ok) throw new Error(`python2.zip: HTTP ${response.status}`);
      return response.arrayBuffer();
    });
    python2Zip.catch(() => { python2Zip = null; }); // a later request tries again
  }
  return python2Zip;
}

// The conversion of `source` as main.py reads it (JSON text): the conversion Worker's reply
// (checkedConversion); {over_time_s} when it ran past its limit; {stopped: why} when its Worker
// failed; {cancelled: true} when the page stopped the run meanwhile.
export function convertPython2(source) {
  const text = String(source);
  if (converting.has(text)) return converting.get(text);
  const next = conversions.then(() => convertNow(text));
  conversions = next.catch(() => {});
  converting.set(text, next);
  next.finally(() => converting.delete(text)).catch(() => {});
  return next;
}

async function convertNow(source) {
  clearTimeout(converterIdle);
  let worker = null;
  try {
    if (!converterWorker || converterWorker.dead) {
      converterWorker = new BotWorker({ converter: await python2ZipBytes() });
      converterWorker.ready.catch(() => {});
    }
    worker = converterWorker;
    if (await untilStopped(worker.ready) === STOPPED) return JSON.stringify({ cancelled: true });
  } catch (err) {
    if (worker) worker.kill();
    return JSON.stringify({ stopped: `the Python 2 converter did not start (${String(err).slice(0, 300)})` });
  }
  const id = ++conversionIds;
  let timer = null;
  const outcome = await untilStopped(Promise.race([
    worker.request(id, JSON.stringify({ source }), checkedConversion).then((checked) => ({ checked })),
    new Promise((resolve) => { timer = setTimeout(() => resolve(null), CONVERT_LIMIT_MS); }),
  ]));
  clearTimeout(timer);
  if (outcome && outcome !== STOPPED && outcome.checked !== null) {
    converterIdle = setTimeout(() => worker.kill(), CONVERT_IDLE_MS);
    return outcome.checked;
  }
  worker.kill();
  if (outcome === STOPPED) return JSON.stringify({ cancelled: true });
  if (outcome === null) return JSON.stringify({ over_time_s: CONVERT_LIMIT_MS / 1000 });
  return JSON.stringify({ stopped: "its Worker stopped (over its memory limit, or it failed)" });
}

// The conversion Worker's reply, untrusted text: bounded, parsed here, and rebuilt flat
// ({converted, lines, true_division} or {error, line}); main.py checks the rest.
function checkedConversion(json) {
  const unreadable = JSON.stringify({ error: "its Python 2 conversion's result was not readable", line: null });
  if (typeof json !== "string" || json.length > MAX_CONVERSION_CHARS) {
    return JSON.stringify({ error: "its Python 2 conversion's result is too long", line: null });
  }
  let data;
  try {
    data = JSON.parse(json);
  } catch (err) {
    return unreadable;
  }
  if (data === null || typeof data !== "object") return unreadable;
  if (typeof data.error === "string") {
    return JSON.stringify({ error: data.error.slice(0, 2000), line: Number.isInteger(data.line) ? data.line : null });
  }
  if (typeof data.converted !== "string" || !Array.isArray(data.lines) || !data.lines.every(Number.isInteger)
      || typeof data.true_division !== "boolean") return unreadable;
  return JSON.stringify({ converted: data.converted, lines: data.lines, true_division: data.true_division });
}

// Python 2 conversions started in the conversion Worker, and those under way now.
export function conversionStats() {
  return { started: conversionIds, underWay: converting.size };
}
