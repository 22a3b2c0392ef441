// One bot Worker (bot_worker.js) as the controller sees it: started from the snapshot, asked
// through shared memory (sync mode, cross-origin isolated), one MessageChannel per request
// (the message modes) or the page's service worker (relay mode: relay_writer.js),
// interrupted, and killed. Its replies are checked (replies.js).

import { Channel, ChannelOverflow, newChannelBuffer } from "../sync_channel.js";
import { MAX_REPLY_CHARS } from "../reply_text.js";
import { STOPPED, botInit, ctl, isolated, newBotWorker, snapshotKnown, stopRequested } from "./state.js";
import { checkedReply, malformed } from "./replies.js";
import { RELAY_BASE, closeChannel, openChannel, writeRequest } from "./relay_writer.js";

const MAX_MESSAGES_PER_REQUEST = 64; // a bot Worker that posts more is flooding: stopped
const WAIT_SLICE_MS = 20; // sync mode: how often a blocked controller looks at the stop flag
export const CONVERT_MEMORY_BYTES = 512 * 2 ** 20; // a conversion Worker's (engine/bots/python2_convert.py)
// Told when a bot Worker is ready (the pool reports how many wait).
export const botEvents = { ready: () => {} };

export class BotWorker {
  // converter: python2.zip's bytes, for a conversion Worker (see convertPython2) instead of a bot's
  constructor({ converter = null } = {}) {
    this.worker = newBotWorker();
    this.converter = converter !== null;
    this.interrupt = isolated && !converter ? new Uint8Array(new SharedArrayBuffer(1)) : null;
    // Cross-origin isolated: requests and replies go through shared memory (sync mode), unless
    // the page asked for a less capable mode (?bots=relay|push, for tests).
    const channels = isolated && !converter && !ctl.force
      ? { request: newChannelBuffer(), reply: newChannelBuffer() } : null;
    this.relay = !converter && !channels && ctl.relay && ctl.force !== "push" ? openChannel() : null;
    this.requests = channels && new Channel(channels.request);
    this.replies = channels && new Channel(channels.reply);
    this.mode = null; // "sync", "jspi", "relay" or "push", as the bot Worker reports it
    this.pending = null; // {id, resolve} in the message modes
    this.dead = false;
    this.isReady = false;
    this.ready = new Promise((resolve, reject) => {
      this.worker.onmessage = (event) => {
        const data = event.data;
        if (!data || typeof data !== "object") return;
        if (data.type === "ready" && !this.isReady) {
          this.isReady = true;
          this.mode = ["sync", "jspi", "relay", "push"].includes(data.mode) ? data.mode : "push";
          if (this.mode === "relay" && !this.relay) this.mode = "push";
          // its start-up's steps, for scripts/bench_web (numbers only: it is a Worker's word)
          this.startup = data.startup && typeof data.startup === "object" ? {
            timeOrigin: Number(data.startup.timeOrigin) || 0,
            marks: Object.fromEntries(Object.entries(data.startup.marks || {}).slice(0, 16)
              .map(([k, v]) => [String(k).slice(0, 40), Number(v) || 0])),
          } : null;
          this.heapBytes = Number(data.heap) || 0; // its Python heap, before any bot code ran
          if (ctl.botsMode === null && !this.converter) ctl.botsMode = this.mode;
          resolve(this);
          botEvents.ready();
        } else if (data.type === "reply" && this.mode === "relay" && this.pending && this.pending.onReply) {
          this.pending.onReply(data);
        } else if (data.type === "failed" && !this.isReady) {
          reject(new Error(String(data.message).slice(0, 500)));
        } else if (data.type === "failed") {
          this.kill();
        }
      };
      this.worker.onerror = (event) => {
        event.preventDefault?.();
        if (!this.isReady) reject(new Error(event.message || "the bot worker failed to start"));
        this.kill();
      };
    });
    Promise.all([botInit.promise, this.relay && this.relay.opened]).then(([, opened]) => {
      if (this.dead) return;
      const init = { type: "init", indexURL: ctl.indexURL, interruptBuffer: this.interrupt, wasmModule: ctl.wasmModule,
        channels, files: converter ? { ...ctl.botFiles, "python2.zip": converter } : ctl.botFiles, lockFile: ctl.lockFile,
        converter: converter ? { memoryBytes: CONVERT_MEMORY_BYTES } : null, force: converter ? null : ctl.force,
        relay: opened ? { url: RELAY_BASE, secret: this.relay.secret } : null };
      if (!ctl.snapshot && ctl.snapshotMemoryBytes) {
        this.worker.postMessage({ ...init, memoryBytes: ctl.snapshotMemoryBytes });
        snapshotKnown.promise.then((bytes) => { if (!this.dead) this.worker.postMessage({ type: "snapshot", snapshot: bytes }); });
      } else {
        this.worker.postMessage({ ...init, snapshot: ctl.snapshot });
      }
    });
  }

  // Message modes: a Promise of the checked reply (see checkedReply; null if the Worker
  // was killed). Each request has a MessageChannel of its own: only its port is listened
  // to, only a message with its id is the reply, and the port is closed after it, so a
  // bot's messages can never queue ahead of another bot's reply.
  request(id, json, check = checkedReply) {
    this.used = true; // bot code may run in it from now on
    this.clearInterrupt();
    if (this.mode === "relay") return this.relayRequest(id, json, check);
    const { port1, port2 } = new MessageChannel();
    return new Promise((resolve) => {
      let messages = 0;
      const finish = (reply) => {
        port1.onmessage = null;
        port1.close();
        if (this.pending && this.pending.id === id) this.pending = null;
        resolve(reply);
      };
      this.pending = { id, resolve: finish };
      port1.onmessage = (event) => {
        messages += 1;
        if (messages > MAX_MESSAGES_PER_REQUEST) {
          finish(malformed(`its Worker posted more than ${MAX_MESSAGES_PER_REQUEST} messages `
            + "for one request and was stopped"));
          this.kill();
          return;
        }
        const data = event.data;
        if (!data || typeof data !== "object" || data.id !== id) return;
        finish(check(data.json));
      };
      this.worker.postMessage({ type: "req", id, json, port: port2 }, [port2]);
    });
  }

  // Relay mode: as request(), the request written to the relay and the reply a message of
  // the Worker's own, {type: "reply", id, json}, counted as a port's are.
  relayRequest(id, json, check) {
    return new Promise((resolve) => {
      let messages = 0;
      const finish = (reply) => {
        if (this.pending && this.pending.id === id) this.pending = null;
        resolve(reply);
      };
      const onReply = (data) => {
        messages += 1;
        if (messages > MAX_MESSAGES_PER_REQUEST) {
          finish(malformed(`its Worker posted more than ${MAX_MESSAGES_PER_REQUEST} messages `
            + "for one request and was stopped"));
          this.kill();
        } else if (data.id === id) {
          finish(check(data.json));
        }
      };
      this.pending = { id, resolve: finish, onReply };
      writeRequest(this.relay, id, json).then((written) => {
        if (written === "ok" || !this.pending || this.pending.id !== id) return;
        if (written === "too big") {
          finish(JSON.stringify({ error: "the request is too big for the channel to the bot" })); // as sync mode
        } else {
          this.kill(); // the relay lost the channel: the bot can never be asked again
        }
      });
    });
  }

  // Sync mode: post a request; `awaitReply` blocks for it. False if it did not fit.
  post(id, json) {
    this.used = true;
    this.clearInterrupt();
    try {
      this.requests.write(id, json);
      return true;
    } catch (err) {
      if (err instanceof ChannelOverflow) return false;
      throw err;
    }
  }

  // An interrupt meant for the previous request (its reply raced it) must not hit this one.
  clearInterrupt() {
    if (this.interrupt) this.interrupt[0] = 0;
  }

  // Block until the reply to `id` is in, or `deadline` (performance.now() time) passes,
  // or the page asks to stop; returns the checked reply (checkedReply), null, or STOPPED.
  // Waits in slices, so a stop is seen within one.
  awaitReply(id, deadline, check = checkedReply) {
    const replies = this.replies;
    for (;;) {
      const seq = replies.seq;
      if (seq === id) {
        try {
          return check(replies.read());
        } catch (err) {
          if (!(err instanceof ChannelOverflow)) throw err;
          return malformed(`the reply is ${err.size.toLocaleString("en")} bytes, `
            + `more than ${MAX_REPLY_CHARS.toLocaleString("en")}`);
        }
      }
      if (stopRequested()) return STOPPED;
      const left = deadline - performance.now();
      if (left <= 0 || this.dead) return null;
      Atomics.wait(replies.header, 0, seq, Math.min(left, WAIT_SLICE_MS));
    }
  }

  kill() {
    if (this.dead) return;
    this.dead = true;
    this.worker.terminate();
    if (this.relay) closeChannel(this.relay);
    const pending = this.pending;
    this.pending = null;
    if (pending) pending.resolve(null);
  }
}
