// The bots' relay: a service worker that lets a bot Worker block on its next request where
// it can neither wait on shared memory (no cross-origin isolation, or WebKit) nor suspend
// WebAssembly (no JSPI), so that a script bot's input() can block there too ("relay" mode,
// docs/architecture.md). The technique of the sync-message package: the bot Worker makes a
// SYNCHRONOUS XMLHttpRequest, and this worker holds the response until the controller
// Worker hands it that bot's next request.
//
// Each bot Worker has a channel, named by a secret of 128 random bits the controller made:
//   POST PATH/open?c=SECRET                 (controller) a new channel
//   POST PATH/write?c=SECRET&seq=ID  body   (controller) the next request, JSON text
//   POST PATH/read?c=SECRET&seen=ID         (bot Worker) the request after ID, held until
//                                           there is one or HOLD_MS pass (204); with
//                                           &hold=0 answered at once (its probe)
//   POST PATH/close?c=SECRET                (controller) the bot Worker is gone
// Only these are answered, and a write, read or close only for a channel that is open;
// every other request goes to the network untouched (no respondWith). A channel holds its last
// request and one held read at most; at most MAX_CHANNELS channels.
const PATH = new URL("__koth_relay/v1/", self.registration.scope).pathname;
const HOLD_MS = 5000;
const MAX_CHANNELS = 512;
const MAX_REQUEST_BYTES = (1 << 20) + 1024; // the shared-memory mailbox's 1 MiB, and its id
const SECRET = /^[0-9a-f]{32}$/;
const SEQ = /^-?[0-9]{1,16}$/;

const channels = new Map(); // secret -> {seq, text, held: {seen, answer} | null}

self.addEventListener("install", () => {
  // No skipWaiting: a new version takes over once no page runs on the old one, never
  // under a running bot.
});

self.addEventListener("activate", (event) => {
  // The first visit's page (and the Workers it starts afterwards) is served at once.
  event.waitUntil(self.clients.claim());
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "POST") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || !url.pathname.startsWith(PATH)) return;
  const op = url.pathname.slice(PATH.length);
  const params = url.searchParams;
  const secret = params.get("c") || "";
  if (!SECRET.test(secret)) return;
  const channel = channels.get(secret);
  if (op === "open" && !channel) {
    event.respondWith(open(secret));
  } else if (op === "write" && channel && SEQ.test(params.get("seq") || "")) {
    event.respondWith(write(channel, params.get("seq"), request));
  } else if (op === "read" && channel && (params.get("seen") === "none" || SEQ.test(params.get("seen") || ""))) {
    event.respondWith(read(channel, params.get("seen"), params.get("hold") !== "0"));
  } else if (op === "close" && channel) {
    channels.delete(secret);
    release(channel, 410);
    event.respondWith(answer(204));
  }
});

function answer(status, text = null, seq = null) {
  const headers = { "Cache-Control": "no-store" };
  if (seq !== null) headers["X-Relay-Seq"] = seq;
  return new Response(text, { status, headers });
}

function release(channel, status) {
  const held = channel.held;
  channel.held = null;
  if (held) held.answer(answer(status));
}

async function open(secret) {
  if (channels.size >= MAX_CHANNELS) {
    // the oldest channel no bot Worker waits on (its controller was replaced, say)
    for (const [name, channel] of channels) {
      if (!channel.held) {
        channels.delete(name);
        break;
      }
    }
    if (channels.size >= MAX_CHANNELS) return answer(503);
  }
  channels.set(secret, { seq: null, text: "", held: null });
  return answer(204);
}

async function write(channel, seq, request) {
  const text = await boundedText(request, MAX_REQUEST_BYTES);
  if (text === null) return answer(413);
  channel.seq = seq;
  channel.text = text;
  const held = channel.held;
  if (held && held.seen !== seq) {
    channel.held = null;
    held.answer(deliver(channel));
  }
  return answer(204);
}

// The last request stays until the next one replaces it: a read whose answer was lost on
// the way asks again with the same `seen`.
function deliver(channel) {
  return answer(200, channel.text, channel.seq);
}

function read(channel, seen, hold) {
  if (channel.seq !== null && channel.seq !== seen) return Promise.resolve(deliver(channel));
  if (!hold) return Promise.resolve(answer(204));
  release(channel, 204); // one held read per channel: the newer one
  return new Promise((resolve) => {
    const held = { seen, answer: resolve };
    channel.held = held;
    setTimeout(() => {
      if (channel.held === held) {
        channel.held = null;
        resolve(answer(204));
      }
    }, HOLD_MS);
  });
}

// The body as text, or null past `limit` bytes (read no further).
async function boundedText(request, limit) {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const parts = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      reader.cancel().catch(() => {});
      return null;
    }
    parts.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.byteLength;
  }
  return new TextDecoder().decode(bytes);
}
