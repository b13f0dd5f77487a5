// The offline copy of the page, in a service worker (../sw.js imports this file after the list
// of files, self.OFFLINE, that tools/offline.py writes as static/vendor/offline.js).
//
// One cache per version of the page, "chunker-offline-<version>", and nothing else in it but
// the page's own files, each checked against the sha256 the list gives: never a document, a
// setting or anything the page computes. A version's cache is filled completely (the files
// the page loads at every start) before this worker takes over from the previous one, and the
// previous version's cache is deleted when it does; files that did not change are copied
// from it rather than downloaded again. Files the page loads only sometimes (the exact
// tokenizers' wheel) are kept the first time it asks for them.
//
// Cache first, for every file in the list: all of them come from the one version this worker
// has, so a page never mixes an app of one version with a runtime of another. A file the cache
// lacks goes to the network, and reaches the page only if it is the file this version lists: a
// file of a newer version (the site was updated meanwhile) is refused, with a 409 that says to
// reload. Files the page loaded before this worker controlled it (on a first visit, an exact
// tokenizer chosen early) are taken from the HTTP cache when the worker activates and whenever
// the page is hidden, never from the network. Requests for anything else are not touched. The memory snapshot static/pyodide.mjs makes lives in a cache of its own
// ("chunker-runtime"), which this worker leaves alone.
"use strict";

const { version: VERSION, precache: PRECACHE, on_demand: ON_DEMAND } = self.OFFLINE;
const PREFIX = "chunker-offline-";
const CACHE = PREFIX + VERSION;
const FILES = { ...PRECACHE, ...ON_DEMAND };
const BASE = new URL("./", self.registration.scope);
const SHA = "X-Chunker-Sha256"; // on each kept response: what it holds, checked on copying it
// Headers of the download that do not describe what is kept (the body is stored decoded).
const DROPPED = ["Content-Encoding", "Content-Length", "Date", "ETag", "Last-Modified", "Cache-Control",
                 "Vary", "Age", "Expires", "Connection", "Keep-Alive"];
const DOWNLOADS_AT_ONCE = 6;

const urlOf = (rel) => new URL(rel, BASE).href;

/** The file of the list a request asks for (a query is ignored, as a static host ignores it),
 *  or null. The page itself is index.html. */
function fileOf(request) {
  const url = new URL(request.url);
  if (url.origin !== BASE.origin || !url.pathname.startsWith(BASE.pathname)) return null;
  let rel;
  try {
    rel = decodeURIComponent(url.pathname.slice(BASE.pathname.length));
  } catch {
    return null;
  }
  if (rel === "") rel = "index.html";
  return Object.hasOwn(FILES, rel) ? rel : null;
}

async function sha256(bytes) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The response to keep for `rel`, if `response` holds exactly the listed file; else null. */
async function keepable(rel, response) {
  if (!response.ok || response.type !== "basic") return null;
  const body = await response.arrayBuffer();
  const digest = await sha256(body);
  if (digest !== FILES[rel]) return null;
  const headers = new Headers(response.headers);
  for (const name of DROPPED) headers.delete(name);
  headers.set(SHA, digest);
  return new Response(body, { status: 200, statusText: "OK", headers });
}

/** Download `rel`, checked against the list: from the HTTP cache when it holds the file (the
 *  page has just loaded it), else, or if that copy is not the listed one, from the server. */
async function download(rel) {
  for (const cache of ["default", "no-cache"]) {
    const kept = await keepable(rel, await fetch(urlOf(rel), { cache }));
    if (kept) return kept;
  }
  throw new Error(`${rel} on the server is not the file this version lists`);
}

/** A response for `rel` with the listed hash in an older version's cache, or null. */
async function fromOlder(rel, older) {
  for (const name of older) {
    const hit = await (await caches.open(name)).match(urlOf(rel));
    if (hit && hit.headers.get(SHA) === FILES[rel]) return hit;
  }
  return null;
}

async function fill() {
  const cache = await caches.open(CACHE);
  const older = (await caches.keys()).filter((name) => name.startsWith(PREFIX) && name !== CACHE);
  const jobs = Object.keys(FILES).map((rel) => async () => {
    const had = await cache.match(urlOf(rel));
    if (had && had.headers.get(SHA) === FILES[rel]) return;
    const copy = await fromOlder(rel, older);
    if (copy) return cache.put(urlOf(rel), copy);
    if (Object.hasOwn(PRECACHE, rel)) return cache.put(urlOf(rel), await download(rel));
  });
  const next = async () => {
    for (let job = jobs.shift(); job; job = jobs.shift()) await job();
  };
  await Promise.all(Array.from({ length: DOWNLOADS_AT_ONCE }, next));
}

self.addEventListener("install", (event) => {
  event.waitUntil(fill());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
    }
    // The first version takes the page that registered it at once, so that what that page
    // still loads (the tokenizers' wheel) is kept too. A later version takes over from the
    // previous one only when no page shows that one (or at a navigation: see navigate()).
    await self.clients.claim();
    await keepLoaded();
  })());
});

/** The on-demand files the page already loaded without this worker (before it controlled the
 *  page): kept from the HTTP cache, checked against the list like every other file. Never from
 *  the network: a file the page never asked for is not downloaded. */
async function keepLoaded() {
  const cache = await caches.open(CACHE);
  for (const rel of Object.keys(ON_DEMAND)) {
    if (await cache.match(urlOf(rel))) continue;
    let response;
    try {
      response = await fetch(urlOf(rel), { cache: "only-if-cached", mode: "same-origin" });
    } catch {
      continue; // not in the HTTP cache: the page has not loaded it
    }
    const kept = await keepable(rel, response);
    if (kept) await cache.put(urlOf(rel), kept);
  }
}

self.addEventListener("message", (event) => {
  if (event.data === "activate") self.skipWaiting();
  if (event.data === "keep") event.waitUntil(keepLoaded());
  if (event.data === "version?" && event.ports[0]) event.ports[0].postMessage(VERSION);
});

async function respond(event, rel) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(urlOf(rel));
  if (hit) return hit;
  const response = await fetch(event.request);
  if (!response.ok) return response;
  const kept = await keepable(rel, response);
  if (!kept) return otherVersion(rel);
  event.waitUntil(cache.put(urlOf(rel), kept.clone()));
  return kept;
}

/** What the page gets for a file whose bytes on the server are not this version's: the site was
 *  updated while it ran. Nothing of the other version reaches it. */
function otherVersion(rel) {
  return new Response(`${rel} on the server belongs to another version of this page: reload the page.`, {
    status: 409, statusText: "Conflict", headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });
}

// The page while this worker hands over to a new version: nothing to load, so that nothing
// holds the handover up (Chromium waits until the old version has no request in hand, and a page
// starting on it can keep it busy for good). It reloads once the new version is the active one,
// asking every quarter second: Chromium often fires no controllerchange here, which left the
// page to the 10-second fallback.
function handover(nonce) {
  return `<!doctype html><html lang="en"><meta charset="utf-8"><title>Chunker</title>
<p>Updating the page's offline copy…</p>
<script nonce="${nonce}">
const sw = navigator.serviceWorker;
// Once in 2 s at most: a reload whose navigation is held up is tried again, not every 250 ms.
let reloadedAt = -Infinity;
const reload = () => { if (Date.now() - reloadedAt > 2000) { reloadedAt = Date.now(); location.reload(); } };
sw.addEventListener("controllerchange", reload);
// Not while the new version is still activating: a navigation then waits on its activation,
// which can wait on that navigation in turn (the page never loaded).
const check = () => sw.getRegistration().then((r) => {
  if (!r || (!r.waiting && (!r.active || r.active.state === "activated"))) reload();
});
check();
setInterval(check, 250);
setTimeout(() => location.reload(), 10000);
</script></html>`;
}
const HANDOVER_AGAIN_MS = 30000;
let handoverAt = -Infinity;

/** The page itself: a new version that finished downloading during an earlier visit takes over
 *  now, before the page starts, unless another tab still shows this version (or a handover
 *  was just tried: then the page opens on this version, and the next visit tries again). */
async function navigate(event) {
  const waiting = self.registration.waiting;
  if (waiting && Date.now() - handoverAt > HANDOVER_AGAIN_MS) {
    const pages = await self.clients.matchAll({ type: "window" });
    if (pages.length <= 1) { // at most the page this navigation replaces
      handoverAt = Date.now();
      waiting.postMessage("activate");
      const nonce = crypto.randomUUID();
      return new Response(handover(nonce), { headers: {
        "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store",
        "Content-Security-Policy": `default-src 'none'; script-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'` } });
    }
  }
  return respond(event, "index.html");
}

self.addEventListener("fetch", (event) => {
  if (event.request.method !== "GET") return;
  const rel = fileOf(event.request);
  if (rel === "index.html" && event.request.mode === "navigate") event.respondWith(navigate(event));
  else if (rel !== null) event.respondWith(respond(event, rel));
});
