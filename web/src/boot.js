// The page's first script: it starts the controller Worker as soon as the page is parsed, so
// that Python starts while app.js (the page's big bundle, its editors and board) still loads
// and runs, and the download of the build's Python snapshot on a Worker of its own
// (snapshot_fetch.js), handed to the controller when it is in. app.js takes the controller
// over (window.kothBoot.take()) with the messages it sent meanwhile. Inside a Stack Snippet
// this script does not run: app.js starts the controller, which fetches what it needs.
import { canShareMemory } from "./shared_memory.js";
import { forcedMode, relayControls, relayWanted } from "./bot_modes.js";

performance.mark("controller-started");
const stopFlag = canShareMemory() ? new Int32Array(new SharedArrayBuffer(4)) : null;
const early = [];
const keep = (event) => early.push(event);
// config.json, written into this script by scripts/build.py
// eslint-disable-next-line no-undef
const config = typeof SITE_CONFIG === "object" && SITE_CONFIG ? SITE_CONFIG : {};
let worker = null;

// The snapshot's download, on its own thread, started first; its bytes go to the controller.
// False if it cannot start (the controller then fetches it itself).
function fetchSnapshot() {
  const entry = config.snapshot;
  if (!entry || typeof entry.file !== "string" || typeof entry.integrity !== "string") return false;
  // made where WebAssembly could switch stacks (JSPI): not for a browser that cannot
  if (entry.jspi !== ("Suspending" in WebAssembly || "Suspender" in WebAssembly)) return false;
  try {
    const fetcher = new Worker("snapshot_fetch.js");
    fetcher.onmessage = (event) => {
      const data = event.data || {};
      if (!worker) return;
      if (data.bytes instanceof ArrayBuffer) {
        worker.postMessage({ type: "snapshot", bytes: data.bytes }, [data.bytes]);
      } else {
        worker.postMessage({ type: "snapshot", error: String(data.error || "no snapshot") });
      }
    };
    fetcher.onerror = (event) => {
      event.preventDefault();
      if (worker) worker.postMessage({ type: "snapshot", error: event.message || "the download failed" });
    };
    performance.mark("snapshot-requested");
    fetcher.postMessage({ url: new URL(entry.file, location.href).href, integrity: entry.integrity });
    return true;
  } catch (err) {
    return false;
  }
}

// Where the bots need the relay (bot_modes.js) and it does not serve this page yet (a first
// visit), app.js starts the controller once it does: Workers started before are not served.
const waitForRelay = relayWanted() && !relayControls();
const snapshotFromPage = !waitForRelay && fetchSnapshot();
try {
  if (!waitForRelay) {
    worker = new Worker("controller_worker.js", { type: "module" });
    worker.addEventListener("message", keep);
    worker.addEventListener("error", keep);
    const bots = { force: forcedMode(), relay: relayWanted() && relayControls() };
    worker.postMessage({ type: "init", stopFlag, siteFiles: null, snapshotFromPage, bots });
  }
} catch (err) {
  worker = null; // app.js starts one and reports what goes wrong
}

window.kothBoot = {
  // {worker, stopFlag, early: [the events it sent so far]}, once, or null
  take() {
    delete window.kothBoot;
    if (!worker) return null;
    worker.removeEventListener("message", keep);
    worker.removeEventListener("error", keep);
    return { worker, stopFlag, early };
  },
};
