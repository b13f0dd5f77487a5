// Runs before any Python: says what is loading, and explains a start-up that never finishes.
// Everything else on the page is Python (app/main.py); this file only covers the seconds, or
// the failure, before MicroPython is up. Page scripts live in files: the CSP forbids inline ones.
(function () {
  "use strict";
  var UI_TIMEOUT_MS = 30000;

  function $(id) { return document.getElementById(id); }

  function say(text) {
    var el = $("status-text");
    if (el) el.textContent = text;
  }

  function fail(text) {
    var box = $("error");
    if (!box) return;
    box.textContent = text;
    box.hidden = false;
    var status = $("status");
    if (status) status.hidden = true;
  }

  function uiStarted() {
    return document.body && document.body.getAttribute("data-ui") === "true";
  }

  document.addEventListener("DOMContentLoaded", function () {
    if (location.protocol === "file:") {
      fail("This page cannot run from a file: browsers refuse to load its WebAssembly that way. " +
           "Run python serve.py and open the address it prints.");
      return;
    }
    if (typeof WebAssembly !== "object") {
      fail("This browser has no WebAssembly, which the playground needs to run Python.");
      return;
    }
    say("Loading the interface (MicroPython)…");
    var bar = $("load-progress");
    if (bar) bar.value = 0.5;
    setTimeout(function () {
      if (!uiStarted()) {
        fail("The interface did not start within " + (UI_TIMEOUT_MS / 1000) + " seconds. " +
             "Reload the page; if you serve it yourself, use python serve.py, which serves " +
             "the WebAssembly runtime with the right content types.");
      }
    }, UI_TIMEOUT_MS);
  });

  // Before MicroPython is up, a script error would otherwise leave the page silently stuck.
  window.addEventListener("error", function (event) {
    if (!uiStarted() && event && event.message) {
      fail("The page could not start: " + event.message);
    }
  });
})();
