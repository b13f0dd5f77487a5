// Registers the page's offline copy (../sw.js, static/sw.js) and moves to a new version of it.
//
// On a first visit the service worker is registered only once the first chunks are on screen:
// its downloads (mostly from the HTTP cache by then) must not compete with the page's own.
// On a return visit the page is already served by it, and registering again checks for an
// update. A new version downloads in the background and waits; the service worker hands over to
// it the next time the page is opened or reloaded, so a page always runs on the files of one
// version. Nothing here, nor in the service worker, ever sees the document.
//
// <body data-offline>: "unavailable" (no service workers here: an insecure origin, a private
// window of some browsers), "installing", "ready" (this version is kept: the page opens
// offline; <body data-offline-version> says which), "update" (a new version is waiting for the
// next start), "failed" (it could not be kept; the page works online as before).
(function () {
  "use strict";
  var script = document.currentScript;

  function mark(state) {
    document.body.setAttribute("data-offline", state);
  }

  function whenReady(then) {
    if (document.body.getAttribute("data-ready") === "true") return then();
    var watch = new MutationObserver(function () {
      if (document.body.getAttribute("data-ready") === "true") {
        watch.disconnect();
        then();
      }
    });
    watch.observe(document.body, { attributes: true, attributeFilter: ["data-ready"] });
  }

  function ready(registration) {
    mark("ready");
    var worker = navigator.serviceWorker.controller || registration.active;
    if (!worker) return;
    worker.postMessage("keep"); // what this page loaded before the worker served it
    var channel = new MessageChannel();
    channel.port1.onmessage = function (event) {
      document.body.setAttribute("data-offline-version", String(event.data));
    };
    worker.postMessage("version?", [channel.port2]);
  }

  function follow(worker, registration) {
    // A worker on its way: ready once it is the active one; one that gives up before it is
    // installed could not keep every file (one that a newer version replaces gave up nothing).
    var installed = false;
    worker.addEventListener("statechange", function () {
      if (worker.state === "installed") {
        installed = true;
        if (registration.active && registration.active !== worker) mark("update");
      } else if (worker.state === "activated") {
        ready(registration);
      } else if (worker.state === "redundant" && !installed) {
        if (!registration.active) mark("failed");
        console.warn("The offline copy of this page could not be " + (registration.active ? "updated" : "made") +
                     ": its files did not all arrive intact.");
      }
    });
  }

  function register() {
    var url = new URL("../sw.js", script.src);
    navigator.serviceWorker.register(url, { updateViaCache: "none" }).then(function (registration) {
      if (registration.active) ready(registration);
      else mark("installing");
      if (registration.waiting && registration.active) mark("update");
      if (registration.installing) follow(registration.installing, registration);
      registration.addEventListener("updatefound", function () {
        if (registration.installing) follow(registration.installing, registration);
      });
      if (navigator.serviceWorker.controller) {
        // Is there a new version? Offline, or with the server gone, the answer is no.
        registration.update().catch(function () {});
      }
    }, function (error) {
      mark("failed");
      console.warn("The offline copy of this page could not be registered:", String(error));
    });
  }

  // A file the page loaded on first use (an exact tokenizer's wheel) while no worker served it
  // is kept when the page is put away, so that it opens offline next time.
  document.addEventListener("visibilitychange", function () {
    var worker = navigator.serviceWorker && navigator.serviceWorker.controller;
    if (document.visibilityState === "hidden" && worker) worker.postMessage("keep");
  });

  document.addEventListener("DOMContentLoaded", function () {
    if (!("serviceWorker" in navigator) || !window.isSecureContext) {
      mark("unavailable");
      return;
    }
    if (navigator.serviceWorker.controller) register();
    else whenReady(register);
  });
})();
