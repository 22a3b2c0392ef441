// The games' renderers (web/src/games/<renderer>.js), loaded by name as the engine's game
// spec gives it. esbuild bundles every module the template can name into the page's
// script, so nothing is fetched from elsewhere (the page's CSP allows only its own scripts).
//
// A renderer's default export (the entries with ? are optional):
//   initialFrame(record) -> frame           the position before turn 1, from record.start
//   applyTurn(frame, turn) -> frame         a new frame after one turn record (schema 2)
//   draw(ctx, width, height, frame, names)  only known values drawn
//   legend(frame, names) -> [{colour, label, small?, shape?}]
//   describe(frame, names) -> string        the canvas's accessible name
//   seatView?(frame, seat) -> string|null   the bot's own view as text
//   lastMove?(frame, names) -> string       what the last turn did, for the info line
//   turnWord?: string                       "Turn" unless the game says otherwise
//   aspect?(frame) -> number                the board's width / height (1 if absent)
// The viewer adds {turn, total, last, next} to each frame (last/next: the turn records
// around it, in schema version 2's shape).

const loaded = new Map();

export function loadRenderer(name) {
  if (typeof name !== "string" || !/^[a-z][a-z0-9_]*$/.test(name)) {
    return Promise.reject(new Error(`no renderer named ${JSON.stringify(String(name)).slice(0, 60)}`));
  }
  if (!loaded.has(name)) {
    // A game on the public API may name a hand-drawn renderer the page lacks: its records
    // carry draw()'s pictures, which the generic renderer draws. (The bundle's import of a
    // name it lacks throws at once: the Promise makes that a rejection too.)
    const loading = new Promise((resolve) => resolve(import(`./games/${name}.js`)))
      .catch((e) => (name === "generic" ? Promise.reject(e) : import("./games/generic.js")))
      .then((m) => m.default);
    loading.catch(() => loaded.delete(name));
    loaded.set(name, loading);
  }
  return loaded.get(name);
}
