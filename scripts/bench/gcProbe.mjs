// Preloaded into the gateway and records by `npm run bench`
// (`node --expose-gc --import <this file's URL> dist/main.js`), and only there.
// On SIGUSR2 it runs a full garbage collection and appends one JSON line to the file in
// BENCH_GC_PROBE_FILE: {"seq", "heapUsed", "rss", "heapTotal", "external", "arrayBuffers"}
// (bytes; what V8 keeps committed and what lives outside its heap, to tell them from malloc's). The heap in use right after a
// full collection is what the process really retains, so comparing it between phases
// shows a leak that RSS (which V8 and malloc keep high once grown) would hide.
// With BENCH_MEMORY_TRACE_FILE it also appends process.memoryUsage() once a second, without
// a GC (where RSS goes between collections: the V8 heap's headroom, or buffers outside it).
// It changes nothing else in the process.
import { appendFileSync } from 'node:fs';

const file = process.env.BENCH_GC_PROBE_FILE;
const gc = globalThis.gc;

/** process.memoryUsage()'s figures, each through `unit`, for one JSON line. */
function memoryFigures(unit) {
  const m = process.memoryUsage();
  return {
    heapUsed: unit(m.heapUsed),
    rss: unit(m.rss),
    heapTotal: unit(m.heapTotal),
    external: unit(m.external),
    arrayBuffers: unit(m.arrayBuffers),
  };
}

if (file && typeof gc === 'function') {
  let seq = 0;
  process.on('SIGUSR2', () => {
    // twice: the first pass can leave objects that only die once finalizers have run
    gc();
    gc();
    seq += 1;
    appendFileSync(file, `${JSON.stringify({ seq, ...memoryFigures((bytes) => bytes) })}\n`);
  });
}

const traceFile = process.env.BENCH_MEMORY_TRACE_FILE;
if (traceFile) {
  const started = Date.now();
  const mb = (bytes) => Math.round(bytes / 2 ** 20);
  setInterval(() => {
    const s = Math.round((Date.now() - started) / 1000);
    appendFileSync(traceFile, `${JSON.stringify({ s, ...memoryFigures(mb) })}\n`);
  }, 1000).unref();
}
