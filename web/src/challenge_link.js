// Challenge links: the whole challenge file, compressed (CompressionStream "deflate-raw") and
// base64url-encoded into the URL fragment ("#c=..."), so a static host never sees it and the
// built site opens it offline. This module only packs and unpacks bytes: what the link holds
// is checked by the engine (engine/contest/challenge.py) like any challenge file.

export const LINK_PREFIX = "c=";
// A link's data may unpack to at most this much JSON: a small link cannot expand into a
// memory-filling one (deflate compresses runs of one byte about 1000:1).
export const MAX_UNPACKED_BYTES = 16 * 1024 * 1024;

// Documented limits a link can run into (docs/page.md "Challenges in the page" cites each source); a
// longer link gets a warning naming them, and the offer to export a file instead.
export const LINK_LIMITS = [
  { chars: 2_000, where: "a Discord message (2,000 characters)" },
  { chars: 8_000, where: "the 8,000 characters RFC 9110 asks every HTTP implementation to accept" },
  { chars: 28_000, where: "a Microsoft Teams message (about 28 KB)" },
  { chars: 40_000, where: "a Slack message (cut at 40,000 characters)" },
  { chars: 2 * 1024 * 1024, where: "Chrome's URL limit (2 MB): the link would not open at all" },
];

export class LinkError extends Error {}

// The limits a URL of this length is past (empty: none).
export function limitsPassed(length) {
  return LINK_LIMITS.filter((l) => length > l.chars);
}

// The fragment's data for a challenge object: base64url of its JSON, deflate-raw compressed.
export async function packChallenge(challenge) {
  const bytes = new TextEncoder().encode(JSON.stringify(challenge));
  const packed = await readAll(new Blob([bytes]).stream().pipeThrough(new CompressionStream("deflate-raw")));
  return toBase64url(packed);
}

// A link's data back to the JSON text it packed (the engine checks that text); LinkError
// with a one-line reason when it is damaged.
export async function unpackChallenge(data) {
  const bytes = fromBase64url(data);
  let unpacked;
  try {
    unpacked = await readAll(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw")),
      MAX_UNPACKED_BYTES);
  } catch (e) {
    if (e instanceof LinkError) throw e;
    throw new LinkError("its data does not unpack (part of the link may be missing)");
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(unpacked);
  } catch {
    throw new LinkError("its data is not text");
  }
}

async function readAll(stream, limit = Infinity) {
  const reader = stream.getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      reader.cancel().catch(() => {});
      throw new LinkError(`its data unpacks to more than ${limit / 1024 / 1024} MB`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) { out.set(c, at); at += c.length; }
  return out;
}

function toBase64url(bytes) {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64url(text) {
  if (!text || !/^[A-Za-z0-9_-]+$/.test(text)) throw new LinkError("it is not base64url text");
  let b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  while (b64.length % 4) b64 += "=";
  let bin;
  try { bin = atob(b64); } catch { throw new LinkError("it is not base64url text"); }
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}
