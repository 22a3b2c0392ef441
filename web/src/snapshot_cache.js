// The Python memory snapshot kept between visits (Cache Storage), so a warm page load
// starts every interpreter from it instead of booting Pyodide afresh.
//
// Cache Storage is reachable from any same-origin Worker, bots' included, so a stored
// snapshot is only trusted if its SHA-256 matches the digest the page keeps in
// localStorage, which no Worker can reach. The build id (config.json) ties a snapshot to
// one engine and one Pyodide release.
const CACHE_NAME = "koth-arena-python";

function keyFor(buildId) {
  return new URL(`python-snapshot-${buildId}.bin`, self.location.href).href;
}

async function sha256Hex(bytes) {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

// The stored snapshot for this build if it is intact, else null.
export async function loadSnapshot(buildId, expected) {
  if (!buildId || !expected || expected.buildId !== buildId || !self.caches) return null;
  try {
    const cache = await caches.open(CACHE_NAME);
    const response = await cache.match(keyFor(buildId));
    if (!response) return null;
    const bytes = new Uint8Array(await response.arrayBuffer());
    if ((await sha256Hex(bytes)) === expected.digest) return bytes;
    await cache.delete(keyFor(buildId));
  } catch (err) {
    // no usable cache: start Pyodide the ordinary way
  }
  return null;
}

// Store a snapshot (dropping older builds'); returns {buildId, digest} for the page to
// keep, or null.
export async function storeSnapshot(buildId, bytes) {
  if (!buildId || !self.caches) return null;
  try {
    const digest = await sha256Hex(bytes);
    const cache = await caches.open(CACHE_NAME);
    for (const request of await cache.keys()) {
      if (request.url !== keyFor(buildId)) await cache.delete(request);
    }
    await cache.put(keyFor(buildId), new Response(bytes));
    return { buildId, digest };
  } catch (err) {
    return null; // e.g. storage full or disabled: the next visit boots Pyodide again
  }
}
