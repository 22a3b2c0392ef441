// The replay viewer: holds the tracks (records) of the series on show, the replay
// controls, the canvas and its legend. Fed either with a whole series (load) or live
// (beginLive / recordStart / addTurns / recordEnd / endLive). What a game looks like is
// its renderer's (web/src/games/<renderer>.js); the viewer knows no game.

import { Track } from "./replay.js";
import { loadRenderer } from "./renderers.js";
import { renderInfo, renderLegend } from "./viewer_text.js";

export class Viewer {
  constructor(el) {
    this.el = el; // {canvas, area, legend, info, play, back, fwd, start, end, speed, speedOut, scrub, record}
    this.renderer = null;
    this.botNames = [];
    this.tracks = [];
    this.labels = [];
    this.current = -1;
    this.t = 0;
    this.playing = false;
    this.follow = true;
    this.live = false;
    this.held = false; // stopped by the page (a fault): live turns arriving do not move the board
    this.nextStop = null; // (record, t) -> the next turn after t playing stops at (a fault), or null
    this.onHold = null; // callback(record, t) when the board stops there
    this.tps = Number(el.speed.value) || 20;
    this.dirty = true;
    this.listDirty = true;
    this._acc = 0;
    this._lastTs = null;
    this.onFrame = null; // callback(frame or null) after the board is drawn (the bots' views)
    this.onDrawError = null; // callback(message), once per loaded series, if a frame fails to draw
    this.drawErrorShown = false;
    this.gameOfSeed = new Map(); // seed -> game number, in the order records arrive
    this.bind();
    this.resize();
    if (typeof ResizeObserver !== "undefined") {
      new ResizeObserver(() => this.resize()).observe(el.canvas.parentElement);
    }
    requestAnimationFrame((ts) => this.tick(ts));
  }

  // ---- feeding -----------------------------------------------------------------------
  clear() {
    this.renderer = null; this.botNames = []; this.tracks = []; this.labels = [];
    this.gameOfSeed = new Map(); this.drawErrorShown = false;
    this.current = -1; this.t = 0; this.live = false; this.follow = true; this.held = false;
    this.setPlaying(false);
    this.listDirty = true; this.dirty = true;
  }

  // series: {renderer (its name), bots, records} (records are finished game records).
  async load(series) {
    const renderer = await loadRenderer(series.renderer);
    this.clear();
    this.renderer = renderer;
    this.botNames = series.bots.slice();
    series.records.forEach((r, i) => this.recordStart(i, r, true));
    this.current = this.tracks.length ? 0 : -1;
    this.t = 0;
    this.follow = false;
    this.listDirty = true; this.dirty = true;
    this.flushNow();
  }

  // Render now (user actions), instead of at the next animation frame.
  flushNow() {
    if (this.listDirty) this.renderList();
    if (this.dirty) this.render();
  }

  beginLive(renderer, botNames) {
    this.clear();
    this.renderer = renderer;
    this.botNames = botNames.slice();
    this.live = true;
    this.follow = true;
    this.flushNow();
  }

  recordStart(index, record, quiet = false) {
    if (!record || !this.renderer) return;
    const track = new Track(this.renderer, { ...record, turns: record.turns || [] });
    this.tracks[index] = track;
    this.labels[index] = this.recordLabel(index, record);
    this.listDirty = true;
    if (!quiet && this.follow && !this.held) {
      this.current = index;
      this.t = track.length;
    } else if (this.current < 0) {
      this.current = index;
      this.t = 0;
    }
    this.dirty = true;
  }

  addTurns(index, turns) {
    const track = this.tracks[index];
    if (!track || !Array.isArray(turns)) return;
    const atEnd = index === this.current && this.t >= track.length;
    track.addTurns(turns);
    if (index === this.current && (this.follow || atEnd) && !this.playing && !this.held) this.t = track.length;
    if (index === this.current) this.dirty = true;
  }

  recordEnd(index, result) {
    const track = this.tracks[index];
    if (!track) return;
    track.result = result || null;
    track.record.result = result || null;
    if (index === this.current) this.dirty = true;
  }

  endLive() {
    this.live = false;
    this.dirty = true;
  }

  recordLabel(index, rec) {
    const seed = rec.seed ?? "?";
    const names = (rec.bot_index || []).map((b, s) => this.botNames[b] ?? (rec.bots || [])[s]);
    const who = (names.length ? names : rec.bots || []).map(String);
    // games are numbered by seed (a one-player game has one record per bot and seed)
    const key = String(seed);
    if (!this.gameOfSeed.has(key)) this.gameOfSeed.set(key, this.gameOfSeed.size + 1);
    return `Game ${this.gameOfSeed.get(key)} — seed ${seed} — ${who.join(" vs ")}`;
  }

  get track() { return this.current >= 0 ? this.tracks[this.current] || null : null; }

  // ---- controls ----------------------------------------------------------------------
  bind() {
    const e = this.el;
    e.play.addEventListener("click", () => this.togglePlay());
    e.back.addEventListener("click", () => this.step(-1));
    e.fwd.addEventListener("click", () => this.step(1));
    e.start.addEventListener("click", () => this.seek(0));
    e.end.addEventListener("click", () => this.seek(Infinity));
    e.speed.addEventListener("input", () => {
      this.tps = Math.max(1, Math.min(500, Number(e.speed.value) || 1));
      this.updateSpeedText();
    });
    e.scrub.addEventListener("input", () => this.seek(Number(e.scrub.value)));
    e.record.addEventListener("change", () => this.selectRecord(Number(e.record.value)));
    e.area.addEventListener("keydown", (ev) => {
      if (ev.target !== e.area && ev.target !== e.canvas) return;
      let handled = true;
      if (ev.key === " " || ev.key === "Spacebar" || ev.key === "k") this.togglePlay();
      else if (ev.key === "ArrowRight" || ev.key === "ArrowUp") this.step(ev.shiftKey ? 10 : 1);
      else if (ev.key === "ArrowLeft" || ev.key === "ArrowDown") this.step(ev.shiftKey ? -10 : -1);
      else if (ev.key === "Home") this.seek(0);
      else if (ev.key === "End") this.seek(Infinity);
      else handled = false;
      if (handled) ev.preventDefault();
    });
    this.updateSpeedText();
  }

  updateSpeedText() {
    const txt = `${this.tps} turn${this.tps === 1 ? "" : "s"} per second`;
    this.el.speed.setAttribute("aria-valuetext", txt);
    if (this.el.speedOut) this.el.speedOut.textContent = `${this.tps}/s`;
  }

  selectRecord(i) {
    if (!this.tracks[i]) return;
    this.current = i;
    this.t = 0;
    this.follow = false;
    this._acc = 0;
    this.dirty = true;
    this.flushNow();
  }

  setPlaying(p) {
    this.playing = p;
    this._lastTs = null;
    this._acc = 0;
    const b = this.el.play;
    b.textContent = p ? "Pause" : "Play";
    b.setAttribute("aria-pressed", p ? "true" : "false");
  }

  togglePlay() {
    const tr = this.track;
    if (!tr) return;
    if (!this.playing && this.t >= tr.length && !this.live) this.t = 0; // replay from start
    this.held = false;
    this.setPlaying(!this.playing);
    this.dirty = true;
    this.flushNow();
  }

  step(d) {
    if (!this.track) return;
    if (this.playing) this.setPlaying(false);
    this.seek(this.t + d);
  }

  seek(t) {
    const tr = this.track;
    if (!tr) return;
    this.t = Math.max(0, Math.min(tr.length, Math.round(t === Infinity ? tr.length : t)));
    this.follow = this.current === this.tracks.length - 1 && this.t >= tr.length;
    if (this.follow) this.held = false; // at the live end: follow it again
    this.dirty = true;
    this.flushNow();
  }

  // Stops the board at turn t of record `index` until Play: a live run's turns go on arriving.
  holdAt(index, t) {
    if (!this.tracks[index]) return;
    this.current = index;
    this.t = t;
    this.held = true;
    this.follow = false;
    this.setPlaying(false);
    this.dirty = true;
    this.flushNow();
    if (this.onHold) this.onHold(index, t);
  }

  // The animation loop: the next frame is asked for first, so nothing drawn can end it.
  tick(ts) {
    requestAnimationFrame((t2) => this.tick(t2));
    if (this.playing && this.track) {
      const tr = this.track;
      if (this._lastTs !== null) {
        this._acc += ((ts - this._lastTs) / 1000) * this.tps;
        const adv = Math.floor(this._acc);
        if (adv > 0) {
          this._acc -= adv;
          const nt = Math.min(tr.length, this.t + adv);
          const stop = this.nextStop ? this.nextStop(this.current, this.t) : null;
          if (stop !== null && stop <= nt) this.holdAt(this.current, stop);
          else if (nt !== this.t) { this.t = nt; this.dirty = true; }
        }
      }
      this._lastTs = ts;
      if (this.t >= tr.length) {
        const liveTail = this.live && this.current === this.tracks.length - 1 && !tr.result;
        if (!liveTail) { this.setPlaying(false); this.dirty = true; }
        this.follow = this.current === this.tracks.length - 1;
      }
    }
    if (this.listDirty) this.renderList();
    if (this.dirty) this.render();
  }

  // ---- rendering ---------------------------------------------------------------------
  resize() {
    const c = this.el.canvas;
    const rect = c.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(100, Math.round(rect.width * dpr));
    const h = Math.max(100, Math.round(rect.height * dpr));
    if (c.width !== w || c.height !== h) { c.width = w; c.height = h; this.dirty = true; }
  }

  // The board's shape (a renderer may ask for a wide one), between square and 5:2.
  setAspect(ratio) {
    const r = Number.isFinite(ratio) ? Math.max(1, Math.min(2.5, ratio)) : 1;
    const want = `${Math.round(r * 1000)} / 1000`;
    if (this.el.area.style.aspectRatio !== want) {
      this.el.area.style.aspectRatio = want;
      this.resize();
    }
  }

  renderList() {
    this.listDirty = false;
    const sel = this.el.record;
    const n = this.tracks.length;
    // rebuild only when the count or labels changed
    const want = [];
    for (let i = 0; i < n; i++) if (this.tracks[i]) want.push([i, this.labels[i]]);
    const have = Array.from(sel.options).map((o) => [Number(o.value), o.textContent]);
    const same = want.length === have.length && want.every((w, k) => w[0] === have[k][0] && w[1] === have[k][1]);
    if (!same) {
      sel.replaceChildren(...want.map(([i, label]) => {
        const o = document.createElement("option");
        o.value = String(i);
        o.textContent = label;
        return o;
      }));
    }
    if (this.current >= 0) sel.value = String(this.current);
    sel.disabled = want.length === 0;
  }

  seatNames(rec) {
    const idx = rec.bot_index || [];
    return (rec.bots || []).map((b, s) => String(this.botNames[idx[s]] ?? b));
  }

  render() {
    this.dirty = false;
    const e = this.el;
    const c = e.canvas;
    const ctx = c.getContext("2d");
    const tr = this.track;
    const ctrls = [e.play, e.back, e.fwd, e.start, e.end, e.scrub];
    if (!tr) {
      ctx.fillStyle = "#ffffff";
      ctx.fillRect(0, 0, c.width, c.height);
      ctx.fillStyle = "#555";
      ctx.font = `${Math.round(16 * (window.devicePixelRatio || 1))}px system-ui, sans-serif`;
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.fillText("No game yet: press Run or open a replay", c.width / 2, c.height / 2);
      this.setAspect(1);
      c.setAttribute("aria-label", "Board: no game loaded");
      e.legend.replaceChildren();
      e.info.textContent = "";
      if (this.onFrame) this.onFrame(null, []);
      ctrls.forEach((b) => { b.disabled = true; });
      e.scrub.max = "0"; e.scrub.value = "0";
      e.scrub.setAttribute("aria-valuetext", "no game");
      return;
    }
    ctrls.forEach((b) => { b.disabled = false; });
    let fr;
    try {
      fr = tr.frame(this.t);
      this.setAspect(this.renderer.aspect ? this.renderer.aspect(fr) : 1);
      const dpr = window.devicePixelRatio || 1;
      ctx.save();
      try {
        ctx.scale(dpr, dpr);
        const w = c.width / dpr, h = c.height / dpr;
        this.renderer.draw(ctx, w, h, fr, this.seatNames(tr.record));
      } finally {
        ctx.restore();
      }
      c.setAttribute("aria-label", this.renderer.describe(fr, this.seatNames(tr.record)));
    } catch (err) {
      this.drawFailed(err);
      return;
    }
    e.scrub.max = String(fr.total);
    e.scrub.value = String(fr.turn);
    e.scrub.setAttribute("aria-valuetext", `Turn ${fr.turn} of ${fr.total}`);
    e.back.disabled = e.start.disabled = fr.turn <= 0;
    e.fwd.disabled = e.end.disabled = fr.turn >= fr.total;
    renderLegend(this, fr);
    renderInfo(this, fr);
    if (this.onFrame) this.onFrame(fr, this.seatNames(tr.record));
  }

  // A frame that cannot be drawn: the board says so, the page is told once per series,
  // and the controls and the animation loop carry on.
  drawFailed(err) {
    const e = this.el;
    const c = e.canvas;
    const ctx = c.getContext("2d");
    const message = `turn ${this.t} of record ${this.current + 1} cannot be drawn (${err && err.message ? err.message : err})`;
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(0, 0, c.width, c.height);
    ctx.fillStyle = "#b00020";
    ctx.font = `${Math.round(14 * (window.devicePixelRatio || 1))}px system-ui, sans-serif`;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    ctx.fillText("This turn cannot be drawn", c.width / 2, c.height / 2);
    c.setAttribute("aria-label", `Board: ${message}`);
    e.info.textContent = `This ${message}.`;
    const track = this.track;
    e.scrub.max = String(track ? track.length : 0);
    e.scrub.value = String(this.t);
    if (!this.drawErrorShown) {
      this.drawErrorShown = true;
      if (this.onDrawError) this.onDrawError(message);
    }
  }

  // The frame the board shows now (for a bot's own view), or null.
  currentFrame() {
    const tr = this.track;
    return tr && this.renderer ? tr.frame(this.t) : null;
  }
}
