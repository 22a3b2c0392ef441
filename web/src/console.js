// A bot's console: a role=log element fed with the bot's prints, errors and faults. A line
// written with its record and turn starts with a "turn N" button that calls onJump(record,
// turn) (the page takes the viewer there). Text is text: textContent, never markup.

export const MAX_LINES = 2000;

export class BotConsole {
  constructor(el) {
    this.el = el;
    this.count = 0;
    this.queue = [];
    this.scheduled = false;
    this.onJump = null; // (record index, turn) => void
  }

  clear() {
    this.queue = [];
    this.el.replaceChildren();
    this.count = 0;
  }

  // stream: stdout | stderr | fault | error | info; at: [record index, turn] or null
  write(stream, text, line = null, at = null) {
    let t = String(text ?? "");
    if (t.endsWith("\n")) t = t.slice(0, -1);
    const parts = t.split("\n");
    parts.forEach((p, k) => {
      const prefix = k === 0 && line !== null && line !== undefined ? `line ${line}: ` : "";
      this.queue.push([stream, prefix + p, k === 0 ? at : null]);
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
    for (const [stream, text, at] of this.queue) {
      const d = document.createElement("div");
      d.className = `line ${stream}`;
      d.textContent = text === "" ? "\u00a0" : text;
      if (at) d.prepend(this.jumpButton(at[0], at[1]), " ");
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

  jumpButton(record, turn) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "turn-jump";
    b.textContent = turn === 0 ? "start" : `turn ${turn}`;
    b.setAttribute("aria-label", `Show ${turn === 0 ? "the start" : `turn ${turn}`} of game record ${record + 1} on the board`);
    b.addEventListener("click", () => { if (this.onJump) this.onJump(record, turn); });
    return b;
  }
}
