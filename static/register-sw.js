// Registers the page's offline copy (../sw.js, static/sw.js) and moves to a new version of it.
//
// On a first visit the service worker is registered only once the first chunks are on screen:
// its downloads (mostly from the HTTP cache by then) must not compete with the page's own.
// On a return visit the page is already served by it, and registering again just checks for
// an update. A new version downloads in the background and waits; the next time the page
// starts, before anyone could have typed into it, this reloads into the new version, so a
// page always runs on the files of one version. Nothing here, nor in the service worker,
// ever sees the document.
//
// <body data-offline>: "unavailable" (no service workers here: an insecure origin, a private
// window of some browsers), "installing", "ready" (this version is kept: the page opens
// offline), "update" (a new version is waiting for the next start), "failed" (it could not be
// kept; the page works online as before).
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

  function follow(worker, registration) {
    // A worker on its way: ready once it is the active one, failed if it gives up.
    worker.addEventListener("statechange", function () {
      if (worker.state === "redundant" && registration.active !== worker) {
        if (!registration.active) mark("failed");
        console.warn("The offline copy of this page could not be updated: its files did not all arrive intact.");
      } else if (worker.state === "installed" && registration.active && registration.active !== worker) {
        mark("update");
      } else if (worker.state === "activated") {
        mark("ready");
      }
    });
  }

  function register() {
    var url = new URL("../sw.js", script.src);
    navigator.serviceWorker.register(url, { updateViaCache: "none" }).then(function (registration) {
      if (registration.waiting && registration.active) {
        // A version installed during an earlier visit: move to it now, at the page's start.
        mark("update");
        navigator.serviceWorker.addEventListener("controllerchange", function () { location.reload(); });
        registration.waiting.postMessage("activate");
        return;
      }
      if (registration.installing) {
        if (!registration.active) mark("installing");
        follow(registration.installing, registration);
      } else if (registration.active) {
        mark("ready");
      }
      registration.addEventListener("updatefound", function () {
        if (registration.installing) follow(registration.installing, registration);
      });
    }, function (error) {
      mark("failed");
      console.warn("The offline copy of this page could not be registered:", String(error));
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    if (!("serviceWorker" in navigator) || !window.isSecureContext) {
      mark("unavailable");
      return;
    }
    if (navigator.serviceWorker.controller) register();
    else whenReady(register);
  });
})();
