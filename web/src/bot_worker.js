// One bot's Worker: its own Pyodide running engine.bots.host (the same bot host the
// native controller runs in a subprocess). Only the controller worker talks to it.
//
// Controller -> bot:  {type: "init", indexURL, interruptBuffer?, wasmModule?, channels?,
//                      snapshot?, memoryBytes?, files: {NAME: ArrayBuffer}, lockFile}
//                     init with converter: {memoryBytes} starts a conversion Worker
//                     instead (files holds python2.zip too; see CONVERTER_BOOT)
//                     {type: "snapshot", snapshot}     (the snapshot init announced with
//                                                       memoryBytes: Python starts meanwhile)
//                     {type: "serve"}                  (sync mode: you have a bot now)
//                     {type: "req", id, json, port}    (a host request, JSON text, and the
//                                                       MessagePort its reply goes to)
//                     init.relay: {url, secret} (the relay's channel), init.force: "relay"|"push"
// Bot -> controller:  {type: "ready", mode, heap, startup} | {type: "failed", message}
//                     on the request's port: {id, json} (the host's reply, JSON text)
//
// The host reads requests in one of three modes:
// - "sync": the page is cross-origin isolated: requests and replies go through shared
//   memory (sync_channel.js) and the host blocks in Atomics.wait — the fastest, and a
//   script bot's input() simply blocks;
// - "jspi": requests come as messages; the host pulls them with Pyodide's run_sync, so a
//   script bot's input() can block (JavaScript Promise Integration);
// - "relay": neither, but the page's service worker (web/bot_relay_sw.js) relays: the host
//   blocks in a synchronous XMLHttpRequest for the next request (relay_reader.js), and
//   replies go to the controller as {type: "reply", id, json} messages;
// - "push": none of these: each request is pushed through host.handle(); long-running
//   script bots cannot run, function bots can.
//
// Bot code is untrusted and can reach this Worker's global scope (any JavaScript object
// Python holds leads there), so before it runs, withholdFromBots() removes everything
// that reaches beyond the Worker, and the only way out left is the reply route captured
// in the closures below. The Worker's Content-Security-Policy (scripts/serve.py) forbids
// every fetch, so everything Pyodide loads arrives in the init message.
import { loadPyodide } from "pyodide";
import createPyodideModule from "pyodide/pyodide.asm.mjs";
import { PYTHON_ENV } from "./python_env.js";
import { Channel, ChannelOverflow } from "./sync_channel.js";
import { asReplyId, asReplyText } from "./reply_text.js";
import { relayReader, serveThroughRelay } from "./relay_reader.js";
import { answerFetches, useCompiledModule } from "./shared_wasm.js";
import { SNAPSHOT_TO_COME, isSparseSnapshot, restoringSparse, snapshotMemoryBytes } from "./sparse_snapshot.js";

// Captured before any bot code runs: the bot can no longer reach these on the global.
const postToController = self.postMessage.bind(self);
const queue = [];
let waiter = null;
let pushHandle = null;
let startServing = null; // sync mode: starts the blocking host loop, once given a bot
let replyPort = null; // message modes: the port of the request being answered
let replyId = null;
// Once this Worker's Pyodide has failed fatally (a bot can do that: freeing a list nested
// 100,000 deep overflows its stack), the reply to the pending request and every later one:
// the controller faults the bot at once, with the cause, where it waited 10x the time limit
// for each. The Worker stays (a replacement would not know the game under way).
let fatalReply = null;

function nextRequest() {
  if (queue.length) return Promise.resolve(queue.shift());
  return new Promise((resolve) => { waiter = resolve; });
}

// Message modes: everything the host (or a bot that found this function) sends goes to
// the pending request's own port, as bounded text (reply_text.js); the controller counts only the reply with its id, and
// stops a Worker that floods the port. The port is closed once the reply has gone.
function postReply(anyId, anyJson) {
  const port = replyPort;
  if (!port) return;
  const id = asReplyId(anyId);
  const json = asReplyText(anyJson);
  if (id === replyId) {
    replyPort = null;
    replyId = null;
  }
  try {
    port.postMessage({ id, json });
  } catch (err) {
    // not clonable (a bot's junk): nothing is sent
  }
  if (port !== replyPort) port.close();
}

function onFatal(err) {
  fatalReply = JSON.stringify({
    answer: null, line: null,
    error: `the bot's Python stopped with a fatal error (${String(err).slice(0, 200)}): it cannot move again`,
  });
  if (answerPendingFatal) answerPendingFatal();
}
let answerPendingFatal = null; // the mode's way to answer the pending request with fatalReply

function failed(err) {
  postToController({ type: "failed", message: String(err).slice(0, 500) });
}

const BOOT = `
import json, sys
from engine.bots.host import BotHost

def _serve(next_request, send_reply, mode):
    if mode in ("sync", "relay"):
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
    host = BotHost(receive, send, can_block=mode != "push", guard=True)
    _deny_page_modules()
    if mode == "push":
        return lambda text: json.dumps(host.handle(json.loads(text)))
    while True:
        try:
            host.serve()
        except KeyboardInterrupt:
            continue

class _DenyPageModules:
    """Bot code may not import the bridges to JavaScript. An extra layer only: what the
    Worker's global scope could reach is removed in JavaScript (withholdFromBots)."""
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

// A conversion Worker (Python 2 answers, engine/bots/python2_convert.py) answers each request,
// {"source": TEXT}, with the conversion's reply, JSON text. It runs no bot code: fissix only
// parses the text, but is quadratic on some texts; the controller stops it at its time limit.
const CONVERTER_BOOT = `
import sys
if '/home/pyodide/python2' not in sys.path: sys.path.append('/home/pyodide/python2')
from engine.bots.python2_convert import handle_request as _convert_request
`;

// The conversion Worker's memory limit: its WebAssembly memory never grows past `maxBytes`
// (Pyodide's malloc then fails, and Python raises MemoryError). No other code runs here.
function capMemory(maxBytes) {
  const grow = WebAssembly.Memory.prototype.grow;
  WebAssembly.Memory.prototype.grow = function growCapped(pages) {
    if (this.buffer.byteLength + pages * 65536 > maxBytes) {
      throw new RangeError(`the conversion's memory is limited to ${maxBytes} bytes`);
    }
    return grow.call(this, pages);
  };
}

// What reaches beyond this Worker: the network, storage shared with the page's origin
// (OPFS and Cache Storage survive reloads; the Python snapshot is cached there), locks
// shared with the page, new Workers and scripts (which would get all of it back), channels
// to the origin's other contexts, fonts loaded from URLs, and the Worker's own message
// port (replies go through per-request ports captured above).
const WITHHELD_GLOBALS = [
  "fetch", "XMLHttpRequest", "WebSocket", "WebSocketStream", "EventSource", "WebTransport",
  "caches", "CacheStorage", "indexedDB", "IDBFactory", "importScripts", "Worker",
  "SharedWorker", "BroadcastChannel", "postMessage", "onmessage", "onmessageerror",
  "fonts", "FontFace", "Notification", "cookieStore", "CookieStore",
  "requestFileSystem", "webkitRequestFileSystem", "requestFileSystemSync",
  "webkitRequestFileSystemSync", "webkitResolveLocalFileSystemURL",
  "webkitResolveLocalFileSystemSyncURL", "FileSystemHandle", "FileSystemDirectoryHandle",
  "FileSystemFileHandle", "FileSystemSyncAccessHandle", "StorageManager", "LockManager",
];
const WITHHELD_NAVIGATOR = [
  "storage", "locks", "serviceWorker", "usb", "hid", "serial", "bluetooth", "permissions",
  "sendBeacon", "mediaCapabilities", "gpu",
];

// Delete `names` from `object` and every prototype it inherits from; where a property
// cannot be deleted, hide its value. Returns the names still reachable.
function removeEverywhere(object, names) {
  const left = [];
  for (const name of names) {
    for (let target = object; target; target = Object.getPrototypeOf(target)) {
      if (!Object.prototype.hasOwnProperty.call(target, name)) continue;
      try {
        if (!delete target[name]) {
          Object.defineProperty(target, name, { value: undefined, writable: false });
        }
      } catch (err) {
        // non-configurable and non-writable: reported below if still reachable
      }
    }
    try {
      if (object[name] !== undefined && object[name] !== null) left.push(name);
    } catch (err) {
      // a getter that throws reaches nothing
    }
  }
  return left;
}

function withholdFromBots() {
  const navigator = self.navigator;
  const left = removeEverywhere(self, WITHHELD_GLOBALS);
  if (navigator) left.push(...removeEverywhere(navigator, WITHHELD_NAVIGATOR).map((n) => `navigator.${n}`));
  if (left.length) throw new Error(`could not withhold ${left.join(", ")} from bots`);
}

// Free the memory of a buffer this Worker was given (a copy of its own) now.
function release(bytes) {
  const buffer = ArrayBuffer.isView(bytes) ? bytes.buffer : bytes;
  if (buffer instanceof ArrayBuffer && typeof buffer.transfer === "function" && !buffer.detached) {
    buffer.transfer(0);
  }
}

// Each start-up step's end, in this Worker's clock (the controller reports them).
const startup = { timeOrigin: performance.timeOrigin, marks: { script: performance.now() } };

// The snapshot init announced, when it comes ({bytes}: emptied once Python is restored, so
// that this Worker's copy can be freed).
let resolveSnapshot = null;
const snapshotToCome = new Promise((resolve) => { resolveSnapshot = resolve; });
const comingSnapshot = { bytes: null };

async function init({ indexURL, interruptBuffer, wasmModule, channels, snapshot, memoryBytes, files, lockFile,
  converter, relay, force }) {
  startup.marks.init = performance.now();
  if (converter) capMemory(Number(converter.memoryBytes) || 512 * 2 ** 20);
  // Everything Pyodide fetches while it starts comes in this message: this Worker may not
  // fetch anything itself.
  answerFetches(files || {});
  if (wasmModule instanceof WebAssembly.Module) useCompiledModule(wasmModule);
  // From the snapshot (web/preload.py imported) when there is one: only its non-zero pages
  // are copied into this Worker's memory (sparse_snapshot.js). One announced by its size
  // is given later: Python is set up meanwhile.
  const options = { indexURL, createPyodideModule, lockFileContents: lockFile, env: { ...PYTHON_ENV } };
  const coming = Number.isInteger(memoryBytes) && memoryBytes > 0;
  if (coming || isSparseSnapshot(snapshot)) {
    options._loadSnapshot = SNAPSHOT_TO_COME;
    options.createPyodideModule = restoringSparse(createPyodideModule,
      coming ? snapshotToCome.then(() => comingSnapshot.bytes) : snapshot,
      coming ? memoryBytes : snapshotMemoryBytes(snapshot));
  }
  const pyodide = await loadPyodide(options);
  pyodide._api.on_fatal = onFatal;
  // this Worker's copy of the snapshot is in its memory now: freed at once, not at some
  // later garbage collection
  release(comingSnapshot.bytes || snapshot);
  comingSnapshot.bytes = null;
  pyodide._api.config._loadSnapshot = null;
  pyodide._api.config.createPyodideModule = null;
  startup.marks.python = performance.now();
  if (interruptBuffer) pyodide.setInterruptBuffer(interruptBuffer);
  pyodide.unpackArchive(files["engine.zip"], "zip", { extractDir: "/home/pyodide" });
  if (converter) pyodide.unpackArchive(files["python2.zip"], "zip", { extractDir: "/home/pyodide/python2" });
  for (const name of Object.keys(files)) { // in Python's file system now
    release(files[name]);
    delete files[name];
  }
  // A snapshot copies the random generator's state too: every bot gets fresh entropy.
  pyodide.runPython("import sys, random\nif '/home/pyodide' not in sys.path: sys.path.insert(0, '/home/pyodide')\nrandom.seed()");
  if (converter) {
    pyodide.runPython(CONVERTER_BOOT);
    const convert = pyodide.globals.get("_convert_request");
    withholdFromBots();
    pushHandle = (json) => convert(json);
    postToController({ type: "ready", mode: "push", heap: 0, startup });
    return;
  }
  pyodide.runPython(BOOT);
  const serve = pyodide.globals.get("_serve");
  const reader = relay && !channels ? relayReader(relay.url, relay.secret) : null;
  withholdFromBots();
  // heap: the Python heap's size now, before any bot code has run (the controller sizes its
  // tournaments by it).
  const heap = pyodide._module && pyodide._module.HEAP8 ? pyodide._module.HEAP8.length : 0;
  startup.marks.host = performance.now();
  const ready = (mode) => postToController({ type: "ready", mode, heap, startup });

  if (channels) {
    const requests = new Channel(channels.request);
    const replies = new Channel(channels.reply);
    let seen = requests.seq;
    // Atomics.wait may return with nothing new (Firefox wakes a waiting Worker now and
    // then): taking that for a request would serve the last one again, and a bot that
    // answered it twice would have drawn from its random twice. So: until the number moves.
    const nextSeq = () => {
      while (!requests.wait(seen));
      seen = requests.seq;
    };
    const receive = () => {
      nextSeq();
      return requests.read();
    };
    const send = (anyId, anyJson) => {
      const id = asReplyId(anyId);
      if (id === null) return;
      try {
        replies.write(id, asReplyText(anyJson));
      } catch (err) {
        if (!(err instanceof ChannelOverflow)) throw err; // the controller sees the overflow
      }
    };
    // A spare waits in its event loop (so that it can be torn down at once) until it is
    // given a bot; from then on its thread belongs to the host, blocking between requests.
    answerPendingFatal = () => send(seen, fatalReply);
    startServing = () => {
      try {
        serve(receive, send, "sync");
      } catch (err) {
        if (fatalReply === null) failed(err);
        // Python is gone: every request gets the fatal reply (this thread blocks here;
        // terminate() ends it all the same).
        while (fatalReply !== null) {
          nextSeq();
          send(seen, fatalReply);
        }
      }
    };
    ready("sync");
  } else if (typeof WebAssembly.Suspending === "function" && !force) {
    answerPendingFatal = () => postReply(replyId, fatalReply);
    ready("jspi");
    serve.callPromising(nextRequest, postReply, "jspi").catch((err) => { if (fatalReply === null) failed(err); });
  } else if (reader && force !== "push" && reader.probe()) {
    serveThroughRelay(serve, reader, { post: postToController, ready, failed, fatalReply: () => fatalReply,
      onFatal: (answer) => { answerPendingFatal = answer; } });
  } else {
    answerPendingFatal = () => postReply(replyId, fatalReply);
    pushHandle = serve(nextRequest, postReply, "push");
    ready("push");
  }
}

function onRequest(data, port) {
  if (replyPort) replyPort.close(); // a request the controller gave up on
  replyPort = port;
  replyId = data.id;
  if (fatalReply !== null) {
    postReply(data.id, fatalReply);
  } else if (pushHandle) {
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

// Registered first and in the capture phase, and it stops the event there: a listener a
// bot adds later never sees a request or its port.
self.addEventListener("message", (event) => {
  event.stopImmediatePropagation();
  const data = event.data;
  if (!data || typeof data !== "object") return;
  if (data.type === "serve" && startServing) {
    const serveNow = startServing;
    startServing = null;
    setTimeout(serveNow, 0);
  } else if (data.type === "init") {
    init(data).catch(failed);
  } else if (data.type === "snapshot") {
    startup.marks.snapshot = performance.now();
    if (comingSnapshot.bytes === null) comingSnapshot.bytes = data.snapshot;
    resolveSnapshot();
  } else if (data.type === "req" && data.port instanceof MessagePort) {
    onRequest(data, data.port);
  }
}, { capture: true });
