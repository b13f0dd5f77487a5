// Makes the memory snapshot static/pyodide.mjs restores: starts a fresh Pyodide, snapshots its
// memory and stores it in Cache Storage, then ends. It runs in its own worker so that no
// document, setting or app state can ever be in the snapshot, and so that the app's worker
// keeps answering while it runs. Replies "stored" or the reason it did not.
import { CACHE_NAME, SNAPSHOT_KEY, loadCompiled } from "./pyodide.mjs";

onmessage = async ({ data: module }) => {
  try {
    const quiet = () => {};
    const pyodide = await loadCompiled(module, { _makeSnapshot: true, stdout: quiet, stderr: quiet });
    const snapshot = pyodide.makeMemorySnapshot();
    const cache = await caches.open(CACHE_NAME);
    // One snapshot is kept: the one of the Pyodide build this page runs.
    for (const request of await cache.keys()) {
      if (request.url !== SNAPSHOT_KEY) await cache.delete(request);
    }
    await cache.put(SNAPSHOT_KEY, new Response(snapshot, { headers: { "Content-Type": "application/octet-stream" } }));
    postMessage("stored");
  } catch (error) {
    postMessage(`not stored: ${error}`);
  }
};
