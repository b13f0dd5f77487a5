// Big strings stay in JavaScript: a few helpers app/main.py calls instead of touching them.
//
// MicroPython copies every JavaScript string it reads into its own heap, which holds a few
// megabytes at most: a 5 MB document, or the HTML of its view, would fail to allocate. So the
// document travels from the text box to the worker, and the view and exports from the worker
// to the page, inside JavaScript objects that MicroPython only passes along.
(function () {
  "use strict";
  var box = function () { return document.getElementById("document"); };

  // Size the view's new blocks from `from` on like the ones they replace; scroll back to where
  // the reader was once the view is tall enough again.
  function keepPlace(doc, from) {
    var place = doc.chunkerPlace;
    if (!place || !place.top) return;
    for (var k = from; k < doc.children.length && k < place.heights.length; k++) {
      var block = doc.children[k];
      if (block.className === "slice") block.style.containIntrinsicSize = "auto " + place.heights[k] + "px";
    }
    if (place.restored) return;  // the reader may scroll on meanwhile: restore once only
    if (doc.scrollTop < place.top) doc.scrollTop = place.top;
    place.restored = doc.scrollTop >= place.top - 1;
  }

  window.chunkerBridge = {
    // The document, wrapped so MicroPython hands the worker an object, not a copied string.
    documentText: function () { return { text: box().value }; },
    documentLength: function () { return box().value.length; },

    // Set an element's HTML from a field of a view the worker returned (escaped there);
    // replaceHTML swaps the element itself for that HTML.
    setHTML: function (element, view, key) { element.innerHTML = view[key]; },
    replaceHTML: function (element, view, key) { element.outerHTML = view[key]; },
    // The next part of a long document view (see showView).
    appendHTML: function (element, view, key) {
      var place = element.chunkerPlace, spacer = place && place.spacer;
      var from = element.children.length - (spacer ? 1 : 0);
      if (spacer) spacer.insertAdjacentHTML("beforebegin", view[key]);
      else element.insertAdjacentHTML("beforeend", view[key]);
      if (place && --place.left <= 0 && spacer) {
        spacer.remove();
        place.spacer = null;
      }
      keepPlace(element, from);
    },

    // Resolves once the next frame has been drawn.
    afterFrame: function () {
      return new Promise(function (resolve) {
        requestAnimationFrame(function () { setTimeout(resolve, 0); });
      });
    },

    // Every fragment of a successful view, in one call from MicroPython.
    showView: function (view) {
      var doc = document.getElementById("doc-view");
      // A long document arrives in parts (app/main.py). For a reader scrolled down it, the view
      // keeps its height meanwhile (a spacer stands in for the parts still to come), and blocks
      // the browser has not laid out keep the heights of the blocks they replace: blocks are
      // cut where the text is, not where the chunks are, so block k holds the same text as
      // before. The reader stays at the same text.
      var top = doc.scrollTop, heights = [], hold = top > 0 && view.doc_parts > 1, height = 0;
      if (hold) {
        for (var k = 0; k < doc.children.length; k++) heights.push(doc.children[k].offsetHeight);
        height = doc.scrollHeight;
      }
      var parts = [["counts", "counts"], ["stats", "stats"], ["doc-view", "doc"], ["cards", "cards"],
                   ["advice", "advice"], ["code", "code"], ["records-preview", "preview"]];
      for (var i = 0; i < parts.length; i++) {
        document.getElementById(parts[i][0]).innerHTML = view[parts[i][1]];
      }
      var place = doc.chunkerPlace = {top: hold ? top : 0, heights: heights, left: view.doc_parts - 1,
                                      spacer: null, restored: false};
      if (hold) {
        place.spacer = document.createElement("div");
        place.spacer.style.height = height + "px";
        place.spacer.style.overflowAnchor = "none";  // else the browser scrolls along as parts arrive
        doc.appendChild(place.spacer);
      }
      keepPlace(doc, 0);
    },

    // Read a dropped or chosen file into the text box. Resolves to "" or a message saying
    // why the file was not opened.
    openFile: function (file, maxBytes) {
      var name = file.name;
      if (!/\.(txt|md|markdown|text)$/i.test(name)) {
        return Promise.resolve("Cannot open " + name + ": only .txt and .md files can be opened. Paste other text instead.");
      }
      if (file.size > maxBytes) {
        return Promise.resolve(name + " is " + Math.round(file.size / 1e6) + " MB: open a file under " +
                               Math.round(maxBytes / 1e6) + " MB.");
      }
      return file.text().then(function (text) {
        if (text.indexOf("\u0000") !== -1) {
          return name + " is not a text file (it contains NUL bytes). Open a UTF-8 .txt or .md file.";
        }
        box().value = text;
        return "";
      }, function (error) {
        return "Cannot read " + name + ": " + error.message;
      });
    },

    // Offer a Blob (an export built in the worker) as a download.
    download: function (blob, filename) {
      var url = URL.createObjectURL(blob);
      var link = document.createElement("a");
      link.href = url;
      link.download = filename;
      document.body.appendChild(link);
      link.click();
      link.remove();
      setTimeout(function () { URL.revokeObjectURL(url); }, 10000);
    },

    // Put a Blob's text on the clipboard; resolves to true on success.
    copyBlob: function (blob) {
      var write = navigator.clipboard && window.ClipboardItem
        ? navigator.clipboard.write([new ClipboardItem({ "text/plain": blob })])
        : blob.text().then(function (text) { return navigator.clipboard.writeText(text); });
      return write.then(function () { return true; }, function () { return false; });
    }
  };
})();
