// Makes a Pyodide memory snapshot under Node, keeps its non-zero pages
// (web/src/sparse_snapshot.js) and restores them into a second Pyodide the way the page's
// Workers do, with the snapshot arriving after Python is set up. Prints one JSON line.
// Used by tests/test_sparse_snapshot.py.
import { loadPyodide } from "pyodide";
import createPyodideModule from "pyodide/pyodide.asm.mjs";
import {
  SNAPSHOT_TO_COME, isSparseSnapshot, restoringSparse, snapshotMemoryBytes, sparseSnapshot,
} from "../web/src/sparse_snapshot.js";

const first = await loadPyodide({ _makeSnapshot: true });
first.runPython("import json\nkept = {'squares': [i * i for i in range(100_000)], 'text': 'é' * 1000}");
const full = first.makeMemorySnapshot();
const sparse = sparseSnapshot(full);

let release = null;
const later = new Promise((resolve) => { release = resolve; });
setTimeout(() => release(sparse.bytes), 50);
const second = await loadPyodide({
  _loadSnapshot: SNAPSHOT_TO_COME,
  createPyodideModule: restoringSparse(createPyodideModule, later, sparse.memoryBytes),
});
const restored = second.runPython(
  "json.dumps([sum(kept['squares']), len(kept['text']), len(bytearray(64 * 2**20))])");

// A snapshot cut short, or not one at all, is refused with a message.
const refusals = [];
for (const bad of [sparse.bytes.subarray(0, 40), sparse.bytes.slice(0, -100), new Uint8Array(64)]) {
  try {
    await loadPyodide({ _loadSnapshot: SNAPSHOT_TO_COME,
      createPyodideModule: restoringSparse(createPyodideModule, bad, sparse.memoryBytes) });
    refusals.push(null);
  } catch (err) {
    refusals.push(String(err.message || err));
  }
}
console.log(JSON.stringify({
  fullBytes: full.length, sparseBytes: sparse.bytes.length, memoryBytes: sparse.memoryBytes,
  headerMemoryBytes: snapshotMemoryBytes(sparse.bytes), sparse: isSparseSnapshot(sparse.bytes),
  fullIsSparse: isSparseSnapshot(full), restored: JSON.parse(restored), refusals,
}));
