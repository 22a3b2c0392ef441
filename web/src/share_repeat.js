// A match's share link reproduces its result, or says plainly that it will not (issue 18).
//
// A run's games come from its seed and its secret (engine/core/randomness.py); with a step
// budget the bots' time-outs are counted in steps, so the same games on every machine.
// The link carries the seed and settings always, the step budget when one is set, and the
// secret when the sender leaves "Include the secret" on: the Secret field's, or else the
// one the last run of exactly these bots and settings drew. Without a secret the recipient
// is told, on opening, that their run will play different games than the sender's.

const MAX_SECRET_CHARS = 256; // engine/core/randomness.py's MAX_SECRET_CHARS
const MAX_BUDGET = 1_000_000_000; // the Step budget field's bound

let lastRun = null; // {key, secret}: the secret the last finished match drew, and for what

// `key`: the run's bots and settings (a string); `secret`: the secret its games used.
export function rememberRunSecret(key, secret) {
  if (typeof key === "string" && typeof secret === "string" && secret) lastRun = { key, secret };
}

// The fields the link adds ({secret?, budget?}) and a sentence for the sender saying what
// the recipient's Run will repeat.
export function repeatFields({ key, secretField, budget, include }) {
  const fields = {};
  if (Number.isInteger(budget)) fields.budget = budget;
  const secret = secretField || (lastRun && lastRun.key === key ? lastRun.secret : "");
  if (include && secret) fields.secret = secret;
  let note;
  if (fields.secret) {
    note = fields.budget
      ? "It carries the secret and the step budget: the recipient's Run plays the same games, with the same result."
      : "It carries the secret: the recipient's Run plays the same games (with no step budget, time-outs "
        + "can differ on a slower or faster machine).";
  } else {
    note = include
      ? "It carries no secret (the Secret field is empty and these bots and settings have not been run): "
        + "the recipient's Run will play different games. Run first, or set a secret, for a link that repeats."
      : "It leaves the secret out: the recipient's Run will play different games than yours.";
  }
  return { fields, note };
}

// The link's {secret, budget} (null when absent); throws with a reason when either is malformed.
export function readRepeat(obj) {
  const out = { secret: null, budget: null };
  if (Object.hasOwn(obj, "secret")) {
    const s = obj.secret;
    if (typeof s !== "string" || !s || s.length > MAX_SECRET_CHARS) {
      throw new Error(`its secret is not text of 1 to ${MAX_SECRET_CHARS} characters`);
    }
    out.secret = s;
  }
  if (Object.hasOwn(obj, "budget")) {
    const b = obj.budget;
    if (!Number.isInteger(b) || b < 1 || b > MAX_BUDGET) {
      throw new Error(`its step budget is not a whole number from 1 to ${MAX_BUDGET}`);
    }
    out.budget = b;
  }
  return out;
}

// What the recipient is told on opening the link.
export function recipientNote({ secret, budget }) {
  if (!secret) {
    return "This link does not carry the secret: your run will play different games than the sender's.";
  }
  return budget
    ? "It carries the sender's secret and step budget: Run plays the same games, with the sender's result."
    : "It carries the sender's secret: Run plays the same games (with no step budget, time-outs can differ "
      + "on this machine).";
}
