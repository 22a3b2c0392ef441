// Persistence (localStorage, key prefix "koth-arena:") and share links (URL hash).
// A write can fail (quota, storage blocked): every save reports to the listener set with
// onSave, so the page can warn that edits are not being kept.

export const PREFIX = "koth-arena:";
export const MAX_NAME_CHARS = 40; // the name field's maxlength

// Inside a Stack Snippet (app.js: globalThis.kothEmbed, set by the snippet's boot script) the
// page has an opaque origin, where localStorage cannot be relied on: what the page saves is
// kept in memory for the visit instead (the snippet's challenge comes with the snippet).
const memory = globalThis.kothEmbed ? new Map() : null;
const inMemory = memory && {
  getItem: (k) => (memory.has(k) ? memory.get(k) : null),
  setItem: (k, v) => { memory.set(k, String(v)); },
  removeItem: (k) => { memory.delete(k); },
};
const backing = () => inMemory || localStorage;

let saveListener = null;
// listener(key, ok, error): called after every save.
export function onSave(listener) { saveListener = listener; }

export function load(key, fallback) {
  try {
    const raw = backing().getItem(PREFIX + key);
    if (raw === null) return fallback;
    return JSON.parse(raw);
  } catch {
    return fallback;
  }
}

export function save(key, value) {
  let error = null;
  try {
    backing().setItem(PREFIX + key, JSON.stringify(value));
  } catch (e) {
    error = e;
  }
  if (saveListener) saveListener(key, error === null, error);
  return error === null;
}

export function remove(key) {
  try {
    backing().removeItem(PREFIX + key);
  } catch {
    // nothing to warn about: the key stays, and is ignored or overwritten later
  }
}

// Debounced saver: schedule(key, () => value); flush() writes everything pending now;
// pending(key) says whether a change to key is not written yet.
export function makeSaver(delayMs = 250) {
  const pending = new Map();
  let timer = null;
  function flush() {
    if (timer !== null) { clearTimeout(timer); timer = null; }
    for (const [key, get] of pending) save(key, get());
    pending.clear();
  }
  function schedule(key, get) {
    pending.set(key, get);
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(flush, delayMs);
  }
  return { schedule, flush, pending: (key) => pending.has(key) };
}

// --- base64url of UTF-8 JSON ---------------------------------------------------------

export function encodeShare(obj) {
  const bytes = new TextEncoder().encode(JSON.stringify(obj));
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function decodeShare(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error("the link is not base64url");
  let b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  while (b64.length % 4) b64 += "=";
  let bin;
  try { bin = atob(b64); } catch { throw new Error("the link is not base64url"); }
  const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  let json;
  try {
    json = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch { throw new Error("the link is not UTF-8"); }
  try { return JSON.parse(json); } catch { throw new Error("the link does not hold JSON"); }
}

// Validates a decoded share object (the game's own bounds are checked by the page, from
// its spec); returns {settings, bots} or throws.
function languageField(bot) {
  return bot.language === "python2" ? { language: "python2" } : {};
}

export function checkShare(obj, games, maxBots) {
  if (!obj || typeof obj !== "object" || Array.isArray(obj)) throw new Error("not an object");
  if (obj.v !== 1) throw new Error("unknown link version");
  const s = obj.settings;
  if (!s || typeof s !== "object") throw new Error("settings are missing");
  if (!games.includes(s.game)) throw new Error(`unknown game ${JSON.stringify(s.game)}`);
  if (!Array.isArray(obj.bots) || obj.bots.length < 1) throw new Error("bots are missing");
  if (obj.bots.length > maxBots) throw new Error(`it has ${obj.bots.length} bots; the page takes at most ${maxBots}`);
  for (const b of obj.bots) {
    if (!b || typeof b.name !== "string" || typeof b.code !== "string") {
      throw new Error("a bot has no name or code");
    }
    if (b.name.length > MAX_NAME_CHARS) throw new Error(`a bot name is longer than ${MAX_NAME_CHARS} characters`);
  }
  if (s.preset !== undefined && typeof s.preset !== "string") throw new Error("the preset is not a name");
  // language: "python2" for a Python 2 answer (absent: Python 3, as in links made before it)
  return { settings: s, bots: obj.bots.map((b) => ({ name: b.name, code: b.code, ...languageField(b) })) };
}
