// The interpreter module PyScript's worker loads (pyscript.toml: interpreter). It is the vendored
// Pyodide, except that the WebAssembly comes already compiled from the page (static/compile.js).
//
// Why: Chromium keeps compiled WebAssembly in its code cache for the page's own thread only. A
// worker that compiles pyodide.asm.wasm itself starts on the baseline tier at every visit, and
// Python's start-up then ran 0.5-0.7 s slower on a reload than the same Pyodide on the page.
// A module compiled by the page carries the cached optimized code into the worker.
import { loadPyodide as loadVendored, version } from "./vendor/pyodide/pyodide.mjs";

export { version };

const INDEX_URL = new URL("./vendor/pyodide/", import.meta.url).href;
// Long enough for a slow cold compile on the page; a page that never answers (another host page,
// a PyScript change) costs this once, then Pyodide compiles here as it always could.
const WAIT_MS = 20000;

function compiledByPage() {
  // Asked over a channel of its own: PyScript's worker code takes every message that reaches
  // this worker's global scope as one for the app's Python.
  const { port1, port2 } = new MessageChannel();
  return new Promise((resolve) => {
    const timer = setTimeout(() => finish(null), WAIT_MS);
    function finish(module) {
      clearTimeout(timer);
      port1.close();
      resolve(module);
    }
    port1.onmessage = (event) => finish(event.data instanceof WebAssembly.Module ? event.data : null);
    postMessage({ type: "chunker:wasm?" }, [port2]);
  });
}

export async function loadPyodide(options = {}) {
  const module = await compiledByPage();
  const streaming = WebAssembly.instantiateStreaming;
  if (module) {
    // Pyodide instantiates its one module with instantiateStreaming(fetch(url), imports): hand it
    // the page's module instead, for that call only.
    WebAssembly.instantiateStreaming = async (_response, imports) => {
      WebAssembly.instantiateStreaming = streaming;
      return { module, instance: await WebAssembly.instantiate(module, imports) };
    };
  }
  try {
    // PyScript points indexURL at this file's folder; the runtime's files are in vendor/pyodide.
    return await loadVendored({ ...options, indexURL: INDEX_URL });
  } finally {
    WebAssembly.instantiateStreaming = streaming;
  }
}
