// Earlier versions of a game's bots as opponents (issue 22). The page keeps up to 8 earlier
// versions of each game's bots (kept_bots.js: the bots a shared link or another tab replaced).
// Every seat's Example menu offers each bot of those versions whose code is not on show now,
// as "NAME (vK, HH:MM)", the newest version first: chosen, it plays in that seat under that name.

import { keptStack } from "./kept_bots.js";
import { languageOf } from "../python2.js";
import { MAX_NAME_CHARS } from "../storage.js";

export const VERSION_OPTION = "version:"; // a seat's Example menu value: "version:K:I"

const pad = (n) => String(n).padStart(2, "0");

// When a version was kept: "14:02" today, "3 Nov 14:02" before.
export function keptWhen(at, now = new Date()) {
  const d = new Date(at);
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  if (d.toDateString() === now.toDateString()) return time;
  return `${d.getDate()} ${d.toLocaleString("en", { month: "short" })} ${time}`;
}

// [{value, label, code, language}]: the kept bots of `game` worth playing against, newest
// version first; `shown`: the bots on show now (their code is not an earlier version).
export function earlierVersions(game, shown) {
  const onShow = new Set(shown.map((b) => b.code));
  const seen = new Set();
  const out = [];
  const stack = keptStack(game);
  for (let k = stack.length - 1; k >= 0; k--) {
    const { bots, at } = stack[k];
    bots.forEach((b, i) => {
      const code = b.code;
      if (!code.trim() || onShow.has(code) || seen.has(code)) return;
      seen.add(code);
      const suffix = ` (v${k + 1}${at === null ? "" : `, ${keptWhen(at)}`})`;
      const name = (b.name.trim() || `Bot ${i + 1}`).slice(0, Math.max(1, MAX_NAME_CHARS - suffix.length));
      out.push({ value: `${VERSION_OPTION}${k}:${i}`, label: `${name}${suffix}`, code, language: languageOf(b) });
    });
  }
  return out;
}
