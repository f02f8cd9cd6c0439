// Imported FIRST by every process's main.ts, before any other module is loaded: from then on
// the compiled code of each module the process loads is kept in a cache on disk, and a later
// start of the same build reads it instead of compiling again. Loading modules is most of a
// start (the gateway: ~0.5 s of CPU, about half of it compiling), which every restart pays
// (a container restarted in its pod finds the pod's /tmp), and which the integration suite pays
// a few hundred times.
//
// Node 22.1+ has this built in (module.enableCompileCache). Node 20 has no such switch, so
// there codeCacheHook.ts does the same for the CommonJS modules the process loads, which is all
// of this repository's compiled code and nearly all of its dependencies. The cache is a folder
// under the OS's temporary directory (the chart mounts a writable /tmp), or COMPILE_CACHE_DIR;
// COMPILE_CACHE=off turns it off. A cache that cannot be read or written costs only the
// compile it would have saved; V8 uses an entry only for the source text it was made from and
// refuses one made by another V8 version or with other flags.
//
// What is in the folder runs as this process's code, so the folder must be this user's alone:
// it is made with mode 700, and one that is a link, another user's, or writable by others (a
// folder planted under a shared /tmp) turns the cache off for the process (cacheFolder.ts, which
// also keeps the folder under 64 MB on Node 20).
import * as nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ownedByThisUserAlone } from './cacheFolder';
import { installCodeCache } from './codeCacheHook';

type EnableCompileCache = (directory?: string) => unknown;

if (process.env.COMPILE_CACHE !== 'off') {
  const directory =
    process.env.COMPILE_CACHE_DIR ||
    path.join(tmpdir(), `brand-records-compile-cache-${process.getuid?.() ?? 'user'}`);
  if (ownedByThisUserAlone(directory)) {
    const builtIn = (nodeModule as { enableCompileCache?: EnableCompileCache }).enableCompileCache;
    if (typeof builtIn === 'function') builtIn(directory);
    else installCodeCache(directory);
  }
}
