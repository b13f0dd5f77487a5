// Compiles Pyodide's WebAssembly on the page, as soon as the page starts, and hands the module to
// the chunker worker when it asks (static/pyodide.mjs explains why). Nothing here is needed for
// the page to work: if compiling fails, the worker is told so and compiles the module itself.
// The worker then reports on the same channel how it started; the page shows that as
// <body data-wasm="page|worker" data-snapshot="restored|stored|not stored|unavailable">.
// index.html runs this module before PyScript's: the hook below must be in place before PyScript
// makes the worker, or the worker's request goes unanswered and it waits 20 s to compile alone.
import { hooks } from "./vendor/pyscript/core.js";

const WASM = new URL("./vendor/pyodide/pyodide.asm.wasm", import.meta.url).href;

const compiled = WebAssembly.compileStreaming(fetch(WASM)).catch((error) => {
  console.warn("Compiling Pyodide on the page failed; the worker will compile it.", error);
  return null;
});

// A file the worker fetches on first use (static/pyodide.mjs): <body data-lazy="loading|loaded|failed">,
// and while it loads, a line in the status box (the app hides the box once its view is shown).
function showStatus({ status, lazy }) {
  if (lazy) document.body.dataset.lazy = lazy;
  const box = document.getElementById("status");
  const text = document.getElementById("status-text");
  if (!box || !text || status === undefined) return;
  // "" ends a long call's lines: it comes on the same channel as they do, so after the last one.
  if (status) text.textContent = status;
  box.hidden = !status;
}

hooks.main.onWorker.add((_wrap, xworker) => {
  // The page may stop a worker busy with work a newer setting made stale, and start another
  // (app/main.py restart_worker): it needs the worker itself to terminate it.
  (window.chunkerWorkers = window.chunkerWorkers || []).push(xworker);
  xworker.addEventListener("message", async (event) => {
    if (!event.data || event.data.type !== "chunker:wasm?" || !event.ports.length) return;
    event.stopImmediatePropagation();
    const [port] = event.ports;
    port.onmessage = ({ data }) => {
      if (data && typeof data === "object") showStatus(data);
      else document.body.dataset.snapshot = String(data);
    };
    let module = await compiled;
    try {
      port.postMessage(module);
    } catch (error) {
      // A browser that cannot pass compiled modules to workers: the worker compiles its own.
      console.warn("Could not hand the compiled Pyodide to the worker.", error);
      module = null;
      port.postMessage(null);
    }
    document.body.dataset.wasm = module ? "page" : "worker";
  });
});
