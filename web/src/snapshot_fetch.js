// A Worker with one job: download the build's Python snapshot (config.json "snapshot"), checked
// by its SHA-256 (Subresource Integrity), as soon as the page starts. boot.js starts it before
// anything else, on a thread of its own: the controller Worker's thread is busy setting up
// Python meanwhile, and a body is only read as fast as its thread takes the pieces.
//
// Page -> here: {url, integrity}.  Here -> page: {bytes: ArrayBuffer} (transferred) | {error}.
self.onmessage = async (event) => {
  const { url, integrity } = event.data || {};
  try {
    const response = await fetch(url, { integrity });
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
    const bytes = await response.arrayBuffer();
    self.postMessage({ bytes }, [bytes]);
  } catch (err) {
    self.postMessage({ error: String(err).slice(0, 300) });
  }
  self.close();
};
