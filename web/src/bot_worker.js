// One bot's Worker: its own Pyodide running engine.bots.host (the same bot host the
// native controller runs in a subprocess). Only the controller worker talks to it.
//
// Controller -> bot:  {type: "init", indexURL, interruptBuffer?}
//                     {type: "req", id, json}          (a host request, JSON text)
// Bot -> controller:  {type: "ready", jspi} | {type: "failed", message}
//                     {type: "reply", id, json}        (the host's reply, JSON text)
// With JSPI the host pulls requests (so a script bot's input() can block); without it,
// each request is pushed through host.handle().
import { loadPyodide } from "pyodide";

const queue = [];
let waiter = null;
let pushHandle = null;

function nextRequest() {
  if (queue.length) return Promise.resolve(queue.shift());
  return new Promise((resolve) => { waiter = resolve; });
}

function sendReply(id, json) {
  self.postMessage({ type: "reply", id, json });
}

const BOOT = `
import json, sys
from engine.bots.host import BotHost

def _serve(next_request, send_reply, can_block):
    if can_block:
        from pyodide.ffi import run_sync
        def receive():
            return json.loads(run_sync(next_request()))
    else:
        def receive():
            raise RuntimeError("requests are pushed")
    def send(reply):
        send_reply(reply.get("id"), json.dumps(reply))
    host = BotHost(receive, send, can_block)
    _deny_page_modules()
    if not can_block:
        return lambda text: json.dumps(host.handle(json.loads(text)))
    while True:
        try:
            host.serve()
        except KeyboardInterrupt:
            continue

class _DenyPageModules:
    """Bot code may not import the bridges to JavaScript (defence in depth: the Worker
    boundary is the isolation; a bot in here can only reach its own Worker)."""
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

// Pyodide fetches and compiles its WebAssembly itself; handed the controller's compiled
// module instead, every Worker shares one compilation (and V8's tier-up of it).
function useCompiledModule(wasmModule) {
  WebAssembly.instantiateStreaming = async (source, imports) => ({
    module: wasmModule,
    instance: await WebAssembly.instantiate(wasmModule, imports),
  });
}

async function init({ indexURL, interruptBuffer, wasmModule }) {
  if (wasmModule instanceof WebAssembly.Module) useCompiledModule(wasmModule);
  const pyodide = await loadPyodide({ indexURL });
  if (interruptBuffer) pyodide.setInterruptBuffer(interruptBuffer);
  const zip = await (await fetch("engine.zip")).arrayBuffer();
  pyodide.unpackArchive(zip, "zip", { extractDir: "/home/pyodide" });
  pyodide.runPython("import sys; sys.path.insert(0, '/home/pyodide')");
  pyodide.runPython(BOOT);
  // JSPI lets input() suspend this Worker's Python until the next request arrives.
  const canBlock = typeof WebAssembly.Suspending === "function";
  const serve = pyodide.globals.get("_serve");
  if (canBlock) {
    self.postMessage({ type: "ready", jspi: true, ms: performance.now() });
    serve.callPromising(nextRequest, sendReply, true).catch((err) => {
      self.postMessage({ type: "failed", message: String(err) });
    });
  } else {
    pushHandle = serve(nextRequest, sendReply, false);
    self.postMessage({ type: "ready", jspi: false, ms: performance.now() });
  }
}

self.onmessage = (event) => {
  const data = event.data;
  if (data.type === "init") {
    init(data).catch((err) => self.postMessage({ type: "failed", message: String(err) }));
  } else if (data.type === "req") {
    if (pushHandle) {
      let reply;
      try {
        reply = pushHandle(data.json);
      } catch (err) {
        reply = JSON.stringify({ id: data.id, answer: null, error: String(err), line: null });
      }
      sendReply(data.id, reply);
    } else if (waiter) {
      const resolve = waiter;
      waiter = null;
      resolve(data.json);
    } else {
      queue.push(data.json);
    }
  }
};
