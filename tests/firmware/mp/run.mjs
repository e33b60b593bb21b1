// Run firmware checks on MicroPython 1.27 (the WebAssembly port, a real MicroPython VM).
//
//   node tests/firmware/mp/run.mjs ROOT MODULE [NAME ...]
//
// Copies ROOT/firmware/*.py into the VM's in-memory filesystem as the package /lib/firmware,
// this folder's *.py into /lib (fake_machine.py also as /lib/machine.py: the rp2 fake) and
// ROOT/tests/golden_frames/frames.json to /data/frames.json; then runs each check NAME
// (default: every name in MODULE.CHECKS) through MODULE.start(NAME) and MODULE.step(gen).
// Exit status 0 when every check returned, 1 with the MicroPython traceback on stderr when it
// raised. The heap: --heap=BYTES (default 192 KiB, about what a Pico's MicroPython has free;
// this port grows it when needed, so gc.mem_alloc() is the figure to read, not mem_free()).
import { readdirSync, readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
let heap = 192 * 1024;
const rest = [];
for (const a of args) {
  if (a.startsWith("--heap=")) heap = parseInt(a.slice(7), 10);
  else rest.push(a);
}
if (rest.length < 2) {
  process.stderr.write("usage: node run.mjs ROOT MODULE [NAME ...]\n");
  process.exit(2);
}
const [root, module, ...names] = rest;

const mp = await loadMicroPython({
  heapsize: heap,
  stdout: (line) => process.stdout.write(line + "\n"),
  stderr: (line) => process.stderr.write(line + "\n"),
  linebuffer: true,
});
const FS = mp.FS;
for (const d of ["/lib", "/lib/firmware", "/data"]) FS.mkdir(d);
const fwDir = join(root, "firmware");
for (const f of readdirSync(fwDir)) {
  if (f.endsWith(".py")) FS.writeFile("/lib/firmware/" + f, readFileSync(join(fwDir, f)));
}
for (const f of readdirSync(here)) {
  if (f.endsWith(".py")) FS.writeFile("/lib/" + f, readFileSync(join(here, f)));
}
FS.writeFile("/lib/machine.py", readFileSync(join(here, "fake_machine.py")));
FS.writeFile("/data/frames.json", readFileSync(join(root, "tests", "golden_frames", "frames.json")));

// Each check runs in its own runPython calls: a check that is a generator is stepped one
// call at a time with gc.collect() in between (this port collects only when control is back
// at the top level, not inside a running call).
const list = names.length ? names : null;
try {
  mp.runPython(`import sys, gc\nsys.path.insert(0, '/lib')\nimport ${module} as _m\n`);
  mp.runPython("_names = ','.join(_m.CHECKS)");
  const checks = list || mp.globals.get("_names").split(",");
  for (const name of checks) {
    mp.runPython(`_g = _m.start(${JSON.stringify(name)})`);
    for (;;) {
      mp.runPython("gc.collect()");
      mp.runPython("_more = _m.step(_g)");
      if (!mp.globals.get("_more")) break;
    }
  }
  mp.runPython("gc.collect()");
  process.stdout.write("DONE\n");
} catch (e) {
  process.stderr.write(String(e && e.message ? e.message : e) + "\n");
  process.exit(1);
}
