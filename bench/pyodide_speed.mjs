// Runs a Python snippet in the vendored Pyodide under Node.js, with the app's own files
// (static/vendor/app.zip) unpacked as in the page's worker and any extra wheels installed.
//   node bench/pyodide_speed.mjs <pyodide dir> <app.zip> <script.py> [<wheel> ...]
// The snippet prints its own timings; bench/pyodide_speed.py drives this and compares with CPython.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, appZip, script, ...wheels] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL: path.resolve(pyodideDir) + path.sep });
pyodide.FS.mkdirTree("/home/pyodide");
pyodide.FS.chdir("/home/pyodide");
pyodide.unpackArchive(new Uint8Array(fs.readFileSync(appZip)), "zip", { extractDir: "/home/pyodide" });
const site = pyodide.runPython("import site; site.getsitepackages()[0]");
for (const wheel of wheels) pyodide.unpackArchive(new Uint8Array(fs.readFileSync(wheel)), "zip", { extractDir: site });
// The host's files the snippet names (BENCH_* paths) are mounted where they are on the host.
const mounted = new Set();
for (const [name, value] of Object.entries(process.env)) {
  if (!name.startsWith("BENCH_")) continue;
  pyodide.runPython(`import os; os.environ[${JSON.stringify(name)}] = ${JSON.stringify(value)}`);
  if (path.isAbsolute(value) && fs.existsSync(value)) {
    const dir = path.dirname(value);
    if (!mounted.has(dir)) {
      pyodide.FS.mkdirTree(dir);
      pyodide.mountNodeFS(dir, dir);
      mounted.add(dir);
    }
  }
}
pyodide.setStdout({ batched: (line) => console.log(line) });
try {
pyodide.runPython("import sys; sys.path.insert(0, '/home/pyodide')");
  pyodide.runPython(fs.readFileSync(script, "utf8"));
} catch (error) {
  console.error(String(error.message || error).slice(-3000));
  process.exit(1);
}
