// The text between the controller's Python and its bot Workers: replies checked and rebuilt
// (checkedReply), one string per move for Python (replyText), request ids (withId).

import { MAX_REPLY_CHARS, MAX_REPLY_NESTING, nestingDepth } from "../reply_text.js";
import { STOPPED } from "./state.js";

// replays: a load reply's word that a script bot is run again each turn (push mode), for the
// controller's ReplayCredits (engine/bots/replayed_script.py)
const REPLY_FIELDS = ["answer", "error", "line", "stdout", "stderr", "over_budget", "seal", "replays"];

// A bot Worker's reply is untrusted text: it is parsed here, in JavaScript (its length and
// nesting measured in one pass, then JSON.parse), and Python gets a flat object that this
// function writes itself: only the reply's fields, each a string, number, boolean or null
// as sent, or an empty [] / {} standing for a list or object (engine/bots/reply.py says
// which type was wrong). Nothing the bot wrote is ever parsed by Python.
export function checkedReply(json) {
  if (typeof json !== "string") return malformed(`the reply is ${typeName(json)}, not JSON text`);
  if (json.length > MAX_REPLY_CHARS) {
    return malformed(`the reply is ${json.length.toLocaleString("en")} characters, `
      + `more than ${MAX_REPLY_CHARS.toLocaleString("en")}`);
  }
  const depth = nestingDepth(json); // before JSON.parse builds it
  if (depth > MAX_REPLY_NESTING) {
    return malformed(`the reply nests ${depth} levels deep (at most ${MAX_REPLY_NESTING})`);
  }
  let data;
  try {
    data = JSON.parse(json);
  } catch (err) {
    return malformed(`the reply is not JSON (${String(err && err.message).slice(0, 200)})`);
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) return JSON.stringify(shallow(data));
  const flat = {};
  for (const field of REPLY_FIELDS) if (Object.hasOwn(data, field)) flat[field] = shallow(data[field]);
  return JSON.stringify(flat);
}

export function shallow(value) {
  if (Array.isArray(value)) return [];
  if (value !== null && typeof value === "object") return {};
  return value;
}

export function typeName(value) {
  return value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
}

export function malformed(problem) {
  return JSON.stringify({ error: `the bot sent a malformed reply: ${problem}` });
}

// The reply as one string "ELAPSED_MS;STATE;CHECKED" (STATE 1: answered, CHECKED is the
// flat JSON checkedReply wrote; 0: silent; 2: the page stopped the run): a string crosses
// into Python as a plain str, where an object would cost a proxy per move.
export function replyText(elapsed, checked) {
  if (checked === STOPPED) return `${elapsed};2;`;
  return checked === null ? `${elapsed};0;` : `${elapsed};1;${checked}`;
}

export function carriesKey(json) {
  try {
    const request = JSON.parse(json);
    return request !== null && typeof request === "object" && Object.hasOwn(request, "key");
  } catch (err) {
    return false;
  }
}

export function withId(json, id) {
  const request = JSON.parse(json);
  request.id = id;
  return JSON.stringify(request);
}

