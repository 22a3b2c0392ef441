// Whether this page or Worker can share memory with its Workers (the bots' "sync" mode).
// Being cross-origin isolated is not enough: WebKitGTK 2.50 (Safari's engine) reports
// crossOriginIsolated yet has no SharedArrayBuffer constructor and refuses to post a shared
// buffer (a shared WebAssembly.Memory's) to a Worker. The page took the missing constructor
// for a fatal error and never became ready (issue 20, item 3); there it now runs as a page
// that is not isolated does, and says so.

export function canShareMemory() {
  if (self.crossOriginIsolated !== true || typeof SharedArrayBuffer !== "function") return false;
  try {
    const probe = new MessageChannel();
    probe.port1.postMessage(new SharedArrayBuffer(4));
    probe.port1.close();
    probe.port2.close();
    return true;
  } catch (err) {
    return false;
  }
}

export function isShared(buffer) {
  return Object.prototype.toString.call(buffer) === "[object SharedArrayBuffer]";
}
