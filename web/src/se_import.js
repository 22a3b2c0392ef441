// Entries from the answers posted on a Stack Exchange question (issue 9, item 5).
//
// The page fetches the answers from the public API (api.stackexchange.com, version 2.3:
// /questions/{id}/answers with filter=withbody, paged with page/pagesize/has_more) and the
// engine reads them in the controller Worker (engine/contest/stackexchange.py, through the
// "se-question" and "se-parse" requests): the question from a number or URL, and per answer
// its bot name, language, code, author and link, or why it is not an entry. Nothing here
// parses an answer. The API's `backoff` (seconds before the same method may be called again)
// is honoured across imports; `quota_remaining` is shown; an error response (a throttle, a
// bad request) or a network failure ends the import with what the earlier pages gave.
//
// StackExchangeImport does the fetching (the page's dialog below and the Stack Snippet both
// use it); ImportDialog is the page's dialog.

const MAX_PAGES = 10; // 1,000 answers: the engine reads no more
const LOW_QUOTA = 20; // below this many requests left today, the status says so
const ANSWER_LIMIT_MS = 60_000; // the controller reads 1,000 answers in well under this
let backoffUntil = 0; // performance.now() before which the answers method must not be called

export class StackExchangeImport {
  // send(message): to the controller Worker. fetchImpl: fetch (tests and the snippet may pass
  // their own). Replies come back through onMessage.
  constructor({ send, fetchImpl = null }) {
    this.send = send;
    this.fetch = fetchImpl || ((url, options) => fetch(url, options));
    this.pending = new Map(); // request id -> resolve
    this.nextId = 0;
  }

  // A controller message; true when it was a reply to this importer.
  onMessage(m) {
    if (!m || (m.type !== "se-question" && m.type !== "se-parsed")) return false;
    const resolve = this.pending.get(m.id);
    if (resolve) {
      this.pending.delete(m.id);
      resolve(m);
    }
    return true;
  }

  // A request to the controller; a reply that never comes (its Worker was replaced) is an error.
  ask(message) {
    const id = `se-${++this.nextId}`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.onMessage({ type: "se-parsed", id, error: "Python did not answer" }),
        ANSWER_LIMIT_MS);
      this.pending.set(id, (reply) => { clearTimeout(timer); resolve(reply); });
      this.send({ ...message, id });
    });
  }

  // The whole import: {question: {site, question, web}, entries, problems, error, quota,
  // pages}. `error` is a request's failure (the entries are those of the pages before it).
  // onStatus(text) reports each step; `signal` (an AbortSignal) stops it.
  async run(text, site, { onStatus = () => {}, signal = null } = {}) {
    onStatus("Reading the question…");
    const question = await this.ask({ type: "se-question", text, site });
    if (typeof question.error === "string") return { question: null, entries: [], problems: [], error: question.error };
    const items = [];
    let error = null;
    let quota = null;
    let page = 1;
    for (; page <= MAX_PAGES; page += 1) {
      const wait = backoffUntil - performance.now();
      if (wait > 0) {
        onStatus(`Waiting ${Math.ceil(wait / 1000)} s: the Stack Exchange API asked for a pause between requests…`);
        if (!(await pause(wait, signal))) return stopped(question, items.length);
      }
      const url = new URL(question.url);
      url.searchParams.set("page", String(page));
      onStatus(`Fetching answers, page ${page}… (${items.length} so far)`);
      const reply = await this.page(url.href, signal);
      if (reply.aborted) return stopped(question, items.length);
      if (reply.error) {
        error = page === 1 ? reply.error : `page ${page}: ${reply.error} (the answers of the pages before it are listed)`;
        break;
      }
      const data = reply.data;
      items.push(...data.items);
      if (Number.isInteger(data.quota_remaining)) quota = data.quota_remaining;
      if (Number.isFinite(data.backoff) && data.backoff > 0) {
        backoffUntil = performance.now() + Math.min(data.backoff, 3600) * 1000;
      }
      if (data.has_more !== true) break;
      if (page === MAX_PAGES) error = `the question has more than ${MAX_PAGES * 100} answers: the first ${items.length} are read`;
    }
    onStatus(`Reading ${items.length} answer${items.length === 1 ? "" : "s"}…`);
    const parsed = items.length ? await this.ask({ type: "se-parse", items, site: question.site })
      : { entries: [], problems: [] };
    if (typeof parsed.error === "string") error = error ? `${error}; ${parsed.error}` : parsed.error;
    return { question, entries: parsed.entries || [], problems: parsed.problems || [], error, quota,
      pages: Math.min(page, MAX_PAGES), answers: items.length };
  }

  // One API page: {data} (items checked to be a list), {error}, or {aborted}.
  async page(url, signal) {
    let response;
    try {
      response = await this.fetch(url, { signal, credentials: "omit" });
    } catch (err) {
      if (signal && signal.aborted) return { aborted: true };
      return { error: `could not reach api.stackexchange.com (${String(err && err.message || err).slice(0, 200)})` };
    }
    let data = null;
    try {
      data = await response.json();
    } catch (err) {
      if (signal && signal.aborted) return { aborted: true };
      return { error: `the API answered HTTP ${response.status} with something that is not JSON` };
    }
    if (data && typeof data === "object" && data.error_id !== undefined) {
      const name = String(data.error_name ?? "error").slice(0, 100);
      const message = String(data.error_message ?? "").slice(0, 300);
      return { error: `the API refused (${name}, HTTP ${response.status}): ${message}` };
    }
    if (!response.ok) return { error: `the API answered HTTP ${response.status}` };
    if (!data || !Array.isArray(data.items)) return { error: "the API's answer has no list of items" };
    return { data };
  }
}

function stopped(question, count) {
  return { question, entries: [], problems: [], error: `stopped after ${count} answers: nothing was added`, aborted: true };
}

// Resolves true after `ms`, or false as soon as `signal` aborts.
function pause(ms, signal) {
  return new Promise((resolve) => {
    if (signal && signal.aborted) return resolve(false);
    const timer = setTimeout(() => resolve(true), ms);
    if (signal) signal.addEventListener("abort", () => { clearTimeout(timer); resolve(false); }, { once: true });
  });
}

const LANGUAGE_LABELS = { python3: "Python 3", python2: "Python 2" };

// The page's dialog: question and site, Fetch, a status line, the list of answers (each an
// entry to add or its problem), and Add. `addEntries(list)` adds them to the challenge and
// returns how many were added (challenge_model.js); `ready()` says whether Python is ready.
export class ImportDialog {
  constructor({ importer, addEntries, ready }) {
    const $ = (id) => document.getElementById(id);
    this.els = {
      dialog: $("se-import"), form: $("se-import-form"), question: $("se-question"), site: $("se-site"),
      fetch: $("se-fetch"), stop: $("se-stop"), status: $("se-status"), error: $("se-error"),
      results: $("se-results"), add: $("se-add"), close: $("se-close"), open: $("se-import-open"),
    };
    this.importer = importer;
    this.addEntries = addEntries;
    this.ready = ready;
    this.found = [];
    this.abort = null;
    const { els } = this;
    els.open.addEventListener("click", () => this.open());
    els.form.addEventListener("submit", (e) => { e.preventDefault(); this.fetchAnswers(); });
    els.stop.addEventListener("click", () => { if (this.abort) this.abort.abort(); });
    els.add.addEventListener("click", () => this.add());
    els.close.addEventListener("click", () => els.dialog.close());
    els.dialog.addEventListener("close", () => { if (this.abort) this.abort.abort(); els.open.focus(); });
  }

  open() {
    this.els.dialog.showModal();
    this.els.question.focus();
  }

  status(text) { this.els.status.textContent = text; }

  showError(text) {
    this.els.error.textContent = text || "";
    this.els.error.hidden = !text;
  }

  async fetchAnswers() {
    const { els } = this;
    const text = els.question.value.trim();
    if (!text) {
      this.showError("Enter the question's number or its URL.");
      els.question.focus();
      return;
    }
    if (!this.ready()) {
      this.showError("Python is still starting: the answers are read by the engine. Try again in a moment.");
      return;
    }
    this.showError("");
    this.found = [];
    els.results.replaceChildren();
    els.add.disabled = true;
    els.fetch.disabled = true;
    els.stop.disabled = false;
    this.abort = new AbortController();
    let result;
    try {
      result = await this.importer.run(text, els.site.value.trim() || "codegolf",
        { onStatus: (t) => this.status(t), signal: this.abort.signal });
    } finally {
      this.abort = null;
      els.fetch.disabled = false;
      els.stop.disabled = true;
    }
    this.show(result);
  }

  show(result) {
    const { els } = this;
    if (!result.question) {
      this.showError(`Could not import: ${result.error}.`);
      this.status("Nothing was read.");
      return;
    }
    if (result.error) this.showError(`Could not read every answer: ${result.error}.`);
    this.found = result.entries;
    for (const e of result.entries) els.results.append(this.item(e, `${LANGUAGE_LABELS[e.language] || e.language}: will be added`, false));
    for (const p of result.problems) {
      const what = p.kind === "native-only" ? `native only — ${p.reason}` : p.reason;
      els.results.append(this.item(p, what, true));
    }
    const quota = Number.isInteger(result.quota)
      ? ` The API allows ${result.quota} more request${result.quota === 1 ? "" : "s"} today from this address${
        result.quota < LOW_QUOTA ? " (nearly none left: try again tomorrow if an import fails)" : ""}.` : "";
    const n = result.entries.length;
    this.status(`${result.answers || 0} answer${result.answers === 1 ? "" : "s"} read: ${n} entr${n === 1 ? "y" : "ies"} `
      + `to add, ${result.problems.length} not added.${quota}`);
    els.add.disabled = n === 0;
  }

  item(entry, note, problem) {
    const li = document.createElement("li");
    li.className = problem ? "se-problem" : "se-entry";
    const name = document.createElement("strong");
    name.textContent = entry.name || `answer ${entry.answer_id ?? ""}`.trim();
    li.append(name);
    if (entry.author) li.append(` by ${entry.author}`);
    li.append(` — ${note} `);
    if (entry.link) {
      const a = document.createElement("a");
      a.href = entry.link;
      a.target = "_blank";
      a.rel = "noopener noreferrer";
      a.textContent = "(answer)";
      a.setAttribute("aria-label", `${name.textContent}: the answer on the site`);
      li.append(a);
    }
    return li;
  }

  add() {
    if (!this.found.length) return;
    const added = this.addEntries(this.found.map(({ name, author, code, language, link }) => ({
      name, author, code, language, link,
    })));
    const left = this.found.length - added;
    this.status(`Added ${added} entr${added === 1 ? "y" : "ies"} to the challenge${left > 0 ? `; ${left} did not fit (at most 32 entries)` : ""}.`);
    this.found = [];
    this.els.add.disabled = true;
  }
}
