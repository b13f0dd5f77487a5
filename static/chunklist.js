// The chunk list and the links between it and the document view: scroll mechanics only. What a
// card says is built in the worker (app/cards.py); which chunk to show is decided in
// app/ui/results.py. Scrolling happens at frame rate, so it is handled here.
//
// The list is virtual: every card has the same height, a sizer gives the list the height of all
// of them, and only the cards near the visible part exist, in a window moved along as the list
// scrolls. A document of ten megabytes has tens of thousands of chunks; each one is a scroll
// away, and a click on its text brings its card into view at once. When the window does not
// cover what is visible, the list fires "cardsneeded" ({start, count}); the page asks the worker
// for those cards and hands them to fill().
(function () {
  "use strict";
  var BUFFER = 30;          // cards rendered beyond each edge of the visible part
  var MAX_HEIGHT = 8e6;     // px: past this, positions are scaled (browsers cap element heights)
  var state = {total: 0, start: 0, count: 0, version: 0, stride: 0, asked: null, lit: [], focus: -1,
                current: -1, retrieved: []};

  function list() { return document.getElementById("cards"); }
  function sizer() { return list().querySelector(".cards-sizer"); }
  function win() { return list().querySelector(".cards-win"); }

  function stride() {
    if (state.stride) return state.stride;
    var first = win().querySelector(".card");
    if (!first) return 100;
    // Fractional pixels: offsetHeight rounds, and a rounded stride drifts a few pixels per
    // dozen cards from where the cards really are.
    var gap = parseFloat(getComputedStyle(win()).rowGap) || 0;
    state.stride = first.getBoundingClientRect().height + gap;
    return state.stride;
  }

  // The scroll distance per card: the stride, unless the list would be too tall.
  function step() {
    var s = stride();
    return state.total * s > MAX_HEIGHT ? MAX_HEIGHT / state.total : s;
  }

  function visible() {
    var l = list(), st = step();
    var first = Math.max(0, Math.min(state.total - 1, Math.floor(l.scrollTop / st)));
    var shown = Math.ceil(l.clientHeight / stride()) + 1;
    return {first: first, last: Math.min(state.total - 1, first + shown)};
  }

  // Keep the window under the visible part: card `first` sits where the scroll position says.
  function place() {
    if (!state.total) return;
    var l = list(), st = step(), s = stride();
    var exact = l.scrollTop / st, first = Math.floor(exact);
    var top = l.scrollTop - (exact - first) * s - (first - state.start) * s;
    if (st === s) top = state.start * s;  // unscaled: cards sit at their own place
    win().style.transform = "translateY(" + Math.max(0, top) + "px)";
  }

  function ask() {
    if (!state.total) return;
    var v = visible();
    if (v.first >= state.start && v.last < state.start + state.count) return;
    var start = Math.max(0, v.first - BUFFER);
    var count = Math.min(state.total - start, v.last - v.first + 1 + 2 * BUFFER);
    if (state.asked && state.asked.start === start && state.asked.version === state.version) return;
    state.asked = {start: start, count: count, version: state.version};
    list().dispatchEvent(new CustomEvent("cardsneeded", {detail: state.asked}));
  }

  var framed = false;
  function onScroll() {
    if (framed) return;
    framed = true;
    requestAnimationFrame(function () { framed = false; place(); ask(); });
  }

  function relight() {
    var w = win();
    for (var i = 0; i < state.lit.length; i++) {
      var card = w.querySelector('[data-chunk-index="' + state.lit[i] + '"]');
      if (card) card.classList.add("hl");
    }
    var cur = state.current >= 0 && w.querySelector('[data-chunk-index="' + state.current + '"]');
    if (cur) cur.classList.add("current");
    for (var r = 0; r < state.retrieved.length; r++) {
      var got = w.querySelector('[data-chunk-index="' + state.retrieved[r] + '"]');
      if (got) got.setAttribute("data-rank", String(r + 1));
    }
  }

  function card(i) { return win() ? win().querySelector('[data-chunk-index="' + i + '"]') : null; }

  function focusPending() {
    if (state.focus < 0) return;
    var c = card(state.focus);
    if (c) {
      c.focus({preventScroll: true});
      state.focus = -1;
    }
  }

  // The document view: scroll a chunk's first segment into view within a frame or two. Blocks
  // the browser has not laid out yet (content-visibility) stand in at an estimated height and
  // take their real one as they come into view, which moves the target: corrected twice at most.
  function reveal(target) {
    var view = document.getElementById("doc-view"), left = 3;
    function shown() {
      var v = view.getBoundingClientRect(), t = target.getBoundingClientRect();
      if (t.height >= v.height) return t.top <= v.top + v.height / 2 && t.bottom >= v.top + v.height / 2;
      return t.top >= v.top - 1 && t.bottom <= v.bottom + 1;
    }
    function correct() {
      if (!target.isConnected || shown() || left-- <= 0) return;
      target.scrollIntoView({block: "center"});
      requestAnimationFrame(correct);
    }
    target.scrollIntoView({block: "center"});
    requestAnimationFrame(correct);
  }

  window.chunkList = {
    // A new result: `total` cards, the first window (`view[key]`, cards from `start`).
    reset: function (total, view, key, start, version) {
      var l = list();
      if (!l.querySelector(".cards-sizer")) {
        l.innerHTML = '<div class="cards-sizer"></div><ol class="cards-win"></ol>';
        l.addEventListener("scroll", onScroll, {passive: true});
      }
      state.total = total; state.version = version; state.asked = null; state.current = -1;
      state.start = start; state.count = 0; state.stride = 0; state.lit = []; state.focus = -1;
      state.retrieved = [];
      win().innerHTML = view[key];
      state.count = win().children.length;
      sizer().style.height = total ? (state.total * step() + stride() - step()) + "px" : "0";
      if (l.scrollTop > total * step()) l.scrollTop = 0;
      place();
      ask();
    },
    // Cards the worker made for a "cardsneeded" request; stale ones are dropped.
    fill: function (view, key, start, version) {
      if (version !== state.version) return;
      // The focused card is about to be replaced by its copy: the focus moves to the copy.
      var active = document.activeElement, held = active && active.closest && active.closest("#cards .card");
      if (held && state.focus < 0) state.focus = +held.dataset.chunkIndex;
      win().innerHTML = view[key];
      state.start = start;
      state.count = win().children.length;
      state.asked = null;
      place();
      relight();
      focusPending();
      ask();
    },
    // Bring card i into the list's view at once (its HTML may follow a moment later).
    show: function (i, focus) {
      if (i < 0 || i >= state.total) return;
      var l = list(), st = step(), s = stride();
      var top = i * st, bottom = top + s;
      if (top < l.scrollTop || bottom > l.scrollTop + l.clientHeight) {
        l.scrollTop = Math.max(0, top - (l.clientHeight - s) / 2);
      }
      if (focus) state.focus = i;
      place();
      ask();
      focusPending();
    },
    // Light up chunks (hover): their segments in the document view and their cards.
    highlight: function (indices) {
      var old = document.querySelectorAll("#doc-view .hl, #cards .hl");
      for (var k = 0; k < old.length; k++) old[k].classList.remove("hl");
      state.lit = indices.slice ? indices.slice() : [];
      for (var i = 0; i < state.lit.length; i++) {
        var segs = document.querySelectorAll('#doc-view [data-c~="' + state.lit[i] + '"]');
        for (var j = 0; j < segs.length; j++) segs[j].classList.add("hl");
      }
      relight();
    },
    // The chunk the reader is on (keyboard, clicks): its card is marked.
    setCurrent: function (i) {
      var old = list().querySelectorAll(".card.current");
      for (var k = 0; k < old.length; k++) old[k].classList.remove("current");
      state.current = i;
      relight();
    },
    // The chunks retrieved for a question, best first: their cards show the rank, their text
    // in the document view is marked.
    markRetrieved: function (indices) {
      var old = document.querySelectorAll("#cards [data-rank], #doc-view .rt");
      for (var k = 0; k < old.length; k++) { old[k].removeAttribute("data-rank"); old[k].classList.remove("rt"); }
      state.retrieved = indices && indices.length !== undefined ? Array.prototype.slice.call(indices) : [];
      for (var i = 0; i < state.retrieved.length; i++) {
        var segs = document.querySelectorAll('#doc-view [data-c~="' + state.retrieved[i] + '"]');
        for (var j = 0; j < segs.length; j++) segs[j].classList.add("rt");
      }
      relight();
    },
    current: function () { return state.current; },
    total: function () { return state.total; },
    reveal: reveal,
    // The chunk's first segment in the document view, or null while its part is still coming.
    target: function (i) { return document.getElementById("chunk-" + i); }
  };
})();
