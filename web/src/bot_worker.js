// One bot's Worker: its own Pyodide running engine.bots.host (the same bot host the
// native controller runs in a subprocess). Only the controller worker talks to it.
//
// Controller -> bot:  {type: "init", indexURL, interruptBuffer?, wasmModule?, channels?,
//                      snapshot?}
//                     {type: "serve"}                  (sync mode: you have a bot now)
//                     {type: "req", id, json}          (a host request, JSON text)
// Bot -> controller:  {type: "ready", mode, ms} | {type: "failed", message}
//                     {type: "reply", id, json}        (the host's reply, JSON text)
//
// The host reads requests in one of three modes:
// - "sync": the page is cross-origin isolated: requests and replies go through shared
//   memory (sync_channel.js) and the host blocks in Atomics.wait — the fastest, and a
//   script bot's input() simply blocks;
// - "jspi": requests come as messages; the host pulls them with Pyodide's run_sync, so a
//   script bot's input() can block (JavaScript Promise Integration);
// - "push": neither: each request is pushed through host.handle(); long-running script
//   bots cannot run, function bots can.
import { loadPyodide } from "pyodide";
import { Channel } from "./sync_channel.js";
import { useCompiledModule } from "./shared_wasm.js";

const queue = [];
let waiter = null;
let pushHandle = null;
let startServing = null; // sync mode: starts the blocking host loop, once given a bot

function nextRequest() {
  if (queue.length) return Promise.resolve(queue.shift());
  return new Promise((resolve) => { waiter = resolve; });
}

function postReply(id, json) {
  self.postMessage({ type: "reply", id, json });
}

const BOOT = `
import json, sys
from engine.bots.host import BotHost

def _serve(next_request, send_reply, mode):
    if mode == "sync":
        def receive():
            return json.loads(next_request())
    elif mode == "jspi":
        from pyodide.ffi import run_sync
        def receive():
            return json.loads(run_sync(next_request()))
    else:
        def receive():
            raise RuntimeError("requests are pushed")
    def send(reply):
        send_reply(reply.get("id"), json.dumps(reply))
    host = BotHost(receive, send, can_block=mode != "push")
    _deny_page_modules()
    if mode == "push":
        return lambda text: json.dumps(host.handle(json.loads(text)))
    while True:
        try:
            host.serve()
        except KeyboardInterrupt:
            continue

class _DenyPageModules:
    """Bot code may not import the bridges to JavaScript. Defence in depth only: the
    Worker boundary is the isolation (a bot in here can only reach its own Worker)."""
    blocked = ("js", "pyodide", "pyodide_js", "_pyodide")
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.blocked:
            raise ImportError(f"bots cannot import {name!r} here")
        return None

def _deny_page_modules():
    for name in list(sys.modules):
        if name.split(".")[0] in _DenyPageModules.blocked:
            del sys.modules[name]
    sys.meta_path.insert(0, _DenyPageModules())
`;

// Bot code runs in this Worker. Take away what reaches beyond it: storage shared with the
// page's origin (where the Python snapshot is cached), new Workers (which would get all of
// it back), and channels to the origin's other pages.
function withholdFromBots() {
  for (const name of ["caches", "indexedDB", "Worker", "SharedWorker", "BroadcastChannel"]) {
    try {
      Object.defineProperty(self, name, { value: undefined, writable: false, configurable: false });
    } catch (err) {
      // not defined here: nothing to take away
    }
  }
}

async function init({ indexURL, interruptBuffer, wasmModule, channels, snapshot }) {
  if (wasmModule instanceof WebAssembly.Module) useCompiledModule(wasmModule);
  const zip = fetch(new URL("engine.zip", self.location.href)).then((r) => r.arrayBuffer());
  // From the controller's memory snapshot (engine already imported) when there is one.
  const options = snapshot instanceof Uint8Array ? { indexURL, _loadSnapshot: snapshot } : { indexURL };
  const pyodide = await loadPyodide(options);
  if (interruptBuffer) pyodide.setInterruptBuffer(interruptBuffer);
  pyodide.unpackArchive(await zip, "zip", { extractDir: "/home/pyodide" });
  // A snapshot copies the random generator's state too: every bot gets fresh entropy.
  pyodide.runPython("import sys, random\nif '/home/pyodide' not in sys.path: sys.path.insert(0, '/home/pyodide')\nrandom.seed()");
  withholdFromBots();
  pyodide.runPython(BOOT);
  const serve = pyodide.globals.get("_serve");
  const ready = (mode) => self.postMessage({ type: "ready", mode, ms: performance.now() });

  if (channels) {
    const requests = new Channel(channels.request);
    const replies = new Channel(channels.reply);
    let seen = requests.seq;
    const receive = () => {
      requests.wait(seen);
      seen = requests.seq;
      return requests.read();
    };
    const send = (id, json) => replies.write(id, json);
    // A spare waits in its event loop (so that it can be torn down at once) until it is
    // given a bot; from then on its thread belongs to the host, blocking between requests.
    startServing = () => {
      try {
        serve(receive, send, "sync");
      } catch (err) {
        self.postMessage({ type: "failed", message: String(err).slice(0, 500) });
      }
    };
    ready("sync");
  } else if (typeof WebAssembly.Suspending === "function") {
    ready("jspi");
    serve.callPromising(nextRequest, postReply, "jspi").catch((err) => {
      self.postMessage({ type: "failed", message: String(err).slice(0, 500) });
    });
  } else {
    pushHandle = serve(nextRequest, postReply, "push");
    ready("push");
  }
}

self.onmessage = (event) => {
  const data = event.data;
  if (data.type === "serve" && startServing) {
    const serveNow = startServing;
    startServing = null;
    setTimeout(serveNow, 0);
  } else if (data.type === "init") {
    init(data).catch((err) => self.postMessage({ type: "failed", message: String(err) }));
  } else if (data.type === "req") {
    if (pushHandle) {
      let reply;
      try {
        reply = pushHandle(data.json);
      } catch (err) {
        reply = JSON.stringify({ id: data.id, answer: null, error: String(err), line: null });
      }
      postReply(data.id, reply);
    } else if (waiter) {
      const resolve = waiter;
      waiter = null;
      resolve(data.json);
    } else {
      queue.push(data.json);
    }
  }
};
