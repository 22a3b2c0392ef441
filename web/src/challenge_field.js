// A challenge's field as the page keeps it and as a challenge file writes it: the shape of a
// field and its entries, read back from storage (normaliseField, bounded), made unique
// (makeEntry), and written out (entryJson, versionOf). No state: web/src/challenge_model.js
// keeps the fields.

export const FORMAT = "koth-arena-challenge";
export const VERSION = 1; // written unless the challenge needs version 2 (versionOf)
const PYTHON_LANGUAGES = ["python3", "python2"]; // engine/contest/challenge.py LANGUAGES
export const MAX_ENTRIES = 32; // the page's cap (the engine reads files of up to 1,000)
export const MAX_NAME_CHARS = 100; // engine/contest/challenge.py MAX_NAME_CHARS
export const MAX_TITLE_CHARS = 200;
export const MAX_DESCRIPTION_CHARS = 20_000;

export function blank() {
  return { title: "", description: "", question: null, entries: [], open: null };
}

export function normaliseField(raw) {
  const f = blank();
  f.title = typeof raw.title === "string" ? raw.title.slice(0, MAX_TITLE_CHARS) : "";
  f.description = typeof raw.description === "string" ? raw.description.slice(0, MAX_DESCRIPTION_CHARS) : "";
  f.question = questionOf(raw.question);
  for (const e of Array.isArray(raw.entries) ? raw.entries.slice(0, MAX_ENTRIES) : []) {
    if (e && typeof e.name === "string" && typeof e.code === "string") f.entries.push(makeEntry(f, e));
  }
  const open = raw.open === null ? null : f.entries.find((e) => e.id === raw.open);
  f.open = open ? open.id : null;
  return f;
}

export function makeEntry(f, item) {
  const id = f.entries.reduce((m, e) => Math.max(m, e.id), Math.max(0, Number(item.id) || 0)) + 1;
  const keepId = Number.isInteger(item.id) && item.id > 0 && !f.entries.some((e) => e.id === item.id);
  const name = String(item.name || "").trim().slice(0, MAX_NAME_CHARS) || "Entry";
  return {
    id: keepId ? item.id : id,
    name: uniqueName(f, name),
    author: typeof item.author === "string" && item.author ? item.author : null,
    code: String(item.code),
    language: typeof item.language === "string" && item.language ? item.language : null,
    link: typeof item.link === "string" && item.link ? item.link : null,
    enabled: item.enabled !== false,
  };
}

export function uniqueName(f, name) {
  if (!f.entries.some((e) => e.name === name)) return name;
  for (let n = 2; ; n++) {
    const suffix = ` (${n})`;
    const candidate = name.slice(0, MAX_NAME_CHARS - suffix.length) + suffix;
    if (!f.entries.some((e) => e.name === candidate)) return candidate;
  }
}

// An entry as the challenge file has it: optional fields only when set.
export function entryJson(e) {
  const out = { name: e.name };
  if (e.author) out.author = e.author;
  out.code = e.code;
  if (e.language) out.language = e.language;
  if (e.link) out.link = e.link;
  if (!e.enabled) out.enabled = false;
  return out;
}

// Version 2 of the format: a question named, or an entry in another language (a command entry).
export function versionOf(f) {
  const native = f.entries.some((e) => e.language && !PYTHON_LANGUAGES.includes(e.language));
  return f.question || native ? 2 : VERSION;
}

// The file's question ({site, id}, checked by the engine), or null.
export function questionOf(q) {
  return q && typeof q.site === "string" && Number.isInteger(q.id) ? { site: q.site, id: q.id } : null;
}

export function titleOf(f, game) { return f.title.trim() ? f.title : `${game || "KotH"} challenge`; }

export function copyField(f) {
  return { title: f.title, description: f.description, question: f.question, open: null,
    entries: f.entries.map((e) => ({ ...e })) };
}

export function sameField(a, b) {
  const key = (f) => JSON.stringify([f.title, f.description, f.question, f.entries.map(entryJson)]);
  return key(a) === key(b);
}
