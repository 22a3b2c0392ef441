// What a bot reads of its surroundings in a Python restored from a built snapshot, the way
// the page's Workers restore it (web/src/bot_worker.js: sparse, SNAPSHOT_TO_COME), or, with
// no snapshot given, in a Pyodide started as a browser starts it (the program's name a
// browser gives it, with the page's environment (web/src/python_env.js)). Prints one JSON
// line: the environment, working folder, argv, executable, path, uname, user, home, host
// name, time zone, and the hash of a text (the same in every interpreter of the page).
//
//     node tests/snapshot_view.mjs [SITE_DIR/python-snapshot.bin]
//
// Used by tests/hostile/test_snapshot_origin.py.
import { readFileSync } from "node:fs";
import { loadPyodide } from "pyodide";
import createPyodideModule from "pyodide/pyodide.asm.mjs";
import { PYTHON_ENV } from "../web/src/python_env.js";
import { SNAPSHOT_TO_COME, restoringSparse, snapshotMemoryBytes } from "../web/src/sparse_snapshot.js";

const VIEW = `
import getpass, json, os, socket, sys, time
json.dumps({
    "environ": dict(os.environ), "cwd": os.getcwd(), "argv": sys.argv,
    "orig_argv": sys.orig_argv, "executable": sys.executable, "path": sys.path,
    "uname": list(os.uname()), "user": getpass.getuser(), "home": os.path.expanduser("~"),
    "host": socket.gethostname(), "tzname": list(time.tzname), "timezone": time.timezone,
    "text_hash": hash("koth arena"),
})
`;

const file = process.argv[2];
const options = { _sysExecutable: "./this.program", stdout: () => {}, env: { ...PYTHON_ENV } };
if (file) {
  const bytes = new Uint8Array(readFileSync(file));
  options._loadSnapshot = SNAPSHOT_TO_COME;
  options.createPyodideModule = restoringSparse(createPyodideModule, bytes, snapshotMemoryBytes(bytes));
}
const pyodide = await loadPyodide(options);
console.log(pyodide.runPython(VIEW));
