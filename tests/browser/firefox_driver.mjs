// Drives one Firefox for the Python tests (tests/browser/firefox_page.py): Playwright cannot drive
// a stock Firefox, puppeteer-core can, over WebDriver BiDi. One JSON command a line on stdin,
// one JSON answer a line on stdout ({id, ok, value} or {id, ok: false, error}); stderr is the
// browser's and this script's own noise. Commands (each names its page by the id "open" gave):
//   open {url, fresh?}      a new page (fresh: in a new browser context, as a new profile)
//   evaluate {page, expression, arg?, frame?}   the expression's value (a function, if arg is
//                           given, is called with it); promises are awaited; in the page's first
//                           frame whose URL contains `frame`, if given
//   click {page, selector} | fill {page, selector, text} | select {page, selector, value}
//   errors {page}           the page's uncaught errors so far
//   screenshot {page, path} | close {page} | quit
// Nothing here downloads a browser: the executable is Debian's firefox-esr (or $KOTH_FIREFOX).
import { createInterface } from "node:readline";
import puppeteer from "puppeteer-core";

const browser = await puppeteer.launch({
  browser: "firefox",
  executablePath: process.env.KOTH_FIREFOX || "/usr/bin/firefox-esr",
  headless: true,
  protocolTimeout: 600_000, // an evaluate may wait for the page's Python on a loaded machine
});

const pages = new Map();
let nextPage = 0;

const commands = {
  async open({ url, fresh }) {
    const context = fresh ? await browser.createBrowserContext() : browser.defaultBrowserContext();
    const page = await context.newPage();
    const entry = { page, context: fresh ? context : null, errors: [] };
    page.on("pageerror", (err) => entry.errors.push(String(err && err.message || err)));
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(url, { waitUntil: "load", timeout: 120_000 });
    const id = ++nextPage;
    pages.set(id, entry);
    return id;
  },
  async evaluate({ page, expression, arg, frame }) {
    const text = arg === undefined ? expression : `(${expression})(${JSON.stringify(arg)})`;
    const p = get(page).page;
    const where = frame ? p.frames().find((f) => f !== p.mainFrame() && f.url().includes(frame)) : p;
    if (!where) throw new Error(`no frame whose URL contains ${frame}`);
    return await where.evaluate(text);
  },
  async click({ page, selector }) {
    await get(page).page.click(selector);
    return null;
  },
  async fill({ page, selector, text }) {
    const p = get(page).page;
    await p.$eval(selector, (el) => { el.value = ""; });
    await p.type(selector, String(text));
    await p.$eval(selector, (el) => el.dispatchEvent(new Event("change", { bubbles: true })));
    return null;
  },
  async select({ page, selector, value }) {
    return await get(page).page.select(selector, value);
  },
  async errors({ page }) {
    return get(page).errors;
  },
  async screenshot({ page, path }) {
    await get(page).page.screenshot({ path, fullPage: true });
    return path;
  },
  async close({ page }) {
    const entry = get(page);
    pages.delete(page);
    await entry.page.close();
    if (entry.context) await entry.context.close();
    return null;
  },
  async quit() {
    await browser.close();
    setImmediate(() => process.exit(0));
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

answer({ id: 0, ok: true, value: await browser.version() });

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
  queue.then(() => browser.close()).finally(() => process.exit(0));
});
