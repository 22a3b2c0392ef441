// A bot Worker's blocking read through the bots' relay (web/bot_relay_sw.js): "relay" mode,
// where neither shared memory nor JSPI lets a script bot's input() block.
//
// XMLHttpRequest is captured when this module is evaluated, before bot_worker.js removes
// it from the Worker's global scope and before any bot code runs. The request object and
// the channel's secret live only in the closures below: nothing a bot can patch (a global,
// a prototype it can reach, Function.prototype.call) is ever handed either of them. Only
// primitives are concatenated and only XMLHttpRequest.prototype's own methods are called,
// a prototype no bot can reach once the constructor is gone.
import { asReplyId, asReplyText } from "./reply_text.js";

const CapturedXHR = self.XMLHttpRequest;
const FAILURES_ALLOWED = 3; // consecutive failed reads before the route counts as gone

// A reader for the channel `secret` at `base` (the relay's URL, ending in "/"), or null
// where this Worker cannot make the request. read() blocks for the next request's text and
// throws once the relay is gone; lastSeq() is that request's id (a number) or null.
export function relayReader(base, secret) {
  if (typeof CapturedXHR !== "function" || typeof base !== "string" || typeof secret !== "string") return null;
  const readURL = `${base}read?c=${secret}&seen=`;
  const probeURL = `${base}read?c=${secret}&hold=0&seen=`;
  let seen = "none";
  let lastId = null;

  // One read: the request's text, "" when none came within the relay's hold time (none at
  // once for a probe), or null when the request failed.
  function once(url) {
    const xhr = new CapturedXHR();
    try {
      xhr.open("POST", url + seen, false);
      xhr.send();
    } catch (err) {
      return null; // the network failed, or the Content-Security-Policy refused it
    }
    if (xhr.status === 204) return "";
    if (xhr.status !== 200) return null;
    const seq = xhr.getResponseHeader("X-Relay-Seq");
    if (typeof seq !== "string" || seq === seen) return null;
    seen = seq;
    lastId = +seq;
    return xhr.responseText;
  }

  return {
    // Whether the relay answers this channel: made before the Worker says it is ready.
    probe() {
      return once(probeURL) !== null;
    },
    read() {
      let failures = 0;
      for (;;) {
        const text = once(readURL);
        if (text) return text;
        if (text === null && ++failures >= FAILURES_ALLOWED) {
          throw new Error("the relay to the controller is gone (its service worker stopped)");
        }
      }
    },
    lastSeq() {
      return lastId;
    },
  };
}

// Relay mode's host loop: the host's thread blocks in the relay's reads from the start;
// replies go to the controller's side of the Worker as {type: "reply", id, json}, only
// while a request is pending. hooks: post (the Worker's postMessage, captured), ready(mode),
// failed(err), fatalReply() (the reply once Python died, or null), onFatal(answer) (how the
// pending request is answered when Python dies).
export function serveThroughRelay(serve, reader, hooks) {
  let pendingId = null;
  const receive = () => {
    const text = reader.read();
    pendingId = reader.lastSeq();
    return text;
  };
  const send = (anyId, anyJson) => {
    const id = asReplyId(anyId);
    if (pendingId === null) return;
    if (id === pendingId) pendingId = null;
    hooks.post({ type: "reply", id, json: asReplyText(anyJson) });
  };
  hooks.onFatal(() => send(pendingId, hooks.fatalReply()));
  hooks.ready("relay");
  setTimeout(() => {
    try {
      serve(receive, send, "relay");
    } catch (err) {
      if (hooks.fatalReply() === null) hooks.failed(err);
      while (hooks.fatalReply() !== null) { // Python is gone: every request gets the fatal reply
        receive();
        send(pendingId, hooks.fatalReply());
      }
    }
  }, 0);
}
