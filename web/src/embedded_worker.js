// Module Workers inside a Stack Snippet (engine/contest/snippet.py). The snippet's frame has an opaque
// origin, where Chromium refuses a module Worker from a blob: URL (and a snippet has no other
// URL for the page's scripts), but starts a classic one, which may import() a module from a
// blob: URL. So the Worker is a small classic script that imports the module; messages that
// arrive before the module has loaded are held and dispatched to it afterwards. Pyodide
// refuses to run in a classic Worker (it tries importScripts): importScripts is made to throw,
// as in a module Worker. Checked in Chromium in an iframe sandboxed like the site's.

function shimSource(moduleURL) {
  return `(() => {
  const held = [];
  const hold = (event) => held.push(event);
  self.addEventListener("message", hold);
  self.importScripts = () => { throw new TypeError("importScripts() is not available in a module Worker"); };
  import(${JSON.stringify(moduleURL)}).then(() => {
    self.removeEventListener("message", hold);
    for (const e of held) self.dispatchEvent(new MessageEvent("message", { data: e.data, ports: [...e.ports] }));
  }, (err) => setTimeout(() => { throw err; }));
})();
`;
}

// A Worker running the module whose source is `source` (a Blob of JavaScript).
export function startModuleWorker(source) {
  const moduleURL = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
  const shim = URL.createObjectURL(new Blob([shimSource(moduleURL)], { type: "text/javascript" }));
  return new Worker(shim);
}
