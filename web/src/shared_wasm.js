// What a Pyodide start fetches, given from memory instead: Pyodide's WebAssembly, compiled
// once (by the controller Worker) and shared with every bot Worker, so that each Pyodide
// skips compiling it and V8 tiers it up once for all; and files already in hand.

// Make the next loadPyodide() in this Worker use `wasmModule`.
export function useCompiledModule(wasmModule) {
  WebAssembly.instantiateStreaming = async (source, imports) => ({
    module: wasmModule, instance: await WebAssembly.instantiate(wasmModule, imports),
  });
  // Pyodide still downloads its WebAssembly before instantiating it. With the module in hand
  // that download is waste, and worse: one left unread keeps the browser's cache entry busy,
  // so the page's next load waits seconds for it. Answer it with an empty body.
  answerFetches({ "pyodide.asm.wasm": new Uint8Array(0) });
}

// Answer this Worker's fetches of these file names (the URL's last segment) from memory:
// {NAME: ArrayBuffer or typed array}. Other fetches go to the network as before.
export function answerFetches(files) {
  const fetchBefore = self.fetch;
  self.fetch = (resource, options) => {
    // Pyodide passes a URL object or a string; a Request has .url
    const url = resource instanceof URL ? resource.href : typeof resource === "string" ? resource : resource?.url;
    const name = typeof url === "string" ? url.split(/[?#]/)[0].split("/").pop() : null;
    if (name !== null && Object.hasOwn(files, name)) {
      const type = name.endsWith(".wasm") ? "application/wasm" : "application/octet-stream";
      return Promise.resolve(new Response(files[name], { headers: { "Content-Type": type } }));
    }
    return fetchBefore.call(self, resource, options);
  };
}
