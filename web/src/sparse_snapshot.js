// Pyodide memory snapshots without their empty pages.
//
// A snapshot of the page's Python is ~31 MB of WebAssembly memory, more than half of it pages
// that are all zero. Pyodide restores one by copying all of it, so every bot Worker would
// hold all 31 MB. Here a snapshot keeps only its non-zero pages, and a restore copies only
// those into the new memory: a page left out is never written, so the operating system never
// backs it with RAM until Python itself uses it.
//
// Format (little-endian u32 words): "KAS1", page size, prefix bytes, memory bytes, run count,
// 3 reserved; then Pyodide's own header and state (the prefix, copied as is); then the runs
// of non-zero pages as [first page, page count] pairs; then those pages' bytes, run after run.
const MAGIC = 0x3153414b; // "KAS1"
const PAGE = 4096;
const HEADER_BYTES = 32;

// Pyodide's snapshot (makeMemorySnapshot's Uint8Array) -> {bytes, memoryBytes, pages}.
export function sparseSnapshot(full) {
  const words = new Uint32Array(full.buffer, full.byteOffset, 2);
  const prefixBytes = words[1];
  const memory = full.subarray(prefixBytes);
  // the memory's words (copied if the view is not 4-byte aligned)
  const aligned = (full.byteOffset + prefixBytes) % 4 === 0 ? memory : memory.slice();
  const memoryWords = new Uint32Array(aligned.buffer, aligned.byteOffset, Math.floor(aligned.length / 4));
  const pageCount = Math.ceil(memory.length / PAGE);
  const runs = [];
  let pages = 0;
  for (let page = 0; page < pageCount; page += 1) {
    const from = (page * PAGE) / 4;
    const to = Math.min(from + PAGE / 4, memoryWords.length);
    let used = false;
    for (let i = from; i < to; i += 1) {
      if (memoryWords[i] !== 0) {
        used = true;
        break;
      }
    }
    if (!used) continue;
    pages += 1;
    const last = runs[runs.length - 1];
    if (last && last[0] + last[1] === page) last[1] += 1;
    else runs.push([page, 1]);
  }
  const runBytes = runs.length * 8;
  const bytes = new Uint8Array(HEADER_BYTES + prefixBytes + runBytes + pages * PAGE);
  const header = new Uint32Array(bytes.buffer, 0, HEADER_BYTES / 4);
  header.set([MAGIC, PAGE, prefixBytes, memory.length, runs.length]);
  bytes.set(full.subarray(0, prefixBytes), HEADER_BYTES);
  const runWords = new Uint32Array(bytes.buffer, HEADER_BYTES + prefixBytes, runs.length * 2);
  let at = HEADER_BYTES + prefixBytes + runBytes;
  runs.forEach(([first, count], i) => {
    runWords[2 * i] = first;
    runWords[2 * i + 1] = count;
    const chunk = memory.subarray(first * PAGE, Math.min((first + count) * PAGE, memory.length));
    bytes.set(chunk, at);
    at += count * PAGE;
  });
  return { bytes, memoryBytes: memory.length, pages };
}

function readHeader(bytes) {
  if (!(bytes instanceof Uint8Array) || bytes.byteLength < HEADER_BYTES || bytes.byteOffset % 4) {
    throw new Error("not a sparse snapshot");
  }
  const [magic, page, prefixBytes, memoryBytes, runCount] = new Uint32Array(bytes.buffer, bytes.byteOffset, 5);
  if (magic !== MAGIC || page !== PAGE) throw new Error("not a sparse snapshot");
  const runsAt = HEADER_BYTES + prefixBytes;
  if (prefixBytes % 16 || runsAt + runCount * 8 > bytes.byteLength) throw new Error("the snapshot is cut short");
  const runs = new Uint32Array(bytes.buffer, bytes.byteOffset + runsAt, runCount * 2);
  let pages = 0;
  for (let i = 0; i < runCount; i += 1) {
    if ((runs[2 * i] + runs[2 * i + 1]) * PAGE > memoryBytes + PAGE - 1) throw new Error("the snapshot is damaged");
    pages += runs[2 * i + 1];
  }
  if (runsAt + runCount * 8 + pages * PAGE !== bytes.byteLength) throw new Error("the snapshot is cut short");
  return { prefixBytes, memoryBytes, runCount, runsAt };
}

// Whether `bytes` looks like a sparse snapshot (its header only).
export function isSparseSnapshot(bytes) {
  try {
    readHeader(bytes);
    return true;
  } catch (err) {
    return false;
  }
}

// A stand-in for loadPyodide's _loadSnapshot option: it only has to be there (restoringSparse
// gives the real one).
export const SNAPSHOT_TO_COME = new Uint8Array(16);

// Wrap Pyodide's module factory (createPyodideModule) so that loadPyodide({_loadSnapshot:
// SNAPSHOT_TO_COME}) restores the sparse snapshot `snapshot` (or a promise of it): the module
// is created (WebAssembly instantiated, the runtime set up) with `memoryBytes` of memory while
// the snapshot may still be on its way; then Pyodide checks and reads its own header and state
// from the prefix, and only the non-zero pages are copied in (a page that start-up wrote to
// and the snapshot has empty is cleared).
export function restoringSparse(createModule, snapshot, memoryBytes) {
  return async (settings) => {
    settings.INITIAL_MEMORY = memoryBytes;
    const module = await createModule(settings);
    const sparse = await snapshot;
    const header = readHeader(sparse);
    const restoreWhole = module.API.restoreSnapshot;
    module.API.restoreSnapshot = () => {
      const { prefixBytes, runCount, runsAt } = header;
      const trampoline = keepTrampoline(module);
      // Pyodide's checks (magic, build id) and state, from its prefix with no memory after it
      const state = restoreWhole(sparse.slice(HEADER_BYTES, HEADER_BYTES + prefixBytes));
      if (module.HEAPU8.length < header.memoryBytes) module.growMemory(header.memoryBytes);
      const heap = module.HEAPU8;
      const words = module.HEAPU32;
      if (heap.length < header.memoryBytes) throw new Error("the memory is smaller than the snapshot");
      const runs = new Uint32Array(sparse.buffer, sparse.byteOffset + runsAt, runCount * 2);
      let at = runsAt + runCount * 8;
      let cleared = 0; // the first byte not yet known to match the snapshot
      for (let i = 0; i < runCount; i += 1) {
        const first = runs[2 * i] * PAGE;
        const length = Math.min(runs[2 * i + 1] * PAGE, header.memoryBytes - first);
        clearIfWritten(words, cleared, first);
        heap.set(sparse.subarray(at, at + length), first);
        at += runs[2 * i + 1] * PAGE;
        cleared = first + length;
      }
      clearIfWritten(words, cleared, heap.length);
      trampoline.restore();
      module.API.restoreSnapshot = restoreWhole; // and the snapshot is no longer held here
      return state;
    };
    return module;
  };
}

// CPython calls functions through a trampoline that it picks as it starts, by what this
// JavaScript engine can do (one in WebAssembly where the engine allows it, else one in
// JavaScript, slower, and which JSPI cannot suspend through), and keeps in its memory. A
// snapshot made elsewhere (under Node, at build time) holds that engine's pick: put this
// one's back after the snapshot is copied in.
function keepTrampoline(module) {
  const offsetAt = module.__PyEM_EMSCRIPTEN_TRAMPOLINE_OFFSET;
  const runtime = module.__PyRuntime;
  if (!Number.isInteger(offsetAt) || !Number.isInteger(runtime)) return { restore() {} };
  const at = (runtime + module.HEAP32[offsetAt >>> 2]) >>> 2;
  const mine = module.HEAP32[at];
  return { restore() { module.HEAP32[at] = mine; } };
}

// The memory a sparse snapshot restores into, in bytes.
export function snapshotMemoryBytes(sparse) {
  return readHeader(sparse).memoryBytes;
}

// Zero the pages of bytes [from, to) (page-aligned) of the memory's words that are not all
// zero already. Reading a page the process never wrote costs no memory; writing zeros would.
function clearIfWritten(words, from, to) {
  for (let page = from / 4; page < to / 4; page += PAGE / 4) {
    const end = Math.min(page + PAGE / 4, to / 4);
    for (let i = page; i < end; i += 1) {
      if (words[i] !== 0) {
        words.fill(0, page, end);
        break;
      }
    }
  }
}
