// Compiles a zip of Python sources to bytecode with the vendored Pyodide itself, under Node.js:
//   node tools/compile_pyc.mjs <pyodide dir> <tools/pyc_zip.py> <source zip> <output zip> [<dir> [<stdlib zip> [<list>]]]
// <dir> is where the page's Python imports the files from (the worker's working directory for
// app.zip); without it, the zip is Pyodide's standard library, imported from its own place.
// <stdlib zip>, when given, is the already compiled standard library, which starts faster.
// <list>, when given, is a file naming the members to compile, one a line; the rest stay source.
// Python runs without column positions in its code (PYTHONNODEBUGRANGES): smaller bytecode.
// tools/runtime.py runs this at set-up (tools/pyc_zip.py says why); it prints the number of
// modules compiled. Only CPython's own build can write bytecode CPython loads, hence Pyodide here.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, script, input, output, importDir = "", stdlib = "", list = ""] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
const options = { indexURL: path.resolve(pyodideDir) + path.sep, env: { HOME: "/home/pyodide", PYTHONNODEBUGRANGES: "1" } };
if (stdlib) options.stdLibURL = path.resolve(stdlib);
const pyodide = await loadPyodide(options);
pyodide.FS.writeFile("/tmp/source.zip", fs.readFileSync(input));
pyodide.runPython(fs.readFileSync(script, "utf8"));
pyodide.globals.set("import_dir", importDir);
pyodide.globals.set("only", list ? fs.readFileSync(list, "utf8") : undefined);  // undefined: None
const compiled = pyodide.runPython(`
import sys
# Where the code will sit when imported: the names tracebacks show.
where = import_dir or next(p for p in sys.path if p.endswith(".zip"))
if only is not None:
    only = {line.strip() for line in only.splitlines() if line.strip() and not line.startswith("#")}
with open("/tmp/source.zip", "rb") as f:
    data, compiled = compile_zip(f.read(), where, only)
with open("/tmp/compiled.zip", "wb") as f:
    f.write(data)
compiled
`);
fs.writeFileSync(output, pyodide.FS.readFile("/tmp/compiled.zip"));
console.log(String(compiled));
