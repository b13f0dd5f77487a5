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

  // A large document is held here instead of in the text box: a <textarea> lays out all of its
  // text at once, which freezes the page for about half a second per megabyte. So is a file
  // with CR line breaks, which the box would turn into LF. The box then shows the document's
  // start, read-only, and a note says why and offers to load the whole text into it.
  var LARGE = 150000;   // characters; a paste or file this long is held
  var PREVIEW = 10000;  // characters of a held document shown in the box
  var held = null, preview = null, pastedCR = false;
  var name = "";  // the opened file's name, for the code the page offers to copy
  var kept = {};  // what a restarted worker is given again (see keep)
  // Whether the document is the reader's own (pasted, typed, opened): it lives nowhere else, so
  // leaving the page asks first. The sample, or an empty box, leaves without a word.
  var own = false;
  // The reader's own document as it was before Insert sample or Clear replaced it: one step
  // of undo, kept here with the rest of the big strings (null: nothing to bring back).
  var undo = null;
  window.addEventListener("beforeunload", function (event) {
    if (own && current().length) {
      event.preventDefault();
      event.returnValue = "";
    }
  });

  // `asIs`: a file's text, kept exactly as it is (CR LF included), as python -m chunker reads
  // the file. Otherwise (a paste) line breaks become what the text box would make of them
  // (it turns CR LF and CR into LF), so the text is chunked as the same text in the box would be.
  function hold(text, asIs, said) {
    var b = box(), note = document.getElementById("held-note");
    if (!asIs) text = text.replace(/\r\n?/g, "\n");
    held = text;
    var cut = PREVIEW;
    var last = text.charCodeAt(cut - 1);
    if (last >= 0xD800 && last < 0xDC00) cut -= 1;  // never half of a surrogate pair
    b.value = text.slice(0, cut);
    preview = b.value;  // as the box keeps it, to notice when something else replaces it
    b.readOnly = true;
    b.classList.add("held");
    var why = [];
    if (text.length > cut) {
      // Counted in code points, as the counts below the box and python -m chunker count them.
      why.push("The box shows the first " + codePoints(b.value).toLocaleString("en") + " of " + codePoints(text).toLocaleString("en") +
               " characters, read-only; all of them are chunked. A text box this long would freeze the page while it lays the text out.");
    }
    if (said) {
      why.push(said);  // a file extracted to text: read-only, whatever its line breaks
    } else if (text.indexOf("\r") !== -1) {
      why.push("The file's line breaks (CR LF) are kept and counted as they are in the file, as python -m chunker " +
               "reads it, so the box shows the text read-only: a text box turns them into LF, and so does editing.");
    }
    document.getElementById("held-text").textContent = why.join(" ");
    note.hidden = false;
  }

  // Characters as Python counts them (a pair of surrogates is one).
  function codePoints(text) {
    var n = text.length;
    for (var i = 0, len = text.length; i < len; i++) {
      var c = text.charCodeAt(i);
      if (c >= 0xD800 && c < 0xDC00 && i + 1 < len) {
        var d = text.charCodeAt(i + 1);
        if (d >= 0xDC00 && d < 0xE000) { n -= 1; i += 1; }
      }
    }
    return n;
  }

  function release() {
    var b = box();
    held = preview = null;
    b.readOnly = false;
    b.classList.remove("held");
    document.getElementById("held-note").hidden = true;
  }

  // Whether a file is a PDF, a Word file (or an old binary one, which the worker names), or an
  // HTML page by its name: the worker extracts those (chunker.detect_kind judges for itself).
  function extracted(bytes, fileName) {
    var head = String.fromCharCode.apply(null, bytes.subarray(0, 8));
    return head.indexOf("%PDF-") === 0 || head.indexOf("PK\u0003\u0004") === 0 ||
      head === "\u00d0\u00cf\u0011\u00e0\u00a1\u00b1\u001a\u00e1" || /\.(x?html?|docx|pdf|doc)$/i.test(fileName);
  }

  // Where the first byte that is not UTF-8 starts, counted as Python's decoder counts it (the
  // start of the invalid sequence); -1 if there is none.
  function firstBadByte(bytes) {
    for (var i = 0, n = bytes.length; i < n;) {
      var b = bytes[i], need, lo = 0x80, hi = 0xBF;
      if (b < 0x80) { i += 1; continue; }
      if (b >= 0xC2 && b <= 0xDF) need = 1;
      else if (b >= 0xE0 && b <= 0xEF) { need = 2; if (b === 0xE0) lo = 0xA0; if (b === 0xED) hi = 0x9F; }
      else if (b >= 0xF0 && b <= 0xF4) { need = 3; if (b === 0xF0) lo = 0x90; if (b === 0xF4) hi = 0x8F; }
      else return i;
      for (var k = 1; k <= need; k++) {
        var c = i + k < n ? bytes[i + k] : -1;
        if (k === 1 ? (c < lo || c > hi) : (c < 0x80 || c > 0xBF)) return i;
      }
      i += need + 1;
    }
    return -1;
  }

  // What a file that is not UTF-8 may be, said as chunker.documents does (_likely): UTF-16 by
  // its byte order mark; else, unless its first megabyte holds a UTF-8 sequence (then it is
  // UTF-8 with a fault), Windows-1252, or Latin-1 when it holds a byte Windows-1252 leaves undefined.
  function likelyEncoding(bytes) {
    var guess;
    if ((bytes[0] === 0xFF && bytes[1] === 0xFE) || (bytes[0] === 0xFE && bytes[1] === 0xFF)) {
      guess = ["utf-16", "UTF-16"];
    } else {
      var head = bytes.subarray(0, 1 << 20), cp1252 = true;
      for (var i = 0, n = head.length; i < n; i++) {
        var b = head[i];
        if (b < 0x80) continue;
        if (b === 0x81 || b === 0x8D || b === 0x8F || b === 0x90 || b === 0x9D) cp1252 = false;
        var need = b >= 0xC2 && b <= 0xDF ? 1 : b >= 0xE0 && b <= 0xEF ? 2 : b >= 0xF0 && b <= 0xF4 ? 3 : 0;
        if (need) {
          var all = true;
          for (var k = 1; k <= need; k++) {
            var c = head[i + k];
            if (c === undefined || c < 0x80 || c > 0xBF) { all = false; break; }
          }
          if (all) return "";
        }
      }
      guess = cp1252 ? ["cp1252", "Windows-1252 (Western European)"] : ["latin-1", "Latin-1"];
    }
    return "it may be " + guess[1] + ": pass --encoding " + guess[0] + " (encoding=\"" + guess[0] + "\"), or ";
  }

  // The document: the held one, unless the box was given other text since (a script, a test).
  function current() {
    if (held !== null && box().value !== preview) release();
    return held !== null ? held : box().value;
  }

  // The code-point offsets (as JSON) of the text selected in the document box, or "" when none
  // is, or when the box does not show the document as it is (a held file's CR LF became LF).
  function boxSelection() {
    var b = box(), doc = current(), from = b.selectionStart, to = b.selectionEnd;
    if (from === to || b.value !== doc.slice(0, b.value.length)) return "";
    var start = Array.from(b.value.slice(0, from)).length;
    return JSON.stringify([start, start + Array.from(b.value.slice(from, to)).length]);
  }

  window.chunkerBridge = {
    // The document, wrapped so MicroPython hands the worker an object, not a copied string.
    documentText: function () { return { text: current(), name: name }; },
    documentLength: function () { return current().length; },
    // Whether the reader is in the text box (clicked into it, or tabbed there).
    documentFocused: function () { return document.activeElement === box(); },
    setName: function (value) { name = value || ""; },
    setOwn: function (value) { own = !!value; },
    // Keep the reader's own document before the sample or Clear replaces it; true if there
    // was one to keep (a sample or an empty box is not worth an undo).
    stash: function () {
      var text = current();
      if (!own || !text.length) return false;  // an earlier document kept stays kept
      undo = { text: text, held: held !== null, name: name, note: document.getElementById("held-text").textContent,
               extracted: (kept.document || {}).extracted || false };
      return true;
    },
    dropStash: function () { undo = null; },
    // Put the kept document back, as it was shown; returns what the caller must redo (an
    // extracted file's {extracted: found}, for the worker to read again), or false if nothing
    // was kept.
    unstash: function () {
      var u = undo;
      undo = null;
      if (u === null) return false;
      release();
      if (u.held) hold(u.text, true, u.extracted ? u.note : "");
      else box().value = u.text;
      name = u.name;
      own = true;
      return { extracted: u.extracted };
    },
    // The code-point offsets [start, end] (as JSON) of the text selected in the document view,
    // or "" when nothing there is selected. The view's text is the document's, character for
    // character (chunk numbers are CSS, not text), so the offsets index the document.
    // Else the text selected in the document box (with Shift and the arrows, say: a keyboard
    // cannot select in the view), when the box shows the document as it is.
    selectionOffsets: function () {
      var sel = window.getSelection(), view = document.getElementById("doc-view");
      var inView = sel && !sel.isCollapsed && sel.rangeCount &&
        view.contains(sel.getRangeAt(0).startContainer) && view.contains(sel.getRangeAt(0).endContainer);
      if (!inView) return boxSelection();
      var range = sel.getRangeAt(0);
      var before = document.createRange();
      before.setStart(view, 0);
      before.setEnd(range.startContainer, range.startOffset);
      var start = Array.from(before.toString()).length;
      return JSON.stringify([start, start + Array.from(range.toString()).length]);
    },
    // A file picked as a model's tokenizer.json, as {text} or {error} (one line naming the file).
    // A file far bigger than any tokenizer.json, or one that is not JSON by its first bytes, is
    // refused before it is read whole; what is read stays here, for the worker.
    readTokenizer: function (file, maxBytes) {
      var fileName = file.name, pick = ": pick the tokenizer.json of your model's folder";
      var no = function (why) { return {text: "", error: fileName + " is not a tokenizer.json (" + why + ")" + pick}; };
      var mb = function (n) { return (n / 1e6).toLocaleString("en", {maximumFractionDigits: 1}) + " MB"; };
      if (file.size > maxBytes) {
        return Promise.resolve(no("it is " + mb(file.size) + ", and a tokenizer.json is at most about " + mb(maxBytes)));
      }
      if (!file.size) return Promise.resolve(no("it is empty"));
      return file.slice(0, 256).arrayBuffer().then(function (head) {
        var first = new Uint8Array(head).find(function (b) { return b !== 0x20 && b !== 0x09 && b !== 0x0A && b !== 0x0D; });
        if (first !== undefined && first !== 0x7B && first !== 0x5B) return no("it is not JSON, which starts with {");
        return file.arrayBuffer().then(function (buffer) {
          try {
            return {text: new TextDecoder("utf-8", {fatal: true, ignoreBOM: true}).decode(buffer), error: ""};
          } catch (error) {
            return no("it is not UTF-8 text");
          }
        });
      }).catch(function (error) { return {text: "", error: "Cannot read " + fileName + ": " + error.message}; });
    },
    // An embedding model the reader picked: a folder (webkitdirectory) or its three files, as
    // {safetensors, tokenizer, config, name} (each file's bytes, the folder's name) or {error}.
    // Only the three files are read, the shallowest of each name (a folder may hold others);
    // a missing one is left out, for the worker's loader to name. Nothing is stored or sent.
    readModel: function (files, maxBytes) {
      var keys = {"model.safetensors": "safetensors", "tokenizer.json": "tokenizer", "config.json": "config"};
      var chosen = {}, depth = {}, folder = "";
      for (var i = 0; i < files.length; i++) {
        var file = files[i], path = file.webkitRelativePath || file.name, parts = path.split("/");
        var key = keys[parts[parts.length - 1]];
        if (!folder && parts.length > 1) folder = parts[0];
        if (key && (!(key in chosen) || parts.length < depth[key])) { chosen[key] = file; depth[key] = parts.length; }
      }
      var name = folder || "model";
      for (var k in chosen) {
        if (chosen[k].size > maxBytes) {
          return Promise.resolve({error: name + "/" + chosen[k].name + " is " + Math.round(chosen[k].size / 1e6) +
                                  " MB: a model of at most " + Math.round(maxBytes / 1e6) + " MB can be loaded here"});
        }
      }
      var out = {name: name, error: ""};
      return Promise.all(Object.keys(chosen).map(function (k) {
        return chosen[k].arrayBuffer().then(function (buffer) { out[k] = new Uint8Array(buffer); });
      })).then(function () { return out; },
               function (error) { return {error: "Cannot read " + name + ": " + error.message}; });
    },
    // A file input's files as an array: the input's own list empties when it is cleared.
    fileArray: function (list) { return Array.from(list); },
    // The model a built site bundles (<meta name="chunker-model">), from this site only: the
    // same object as readModel's, or {error}; null when the site bundles none.
    bundledModel: function () {
      var meta = document.querySelector('meta[name="chunker-model"]');
      var base = meta && meta.content;
      if (!base) return Promise.resolve(null);
      var out = {name: meta.getAttribute("data-label") || "model", error: ""};
      var names = {safetensors: "model.safetensors", tokenizer: "tokenizer.json", config: "config.json"};
      return Promise.all(Object.keys(names).map(function (k) {
        var url = new URL(base.replace(/\/?$/, "/") + names[k], document.baseURI);
        if (url.origin !== location.origin) return Promise.reject(new Error("the bundled model must be on this site"));
        return fetch(url).then(function (r) {
          if (!r.ok) throw new Error(names[k] + ": HTTP " + r.status);
          return r.arrayBuffer();
        }).then(function (buffer) { out[k] = new Uint8Array(buffer); });
      })).then(function () { return out; },
               function (error) { return {error: "The model this site bundles could not be loaded (" + error.message + ")"}; });
    },
    // A small text file (questions as JSONL) as {text} or {error}, never a copied string.
    readText: function (file) {
      return file.text().then(function (text) { return {text: text, error: ""}; },
                              function (error) { return {text: "", error: "Cannot read " + file.name + ": " + error.message}; });
    },
    // A worker call, or null if it has not answered within `ms` (the call goes on).
    race: function (call, ms) {
      return Promise.race([call, new Promise(function (resolve) { setTimeout(function () { resolve(null); }, ms); })]);
    },
    // Stop every worker the page started (a newer setting made their work stale).
    terminateWorkers: function () {
      var all = window.chunkerWorkers || [];
      for (var i = 0; i < all.length; i++) { try { all[i].terminate(); } catch (e) { /* gone already */ } }
      window.chunkerWorkers = [];
    },
    // What a new worker must be given again: the reader's tokenizer.json files and embedding
    // models, the questions.
    keep: function (kind, name, value) { (kept[kind] = kept[kind] || {})[name] = value; },
    kept: function (kind) {
      var all = kept[kind] || {};
      return Object.keys(all).map(function (name) { return {name: name, value: all[name]}; });
    },
    // The names a link's query holds, as an array MicroPython can index.
    paramNames: function (params) { return Array.from(params.keys()); },
    // The page's address from [key, value] pairs, given as JSON: a string MicroPython hands to
    // JavaScript ends at its first NUL, and a template or a splitter line may hold one.
    writeURL: function (pairsJSON) {
      var params = new URLSearchParams();
      JSON.parse(pairsJSON).forEach(function (pair) { params.set(pair[0], pair[1]); });
      window.history.replaceState(null, "", "?" + params.toString());
    },

    // A paste of LARGE characters or more replaces the selection without going through the
    // box; returns true when it did (the caller then re-chunks), false to let the box take it.
    pasteLarge: function (event) {
      var data = event.clipboardData, text = data ? data.getData("text/plain") : "";
      pastedCR = text.indexOf("\r") !== -1;
      if (text.length < LARGE) return false;
      event.preventDefault();
      var doc = current(), b = box();
      var start = held !== null ? 0 : b.selectionStart, end = held !== null ? doc.length : b.selectionEnd;
      hold(doc.slice(0, start) + text + doc.slice(end));
      return true;
    },
    // Whether the last paste had CR line breaks (the box, or hold(), turned them into LF).
    pastedCR: function () { return pastedCR; },
    // The user asked for the whole held text in the box, to edit it (and waits for it).
    // Returns true when the box made it another document (a file's CR LF became LF).
    editHeld: function () {
      if (held === null) return false;
      var text = held;
      release();
      box().value = text;
      box().focus();
      return box().value !== text;
    },
    release: release,

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
      // The cards are the chunk list's (static/chunklist.js), set apart.
      var parts = [["counts", "counts"], ["stats", "stats"], ["doc-view", "doc"],
                   ["advice", "advice"], ["code", "code"], ["records-preview", "preview"],
                   ["compare-table", "compare"], ["embedded", "embedded"], ["notes", "notes"]];
      for (var i = 0; i < parts.length; i++) {
        if (view[parts[i][1]] !== undefined) document.getElementById(parts[i][0]).innerHTML = view[parts[i][1]];
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

    // Read a dropped or chosen file into the text box, or hold it (see hold). Resolves to ""
    // or a message saying why the file was not opened.
    // Resolves to {error, binary, name}: a text file is in the box (or held) and error is "";
    // a PDF, Word or HTML file comes back as its bytes (binary), for the worker to extract as the
    // command line does; error says why a file was not opened.
    openFile: function (file, maxBytes) {
      // Any file that is UTF-8 text opens, whatever its name (.rst, .csv, .py...), as the command
      // line reads it; a PDF, a Word or an HTML file is extracted, again as the command line does.
      var fileName = file.name;
      var done = function (error, binary) { return { error: error, binary: binary || null, name: fileName }; };
      if (file.size > maxBytes) {
        return Promise.resolve(done(fileName + " is " + Math.round(file.size / 1e6) + " MB: open a file under " +
                                    Math.round(maxBytes / 1e6) + " MB."));
      }
      return file.arrayBuffer().then(function (buffer) {
        var bytes = new Uint8Array(buffer), text;
        if (extracted(bytes, fileName)) return done("", bytes);
        try {
          // As python -m chunker reads a file: strict UTF-8, a byte order mark kept as U+FEFF.
          text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
        } catch (error) {
          return done(fileName + ": not UTF-8 text (bad byte at offset " + firstBadByte(bytes) + "); " +
                      likelyEncoding(bytes) + "convert it to UTF-8.");
        }
        if (/^\s*<(!doctype\s+html|html[\s>])/i.test(text.slice(0, 512).replace(/^\ufeff/, ""))) return done("", bytes);
        // The text box would turn CR LF into LF: such a file is held, to be chunked as it is.
        if (text.length >= LARGE || text.indexOf("\r") !== -1) {
          hold(text, true);
        } else {
          release();
          box().value = text;
        }
        name = fileName;
        return done("");
      }, function (error) {
        return done("Cannot read " + fileName + ": " + error.message);
      });
    },

    // The text the worker extracted from a document ({text, name, note}), shown read-only.
    holdExtracted: function (found) {
      hold(found.text, true, found.note);
      name = found.name;
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
