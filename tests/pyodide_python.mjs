// Runs Python code (read from stdin) in Pyodide under Node, with this repository's
// engine package importable, and prints the value of its last expression (a str).
// Used by tests/test_pyodide.py to check that a seed gives the same game in Pyodide as in
// CPython.
import { loadPyodide } from "pyodide";
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const code = readFileSync(0, "utf8");
const pyodide = await loadPyodide();
pyodide.FS.mkdirTree("/repo/engine");
pyodide.mountNodeFS("/repo/engine", resolve(repo, "engine"));
pyodide.runPython("import sys; sys.path.insert(0, '/repo')");
// KOTH_PYODIDE_ZIPS: zips of more packages (":"-separated paths), as the page unpacks them.
for (const zip of (process.env.KOTH_PYODIDE_ZIPS || "").split(":").filter(Boolean)) {
  pyodide.unpackArchive(new Uint8Array(readFileSync(zip)), "zip", { extractDir: "/extra" });
  pyodide.runPython("import sys\nif '/extra' not in sys.path: sys.path.append('/extra')");
}
process.stdout.write(String(pyodide.runPython(code)));
