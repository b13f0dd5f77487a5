// Big strings stay in JavaScript: a few helpers app/main.py calls instead of touching them.
//
// MicroPython copies every JavaScript string it reads into its own heap, which holds a few
// megabytes at most: a 5 MB document, or the HTML of its view, would fail to allocate. So the
// document travels from the text box to the worker, and the view and exports from the worker
// to the page, inside JavaScript objects that MicroPython only passes along.
(function () {
  "use strict";
  var box = function () { return document.getElementById("document"); };

  window.chunkerBridge = {
    // The document, wrapped so MicroPython hands the worker an object, not a copied string.
    documentText: function () { return { text: box().value }; },
    documentLength: function () { return box().value.length; },

    // Set an element's HTML from a field of a view the worker returned (escaped there);
    // replaceHTML swaps the element itself for that HTML.
    setHTML: function (element, view, key) { element.innerHTML = view[key]; },
    replaceHTML: function (element, view, key) { element.outerHTML = view[key]; },
    appendHTML: function (element, view, key) { element.insertAdjacentHTML("beforeend", view[key]); },

    // Every fragment of a successful view, in one call from MicroPython.
    showView: function (view) {
      var parts = [["counts", "counts"], ["stats", "stats"], ["doc-view", "doc"], ["cards", "cards"],
                   ["advice", "advice"], ["code", "code"], ["records-preview", "preview"]];
      for (var i = 0; i < parts.length; i++) {
        document.getElementById(parts[i][0]).innerHTML = view[parts[i][1]];
      }
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
