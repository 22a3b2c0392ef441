// Pyodide's WebAssembly, compiled once (by the controller Worker) and shared with every
// bot Worker: each Pyodide then skips compiling it, and V8 tiers it up once for all.

// Make the next loadPyodide() in this Worker use `wasmModule`.
export function useCompiledModule(wasmModule) {
  WebAssembly.instantiateStreaming = async (source, imports) => ({
    module: wasmModule, instance: await WebAssembly.instantiate(wasmModule, imports),
  });
  skipWasmDownload();
}

// Pyodide downloads its WebAssembly itself before instantiating it. With the module in
// hand that download is waste, and worse: one left unread keeps the browser's cache entry
// busy, so the page's next load waits seconds for it. Answer it with an empty body.
function skipWasmDownload() {
  const realFetch = self.fetch.bind(self);
  self.fetch = (resource, options) => {
    // Pyodide passes a URL object; a Request has .url
    const url = resource instanceof URL ? resource.href : typeof resource === "string" ? resource : resource?.url;
    if (typeof url === "string" && url.endsWith("/pyodide.asm.wasm")) {
      const headers = { "Content-Type": "application/wasm" };
      return Promise.resolve(new Response(new Uint8Array(0), { headers }));
    }
    return realFetch(resource, options);
  };
}
