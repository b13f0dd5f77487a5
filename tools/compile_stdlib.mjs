// Compiles Pyodide's standard library to bytecode, with that same Pyodide running under Node.js:
//   node tools/compile_stdlib.mjs <pyodide dir> <tools/pyc_zip.py> <source zip> <output zip>
// tools/runtime.py runs it at set-up (tools/pyc_zip.py says why); it prints the number of
// modules compiled. Only CPython's own build can write bytecode CPython loads, hence Pyodide here.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, script, input, output] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL: path.resolve(pyodideDir) + path.sep });
pyodide.FS.writeFile("/tmp/source.zip", fs.readFileSync(input));
pyodide.runPython(fs.readFileSync(script, "utf8"));
const compiled = pyodide.runPython(`
import sys
archive = next(p for p in sys.path if p.endswith(".zip"))  # where Pyodide mounts the library
with open("/tmp/source.zip", "rb") as f:
    data, compiled = compile_zip(f.read(), archive)
with open("/tmp/compiled.zip", "wb") as f:
    f.write(data)
compiled
`);
fs.writeFileSync(output, pyodide.FS.readFile("/tmp/compiled.zip"));
console.log(String(compiled));
