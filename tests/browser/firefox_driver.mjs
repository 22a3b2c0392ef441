// Drives one Firefox for the Python tests (tests/browser/firefox_page.py) over Marionette, the
// WebDriver classic protocol Firefox has built in (no geckodriver, no BiDi): one JSON command a
// line on stdin, one JSON answer a line on stdout ({id, ok, value} or {id, ok: false, error});
// stderr is the browser's and this script's own noise. Commands (each names its page by the id "open" gave):
//   open {url, fresh?}      a new tab (fresh: a private window, its storage apart from the others')
//   evaluate {page, expression, arg?, frame?}   the expression's value (a function, if arg is
//                           given, is called with it); promises are awaited; in the page's first
//                           frame whose URL contains `frame`, if given
//   click {page, selector} | fill {page, selector, text} | select {page, selector, value}
//   errors {page}           the page's uncaught errors (and unhandled rejections) since it loaded
//   screenshot {page, path} | close {page} | quit
// Not WebDriver BiDi (puppeteer-core drove it so until 2026-11-28): every BiDi session makes the
// Remote Agent listen to the worker debugger manager in each content process, and with a
// listener there a Worker's `new Worker()` (the controller starting bot Workers) sometimes never
// returns (docs/testing.md, Browsers). Marionette adds no such listener.
// Nothing here downloads a browser: the executable is Debian's firefox-esr (or $KOTH_FIREFOX).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Firefox, on a profile of its own; Marionette picks a free port (0) and writes it down in the
// profile (MarionetteActivePort). Marionette sets its recommended automation prefs itself.
const profile = mkdtempSync(join(tmpdir(), "koth-firefox-"));
writeFileSync(join(profile, "user.js"), [
  ["marionette.port", 0],
  ["browser.shell.checkDefaultBrowser", false],
  ["datareporting.policy.dataSubmissionEnabled", false],
  ["browser.startup.homepage_override.mstone", "ignore"],
  ["browser.tabs.warnOnClose", false],
].map(([k, v]) => `user_pref(${JSON.stringify(k)}, ${JSON.stringify(v)});\n`).join(""));
const firefox = spawn(process.env.KOTH_FIREFOX || "/usr/bin/firefox-esr",
  ["--headless", "--marionette", "--no-remote", "--profile", profile], { stdio: ["ignore", "ignore", "inherit"] });
let firefoxExited = false;
firefox.on("exit", () => { firefoxExited = true; });

function cleanUp() {
  if (!firefoxExited) firefox.kill();
  try { rmSync(profile, { recursive: true, force: true }); } catch { /* Firefox may still be writing */ }
}

async function connect() {
  for (let i = 0; i < 600 && !firefoxExited; i++) { // 60 s, at a load of 30
    let port = null;
    try { port = Number(readFileSync(join(profile, "MarionetteActivePort"), "utf8").trim()); } catch { /* not yet */ }
    if (port) {
      try {
        return await new Promise((resolve, reject) => {
          const socket = net.connect(port, "127.0.0.1", () => resolve(socket));
          socket.once("error", reject);
        });
      } catch { /* not listening yet */ }
    }
    await sleep(100);
  }
  throw new Error("Firefox's Marionette did not start");
}

// Marionette's framing: `<byte length>:<JSON>`; a command is [0, id, name, params], its answer
// [1, id, error, result]; the first packet is the server's hello.
const socket = await connect();
let received = Buffer.alloc(0);
let hello = null;
const waiting = new Map();
let nextMessage = 1;
socket.on("data", (chunk) => {
  received = Buffer.concat([received, chunk]);
  for (;;) {
    const colon = received.indexOf(":");
    if (colon < 0) return;
    const size = Number(received.subarray(0, colon).toString());
    if (received.length < colon + 1 + size) return;
    const packet = JSON.parse(received.subarray(colon + 1, colon + 1 + size).toString("utf8"));
    received = received.subarray(colon + 1 + size);
    if (!Array.isArray(packet)) {
      if (hello) hello(packet);
      continue;
    }
    const entry = waiting.get(packet[1]);
    if (!entry) continue;
    waiting.delete(packet[1]);
    if (packet[2]) entry.reject(new Error(`${entry.name}: ${packet[2].error}: ${packet[2].message}`));
    else entry.resolve(packet[3]);
  }
});
socket.on("close", () => {
  for (const entry of waiting.values()) entry.reject(new Error("Marionette closed the connection"));
  waiting.clear();
});
await new Promise((resolve) => { hello = resolve; });

function send(name, params = {}) {
  const id = nextMessage++;
  const text = JSON.stringify([0, id, name, params]);
  return new Promise((resolve, reject) => {
    waiting.set(id, { name, resolve, reject });
    socket.write(`${Buffer.byteLength(text)}:${text}`);
  });
}

const session = await send("WebDriver:NewSession", { pageLoadStrategy: "normal" });
const caps = session.capabilities || {};
// As puppeteer's: an evaluate may wait for the page's Python on a loaded machine.
await send("WebDriver:SetTimeouts", { script: 600_000, pageLoad: 120_000, implicit: 0 });
// The window Firefox opened with: never closed (Marionette's session would end with its last
// window), not private; the first page, and each page once the home one is closed, goes there.
const home = (await send("WebDriver:GetWindowHandle")).value;
let homeFree = true;
// Marionette answers an array as it is, anything else but an object as {value}.
const list = (answer) => (Array.isArray(answer) ? answer : answer.value || []);

const pages = new Map();
let nextPage = 0;
let current = null; // the window Marionette's commands go to

// The page's window, at its top frame, as where Marionette's next commands go.
async function enter(id) {
  const entry = get(id);
  if (current !== entry.handle) {
    await send("WebDriver:SwitchToWindow", { handle: entry.handle, focus: true });
    current = entry.handle;
  }
  await send("WebDriver:SwitchToFrame", {});
  return entry;
}

// The page's uncaught errors, kept (in window.__kothDriverErrors) by listeners added once the
// page has loaded (Marionette has no event for them): errors before that are not seen.
const WATCH_ERRORS = `
  if (!window.__kothDriverErrors) {
    const errors = window.__kothDriverErrors = [];
    window.addEventListener("error", (e) => errors.push(String(e.error && e.error.message || e.message)));
    window.addEventListener("unhandledrejection", (e) => errors.push(String(e.reason && e.reason.message || e.reason)));
  }
  return true;`;

// Runs `body` (code that ends by calling done(value)) in the current frame, in Marionette's
// sandbox of the page (it sees the page's own objects, and the page's CSP does not apply).
// The value comes back as JSON text, as puppeteer's evaluate returns values.
async function run(body) {
  const script = `
    const resolve = arguments[arguments.length - 1];
    const done = (value) => resolve({ ok: true, json: value === undefined ? null : JSON.stringify(value) });
    const fail = (err) => resolve({ ok: false, error: String(err) + (err && err.stack ? " at " + err.stack : "") });
    try { ${body} } catch (err) { fail(err); }`;
  const { value } = await send("WebDriver:ExecuteAsyncScript", { script, args: [] });
  if (!value.ok) throw new Error(value.error);
  return value.json === null || value.json === undefined ? null : JSON.parse(value.json);
}

// The first frame (depth first) whose document URL contains `part`, entered; false if none.
async function enterFrame(part, depth = 0) {
  const frames = list(await send("WebDriver:FindElements", { using: "css selector", value: "iframe, frame" }));
  for (const ref of frames) {
    const uuid = Object.values(ref)[0];
    try {
      await send("WebDriver:SwitchToFrame", { element: uuid });
    } catch { continue; }
    const url = await run("done(document.URL)");
    if (String(url).includes(part)) return true;
    if (depth < 3 && await enterFrame(part, depth + 1)) return true;
    await send("WebDriver:SwitchToParentFrame");
  }
  return false;
}

async function find(selector) {
  const { value } = await send("WebDriver:FindElement", { using: "css selector", value: selector });
  return Object.values(value)[0];
}

const commands = {
  async open({ url, fresh }) {
    let handle = home;
    if (fresh || !homeFree) {
      // Opened from the home window: a new window or tab takes the private mode of the window
      // it is opened from, unless asked for a private one.
      await send("WebDriver:SwitchToWindow", { handle: home, focus: true });
      const opened = await send("WebDriver:NewWindow", fresh ? { type: "window", private: true } : { type: "tab" });
      handle = opened.handle;
    } else {
      homeFree = false;
    }
    await send("WebDriver:SwitchToWindow", { handle, focus: true });
    current = handle;
    await send("WebDriver:SetWindowRect", { width: 1280, height: 1000 }).catch(() => null);
    await send("WebDriver:Navigate", { url });
    await run(`done((() => { ${WATCH_ERRORS} })())`);
    const id = ++nextPage;
    pages.set(id, { handle });
    return id;
  },
  async evaluate({ page, expression, arg, frame }) {
    const text = arg === undefined ? expression : `(${expression})(${JSON.stringify(arg)})`;
    await enter(page);
    if (frame && !(await enterFrame(frame))) throw new Error(`no frame whose URL contains ${frame}`);
    try {
      return await run(`Promise.resolve().then(() => (${text}\n)).then(done, fail);`);
    } finally {
      if (frame) await send("WebDriver:SwitchToFrame", {});
    }
  },
  async click({ page, selector }) {
    await enter(page);
    await send("WebDriver:ElementClick", { id: await find(selector) });
    return null;
  },
  async fill({ page, selector, text }) {
    await enter(page);
    const id = await find(selector);
    await send("WebDriver:ElementClear", { id });
    await send("WebDriver:ElementSendKeys", { id, text: String(text) });
    await run(`document.querySelector(${JSON.stringify(selector)}).dispatchEvent(new Event("change", { bubbles: true })); done(null);`);
    return null;
  },
  async select({ page, selector, value }) {
    await enter(page);
    return await run(`
      const el = document.querySelector(${JSON.stringify(selector)});
      if (!el || el.localName !== "select") throw new Error("not a <select>: " + ${JSON.stringify(selector)});
      el.value = ${JSON.stringify(String(value))};
      el.dispatchEvent(new Event("input", { bubbles: true }));
      el.dispatchEvent(new Event("change", { bubbles: true }));
      done(el.value === ${JSON.stringify(String(value))} ? [el.value] : []);`);
  },
  async errors({ page }) {
    await enter(page);
    return await run("done(window.__kothDriverErrors ? [...window.__kothDriverErrors] : [])");
  },
  async screenshot({ page, path }) {
    await enter(page);
    const { value } = await send("WebDriver:TakeScreenshot", { full: true, hash: false });
    writeFileSync(path, Buffer.from(value, "base64"));
    return path;
  },
  async close({ page }) {
    const entry = await enter(page);
    pages.delete(page);
    if (entry.handle === home) {
      await send("WebDriver:Navigate", { url: "about:blank" });
      homeFree = true;
    } else {
      await send("WebDriver:CloseWindow");
      await send("WebDriver:SwitchToWindow", { handle: home, focus: true }); // commands need a window
      current = home;
    }
    return null;
  },
  async quit() {
    await Promise.race([send("Marionette:Quit", { flags: ["eForceQuit"] }).catch(() => null), sleep(10_000)]);
    setImmediate(() => { cleanUp(); process.exit(0); });
    return null;
  },
};

function get(id) {
  const entry = pages.get(id);
  if (!entry) throw new Error(`no page ${id}`);
  return entry;
}

function answer(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

answer({ id: 0, ok: true, value: `${caps.browserName || "firefox"}/${caps.browserVersion || "?"}` });

// One command at a time, in order: the tests are sequential.
let queue = Promise.resolve();
createInterface({ input: process.stdin }).on("line", (line) => {
  queue = queue.then(async () => {
    let message;
    try {
      message = JSON.parse(line);
      const run = commands[message.op];
      if (!run) throw new Error(`unknown command ${message.op}`);
      answer({ id: message.id, ok: true, value: (await run(message)) ?? null });
    } catch (err) {
      answer({ id: message && message.id, ok: false, error: String(err && err.stack || err).slice(0, 4000) });
    }
  });
}).on("close", () => {
  queue.then(() => commands.quit()).catch(() => null).finally(() => { cleanUp(); process.exit(0); });
});
