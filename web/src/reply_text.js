// A bot's reply as the page carries it: JSON text of at most MAX_REPLY_CHARS, nesting at
// most MAX_REPLY_NESTING deep (engine/bots/reply.py's bounds, natively the same).
//
// The bot Worker's reply function is within a bot's reach (Python can find it with gc), so
// a bot can hand it anything: asReplyText (bot_worker.js) turns what is not text of the
// right size into a short error reply without looking into it (converting a Python object
// to text runs the bot's code: its __str__, or the repr of a list nested 100,000 deep;
// structured-cloning a deep JavaScript array overflows the stack), so nothing but bounded
// text ever leaves the Worker. nestingDepth (controller_worker.js) then measures the text
// before JSON.parse sees it, in one pass without recursion (JSON text nested 150,000 deep
// was parsed whole and read as an empty reply).

export const MAX_REPLY_CHARS = 1 << 20;
export const MAX_REPLY_NESTING = 20; // replies are flat objects

const MALFORMED = "the bot sent a malformed reply";

// The reply to send for `json` as a bot's code handed it over: itself if it is text of at
// most MAX_REPLY_CHARS, else an error reply that says what it was (typeof never runs
// a proxy's code).
export function asReplyText(json) {
  if (typeof json !== "string") {
    return JSON.stringify({ error: `${MALFORMED}: the reply is ${article(typeof json)} ${typeof json}, not JSON text` });
  }
  if (json.length > MAX_REPLY_CHARS) {
    return JSON.stringify({ error: `${MALFORMED}: the reply is ${json.length.toLocaleString("en")} characters, `
      + `more than ${MAX_REPLY_CHARS.toLocaleString("en")}` });
  }
  return json;
}

// A request id as a bot's code handed it over: a number, or null (never converted).
export function asReplyId(id) {
  return typeof id === "number" ? id : null;
}

function article(word) {
  return /^[aeiou]/.test(word) ? "an" : "a";
}

// The deepest [ / { nesting of a JSON text outside its strings (a string left open runs to
// the end), as engine/core/json_depth.py measures it: one pass, constant memory.
export function nestingDepth(text) {
  let depth = 0;
  let deepest = 0;
  const length = text.length;
  for (let i = 0; i < length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x22) { // a string: skip to its closing quote, past escapes
      for (i += 1; i < length; i += 1) {
        const s = text.charCodeAt(i);
        if (s === 0x5c) i += 1;
        else if (s === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > deepest) deepest = depth;
    } else if (c === 0x5d || c === 0x7d) {
      depth -= 1;
    }
  }
  return deepest;
}
