// The environment every Python of the page starts with: the build's snapshot
// (scripts/snapshot.mjs), the controller and the bot Workers when they boot instead (a browser
// that cannot use the build's snapshot), all alike, so a seed plays the same games whichever
// way Python started.
//
// PYTHONHASHSEED 0, as the native runner sets it (engine/bots/native.py): with Python's
// default, each interpreter draws its own key for hashing text, and a bot that iterates a set
// of strings would see its own order in each Worker and each page load. (The page's 32-bit
// Python still hashes differently from a 64-bit native one: docs/bots.md.)
export const PYTHON_ENV = Object.freeze({ HOME: "/home/pyodide", LANG: "C.UTF-8", PYTHONHASHSEED: "0" });
