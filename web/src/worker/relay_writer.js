// The controller's side of the bots' relay (web/bot_relay_sw.js, "relay" mode): a channel per
// bot Worker, named by a fresh 128-bit secret only this Worker and that bot Worker's host
// code know; each request is written to it with fetch, and the page's service worker hands
// it to the bot Worker's blocked read (web/src/relay_reader.js).

// null where this Worker's URL has no folder to resolve against (a blob: Worker, as the Stack
// Snippet frame starts): no relay there, and opening a channel says so.
export const RELAY_BASE = relayBase();
export const RELAY_MAX_BYTES = 1 << 20; // as the shared-memory mailbox (sync_channel.js)

function newSecret() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function relayBase() {
  try {
    return new URL("__koth_relay/v1/", self.location.href).href;
  } catch (err) {
    return null;
  }
}

async function post(op, secret, query = "", body = undefined) {
  if (RELAY_BASE === null) return 0;
  try {
    const response = await fetch(`${RELAY_BASE}${op}?c=${secret}${query}`, { method: "POST", body, cache: "no-store" });
    return response.status;
  } catch (err) {
    return 0;
  }
}

// A new channel: {secret, opened: Promise of whether the relay answered}.
export function openChannel() {
  const secret = newSecret();
  return { secret, opened: post("open", secret).then((status) => status === 204) };
}

// "ok", "too big" (the request is over RELAY_MAX_BYTES) or "lost" (the relay does not take it).
export async function writeRequest(channel, id, json) {
  const body = new TextEncoder().encode(`${json}`);
  if (body.byteLength > RELAY_MAX_BYTES) return "too big";
  const status = await post("write", channel.secret, `&seq=${id}`, body);
  return status === 204 ? "ok" : "lost";
}

// After its open has been answered: a close that overtook it would leave the channel open.
export function closeChannel(channel) {
  channel.opened.then((opened) => { if (opened) post("close", channel.secret); });
}
