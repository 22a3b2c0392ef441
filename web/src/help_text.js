// The Mode help, written from the game's spec (issue 18): "the bots below play each other"
// is wrong for a one-player game such as Atomas, where each bot plays its own copy of
// every seed. The seat count comes from the preset (Flit trial: 2, full: 4), else the game.

const CLI = "python -m engine tournament";

function seats(spec, preset) {
  const bots = preset && Array.isArray(preset.bots) ? preset.bots : [spec.min_bots, spec.max_bots];
  const [lo, hi] = bots.map((n) => (Number.isInteger(n) ? n : 0));
  return { lo, hi };
}

// The Match sentence for `spec` (the engine's GameSpec JSON) with `preset` (one of its presets).
export function matchHelp(spec, preset) {
  if (!spec) return "Match: the bots below play for the number of games.";
  const ranked = spec.scoring === "mean_score" ? "ranked by mean score" : "ranked by wins";
  if (spec.side_by_side) {
    return "Match: a one-player game: each bot below plays its own copy of every game (the same "
      + `seeds for every bot, no bot sees another), for the number of games, ${ranked}.`;
  }
  const { lo, hi } = seats(spec, preset);
  const count = lo === hi ? `the ${lo} bots below` : `the bots below (${lo} to ${hi})`;
  const how = lo === 2 && hi === 2 ? "play each other" : "play each other, all in the same game,";
  return `Match: ${count} ${how} for the number of games, ${ranked}.`;
}

// The Tournament sentence: pairs in two-player games, tables of seats in many-seat games,
// the same seeds for everyone in one-player games.
export function tournamentHelp(spec, preset) {
  const rank = `ranked as ${CLI} ranks them`;
  const start = "Tournament: every entry of the challenge below that is switched on";
  if (spec && spec.side_by_side) {
    return `${start} plays the same seeds alone (Games is games per entry), ${rank}.`;
  }
  const { lo, hi } = spec ? seats(spec, preset) : { lo: 2, hi: 2 };
  if (lo === 2 && hi === 2) return `${start} plays every other one (Games is games per pair, even), ${rank}.`;
  const tables = lo === hi ? `tables of ${lo} seats` : `tables of up to ${hi} seats (as many as there are entries)`;
  return `${start} plays in balanced ${tables} (Games is rounds, a seed each), ${rank}.`;
}

// Fills the Mode help's two spans (.match-only and .tournament-only inside `root`).
export function showModeHelp(root, spec, preset) {
  const match = root && root.querySelector(".match-only");
  const tournament = root && root.querySelector(".tournament-only");
  if (match) match.textContent = matchHelp(spec, preset);
  if (tournament) {
    const [before, after] = tournamentHelp(spec, preset).split(CLI);
    const code = document.createElement("code");
    code.textContent = CLI;
    tournament.replaceChildren(before, ...(after === undefined ? [] : [code, after]));
  }
}

// On a phone the help's paragraphs would push Run's results and the board a screen down:
// "How it works" starts closed there (one tap opens it), open on wider screens.
export const PHONE_QUERY = "(max-width: 600px)";

export function collapseHelpOnPhones(details) {
  if (details && window.matchMedia(PHONE_QUERY).matches) details.open = false;
}
