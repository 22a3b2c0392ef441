// The games' renderers (web/src/games/<renderer>.js), loaded by name as the engine's game
// spec gives it. esbuild bundles every module the template can name into the page's
// script, so nothing is fetched from elsewhere (the page's CSP allows only its own scripts).

const loaded = new Map();

export function loadRenderer(name) {
  if (typeof name !== "string" || !/^[a-z][a-z0-9_]*$/.test(name)) {
    return Promise.reject(new Error(`no renderer named ${JSON.stringify(String(name)).slice(0, 60)}`));
  }
  if (!loaded.has(name)) {
    const loading = import(`./games/${name}.js`).then((m) => m.default);
    loading.catch(() => loaded.delete(name));
    loaded.set(name, loading);
  }
  return loaded.get(name);
}
