// The playground's service worker: after one visit the page opens with no network.
// It sits at the top of the site because a service worker only serves pages under its own
// folder. static/vendor/offline.js lists the page's files and their version (serve.py writes
// it: tools/offline.py); static/sw.js keeps them. The browser compares this file and both of
// these byte for byte at each update check, so a new list makes a new service worker.
importScripts("./static/vendor/offline.js", "./static/sw.js");
