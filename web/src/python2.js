// A bot panel's language: Python 3 or Python 2 (an answer posted in 2015, run as posted).
// The choice is saved with the bot and carried by share links; choosing it never changes the
// code. When the code looks like Python 2 (it does not compile as Python 3 but converts, or
// uses raw_input, xrange, ...), a one-click suggestion appears. The converted code and a
// diff are shown read-only. Every check runs in Python, in the controller Worker (web/main.py
// python2_view, engine/bots/python2.py), and every conversion in its conversion Worker
// (controller_worker.js convertPython2): this module only shows them.

export const PYTHON2 = "python2";
export const PYTHON3 = "python3";
const CHECK_DELAY_MS = 600; // after the last keystroke

let nextRequest = 0;
const waiting = new Map(); // request id -> the panel that asked

// A controller message {type: "python2", id, ...}: true when it was one.
export function onPython2Message(m) {
  if (!m || m.type !== "python2") return false;
  const panel = waiting.get(m.id);
  waiting.delete(m.id);
  if (panel) panel.answer(m);
  return true;
}

export function languageOf(bot) {
  return bot && bot.language === PYTHON2 ? PYTHON2 : PYTHON3;
}

// What a saved or shared bot carries: {language: "python2"} for a Python 2 answer, nothing for
// Python 3 (so Python 3 bots are saved and shared exactly as before the language existed).
export function languageField(bot) {
  return languageOf(bot) === PYTHON2 ? { language: PYTHON2 } : {};
}

export class Python2Panel {
  // root: the bot panel; n: its number; getCode(); getLanguage(); setLanguage(language);
  // send(message): posts to the controller Worker (false when it is not there yet).
  constructor({ root, n, getCode, getLanguage, setLanguage, send }) {
    this.getCode = getCode;
    this.getLanguage = getLanguage;
    this.setLanguage = setLanguage;
    this.send = send;
    this.timer = null;
    this.latest = null; // id of the request whose answer is wanted
    this.select = root.querySelector(".bot-language");
    this.select.id = `bot${n}-language`;
    const label = root.querySelector(".language-label");
    label.htmlFor = this.select.id;
    label.textContent = `Bot ${n} language`;
    this.hint = root.querySelector(".py2-hint");
    this.hintText = root.querySelector(".py2-hint-text");
    this.useButton = root.querySelector(".py2-use");
    this.useButton.setAttribute("aria-label", `Run as Python 2 (Bot ${n})`);
    this.details = root.querySelector(".py2-converted");
    this.status = root.querySelector(".py2-status");
    this.converted = root.querySelector(".py2-code");
    this.converted.setAttribute("aria-label", `Bot ${n} code converted to Python 3 (read-only)`);
    this.diff = root.querySelector(".py2-diff");
    this.diff.setAttribute("aria-label", `Bot ${n} diff from the posted code to the converted code`);
    this.select.addEventListener("change", () => this.choose(this.select.value));
    this.useButton.addEventListener("click", () => {
      this.choose(PYTHON2);
      this.select.focus();
    });
    this.details.addEventListener("toggle", () => { if (this.details.open) this.check(); });
    this.show();
  }

  choose(language) {
    this.setLanguage(language === PYTHON2 ? PYTHON2 : PYTHON3);
    this.show();
  }

  // The panel's bot changed (another game's bots, a shared link, a restore): show its language.
  show() {
    const language = this.getLanguage();
    this.select.value = language;
    this.details.hidden = language !== PYTHON2;
    if (language === PYTHON2) this.hint.hidden = true;
    this.check();
  }

  // The code changed: check it again once the typing stops.
  codeChanged() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.check(), CHECK_DELAY_MS);
  }

  check() {
    clearTimeout(this.timer);
    const code = this.getCode();
    const convert = this.getLanguage() === PYTHON2 && this.details.open;
    if (!code.trim()) {
      this.hint.hidden = true;
      return;
    }
    const id = `py2-${++nextRequest}`;
    if (!this.send({ type: "python2", id, code, convert })) return; // asked again when Python is ready
    this.latest = id;
    waiting.set(id, this);
    if (convert) this.status.textContent = "Converting…";
  }

  answer(m) {
    if (m.id !== this.latest) return; // an older request's answer
    const python2 = this.getLanguage() === PYTHON2;
    this.hint.hidden = python2 || typeof m.reason !== "string";
    if (!this.hint.hidden) this.hintText.textContent = `This looks like Python 2: ${m.reason}.`;
    if (!python2 || !this.details.open) return;
    if (typeof m.error === "string") {
      this.status.textContent = `It does not convert: ${m.error}`;
      this.converted.textContent = "";
      this.diff.replaceChildren();
      return;
    }
    if (typeof m.converted !== "string") return;
    this.status.textContent = "The code as it runs (converted by fissix; / between integers floors as in "
      + "Python 2). Errors name the lines of the code above.";
    this.converted.textContent = m.converted;
    this.diff.replaceChildren(...diffLines(typeof m.diff === "string" ? m.diff : ""));
  }
}

function diffLines(text) {
  if (!text) {
    const same = document.createElement("span");
    same.textContent = "(no change: the code is the same in Python 3)";
    return [same];
  }
  return text.split("\n").map((line) => {
    const span = document.createElement("span");
    span.className = line.startsWith("+") && !line.startsWith("+++") ? "added"
      : line.startsWith("-") && !line.startsWith("---") ? "removed" : "context";
    span.textContent = `${line}\n`;
    return span;
  });
}
