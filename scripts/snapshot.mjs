// The page's Python memory snapshot, made at build time (scripts/build.py runs this):
//
//     node scripts/snapshot.mjs SITE_DIR
//
// Boots the Pyodide of node_modules under Node, unpacks SITE_DIR/engine.zip and main.py as the
// page's controller does, runs web/preload.py (the bot host, the games, the controller's
// imports) and writes SITE_DIR/python-snapshot.bin in the page's sparse format
// (web/src/sparse_snapshot.js: the memory pages that are all zero are left out). The page's
// controller and bot Workers start from it instead of booting Python (docs/architecture.md).
// Prints one JSON line: {bytes, memoryBytes, pages, jspi, bootMs, preloadMs}. Run with Node's
// --experimental-wasm-stack-switching (scripts/build.py does), so that the snapshot records
// that WebAssembly can switch stacks, as it can in the browsers the page uses it in.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadPyodide } from "pyodide";
import { PYTHON_ENV } from "../web/src/python_env.js";
import { sparseSnapshot } from "../web/src/sparse_snapshot.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const site = process.argv[2];
if (!site) {
  console.error("usage: node scripts/snapshot.mjs SITE_DIR");
  process.exit(2);
}

const began = performance.now();
// The snapshot holds what Python read of its surroundings as it started: it must be what a
// Pyodide started in the page reads, never this machine's. Under Node, Emscripten would name
// the program after this script (its path on this machine: the environment's `_`,
// sys.executable, sys.orig_argv), take LANG from Node's `navigator.language` (this machine's
// locale, on Node 21 and later) and the time zone from this process's (time.tzname,
// time.timezone). So: the program's name a browser gives it, a fixed LANG (the browser's
// language cannot be known here: C.UTF-8, as where there is none), a fixed hash seed
// (web/src/python_env.js) and UTC. Node's own
// variables never reach Emscripten: its environment is only `env` below and its defaults.
process.env.TZ = "UTC"; // Node applies a change of TZ at once, before Python reads it
const pyodide = await loadPyodide({
  indexURL: join(root, "node_modules", "pyodide") + "/",
  _makeSnapshot: true,
  _sysExecutable: "./this.program", // Emscripten's default, a browser's
  args: [],
  env: { ...PYTHON_ENV },
  stdout: () => {},
  stderr: (line) => console.error(line),
});
const booted = performance.now();
pyodide.unpackArchive(new Uint8Array(readFileSync(join(site, "engine.zip"))), "zip",
  { extractDir: "/home/pyodide" });
pyodide.FS.writeFile("/home/pyodide/arena_main.py", readFileSync(join(site, "main.py"), "utf8"));
pyodide.runPython(readFileSync(join(root, "web", "preload.py"), "utf8"));
const preloaded = performance.now();
const sparse = sparseSnapshot(pyodide.makeMemorySnapshot());
writeFileSync(join(site, "python-snapshot.bin"), sparse.bytes);
console.log(JSON.stringify({
  bytes: sparse.bytes.length, memoryBytes: sparse.memoryBytes, pages: sparse.pages,
  // Pyodide recorded this in the snapshot: a browser that differs boots Python instead
  jspi: "Suspending" in WebAssembly || "Suspender" in WebAssembly,
  bootMs: Math.round(booted - began), preloadMs: Math.round(preloaded - booted),
}));
