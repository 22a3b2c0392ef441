// How the bots' Workers will serve, as the page decides it before it starts the controller:
// the mode asked for in the address (`?bots=relay` or `?bots=push`: a less capable mode than
// the browser's best, for tests; harmless, since it only gives up abilities), and the bots'
// relay, the service worker web/bot_relay_sw.js, registered where it is needed: where a bot
// Worker can block neither on shared memory nor through JSPI, or where relay mode is asked.
import { canShareMemory } from "./shared_memory.js";

const RELAY_SCRIPT = "bot_relay_sw.js";
const CONTROL_WAIT_MS = 20_000; // the first visit: installing the service worker

export function forcedMode() {
  try {
    const asked = new URLSearchParams(self.location.search).get("bots");
    return asked === "relay" || asked === "push" ? asked : null;
  } catch (err) {
    return null;
  }
}

export function relayWanted(force = forcedMode()) {
  if (force) return force === "relay";
  const jspi = "Suspending" in WebAssembly || "Suspender" in WebAssembly;
  return !canShareMemory() && !jspi;
}

function container() {
  try {
    // an opaque origin (a sandboxed frame: the Stack Snippet) throws or has none
    return self.isSecureContext && self.navigator.serviceWorker ? self.navigator.serviceWorker : null;
  } catch (err) {
    return null;
  }
}

// Whether the page is served by the relay now (then the Workers it starts are too).
export function relayControls() {
  const sw = container();
  return Boolean(sw && sw.controller);
}

// Registers the relay if the page wants it and waits until it serves the page: a Promise of
// the init message's `bots` ({force, relay}).
export async function startRelay() {
  const force = forcedMode();
  const sw = relayWanted(force) ? container() : null;
  if (!sw) return { force, relay: false };
  try {
    await sw.register(RELAY_SCRIPT, { scope: "./" });
  } catch (err) {
    return { force, relay: false };
  }
  if (!sw.controller) {
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, CONTROL_WAIT_MS);
      sw.addEventListener("controllerchange", () => { clearTimeout(timer); resolve(); }, { once: true });
    });
  }
  return { force, relay: Boolean(sw.controller) };
}
