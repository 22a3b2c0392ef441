// The page's first script: it starts the controller Worker as soon as the page is parsed, so
// that Python starts while app.js (the page's big bundle, its editors and board) still loads
// and runs. app.js takes the Worker over (window.kothBoot.take()) with the messages it sent
// meanwhile. Inside a Stack Snippet this script does not run and app.js starts the Worker.
performance.mark("controller-started");
const stopFlag = self.crossOriginIsolated ? new Int32Array(new SharedArrayBuffer(4)) : null;
const early = [];
const keep = (event) => early.push(event);
let worker = null;
try {
  worker = new Worker("controller_worker.js", { type: "module" });
  worker.addEventListener("message", keep);
  worker.addEventListener("error", keep);
  worker.postMessage({ type: "init", stopFlag, siteFiles: null });
} catch (err) {
  worker = null; // app.js starts one and reports what goes wrong
}

window.kothBoot = {
  // {worker, stopFlag, early: [the events it sent so far]}, once, or null
  take() {
    delete window.kothBoot;
    if (!worker) return null;
    worker.removeEventListener("message", keep);
    worker.removeEventListener("error", keep);
    return { worker, stopFlag, early };
  },
};
