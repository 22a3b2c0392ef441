// The page's challenge model (web/src/challenge_model.js) under Node: a challenge file with a
// question and a command entry goes in (replaceChallenge) and comes out (currentChallenge)
// with both kept and version 2. Reads the file's JSON on stdin, prints the page's on stdout.
// Used by tests/test_question_tournament.py.
const items = new Map();
globalThis.localStorage = {
  get length() { return items.size; },
  key: (i) => [...items.keys()][i] ?? null,
  getItem: (k) => (items.has(k) ? items.get(k) : null),
  setItem: (k, v) => { items.set(k, String(v)); },
  removeItem: (k) => { items.delete(k); },
};
globalThis.window = { addEventListener() {} };
globalThis.document = { addEventListener() {}, hidden: false };

const model = await import("../web/src/challenge_model.js");
let input = "";
for await (const chunk of process.stdin) input += chunk;
const file = JSON.parse(input);
let form = { game: file.game, preset: file.preset ?? null, settings: file.settings, games: file.games,
  seed: file.seed, secret: file.secret ?? null };
model.bindSettings({ get: () => form, set: (c) => { form = { ...form, ...c }; } });
model.replaceChallenge(file);
const out = { exported: model.currentChallenge() };
model.replaceChallenge({ ...file, question: undefined, entries: file.entries.filter((e) => !e.language) });
out.plain = model.currentChallenge();
model.flush();
process.stdout.write(JSON.stringify(out));
