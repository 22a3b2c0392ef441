// A bot's console: a role=log element fed with the bot's prints, errors and faults.

export const MAX_LINES = 2000;

export class BotConsole {
  constructor(el) {
    this.el = el;
    this.count = 0;
    this.queue = [];
    this.scheduled = false;
  }

  clear() {
    this.queue = [];
    this.el.replaceChildren();
    this.count = 0;
  }

  // stream: stdout | stderr | fault | error | info
  write(stream, text, line = null) {
    let t = String(text ?? "");
    if (t.endsWith("\n")) t = t.slice(0, -1);
    const parts = t.split("\n");
    parts.forEach((p, k) => {
      const prefix = k === 0 && line !== null && line !== undefined ? `line ${line}: ` : "";
      this.queue.push([stream, prefix + p]);
    });
    if (this.queue.length > MAX_LINES) this.queue.splice(0, this.queue.length - MAX_LINES);
    if (!this.scheduled) {
      this.scheduled = true;
      requestAnimationFrame(() => this.flush());
    }
  }

  flush() {
    this.scheduled = false;
    if (!this.queue.length) return;
    const stick = this.el.scrollTop + this.el.clientHeight >= this.el.scrollHeight - 4;
    const frag = document.createDocumentFragment();
    for (const [stream, text] of this.queue) {
      const d = document.createElement("div");
      d.className = `line ${stream}`;
      d.textContent = text === "" ? "\u00a0" : text;
      frag.append(d);
    }
    this.count += this.queue.length;
    this.queue = [];
    this.el.append(frag);
    while (this.count > MAX_LINES && this.el.firstChild) {
      this.el.firstChild.remove();
      this.count--;
    }
    if (stick) this.el.scrollTop = this.el.scrollHeight;
  }
}
