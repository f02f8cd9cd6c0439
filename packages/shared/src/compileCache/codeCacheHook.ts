import { createHash } from 'node:crypto';
import {
  mkdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import Module from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { pruneFolder } from './cacheFolder';

/**
 * V8's code cache for CommonJS modules on Node 20, which has no module.enableCompileCache: the
 * module loader's compile step is replaced by one that compiles with the cached data V8 made
 * for the same source in an earlier run, and makes it when there was none. What the step runs
 * is what Node's own would: the module's source in Node's CommonJS wrapper, called with the
 * module's exports, require, module, __filename and __dirname.
 *
 * Everything else goes to Node's own step, unchanged: ES modules (`require()` of an .mjs file
 * or a package of type module, which Node 20.19+ loads in this step too), files that are not
 * .js/.cjs, a source that calls `import()` outside its comments (a few small modules, ours that
 * load ES-only packages among them), and a source the wrapper cannot compile (one Node itself
 * would detect as an ES module). v8-compile-cache, the package that did this before Node 22,
 * sends all of those through its own compile and fails on them (nodejs/node#61203; a dynamic
 * import in its scripts has no loader), so it is not used. Where `import(` appears only in
 * comments (JSDoc types, in many packages), the script is still given the main context's
 * loader, so even a call the comment test missed loads as it would in Node's own step.
 *
 * One file per entry point, Node version and flag set holds every module's data, read once at
 * start. When a start compiled something the file did not hold, the data is made 10 s after
 * the start or on exit, whichever comes first (and on exit again for modules loaded after), so
 * it also holds the functions that ran meanwhile (V8 compiles a function the first time it
 * runs) and a process killed later still leaves it; the scripts and the file's bytes are then
 * let go (a module loaded later has the file read again, and saved 10 s after). The file is
 * written whole to a temporary name, then renamed: a reader sees one file or the other.
 */
export function installCodeCache(directory: string): void {
  const entry = require.main?.filename ?? process.argv[1] ?? 'node';
  const key = createHash('sha256')
    .update([entry, process.version, process.arch, ...process.execArgv].join('\0'))
    .digest('hex')
    .slice(0, 16);
  const file = path.join(directory, `${path.basename(entry, '.js')}-${key}.v8cache`);
  // the file's entries, kept while modules load (10 s after the start, or after a late load)
  let stored: Map<string, CacheEntry> | undefined = readCacheFile(file);
  if (stored.size > 0) markUsed(file);
  const fresh = new Map<string, { hash: string; script: vm.Script }>();
  const loaderCompile = moduleInternals.prototype._compile;

  moduleInternals.prototype._compile = function compileWithCache(
    this: LoaderModule,
    content: string,
    filename: string,
    format?: string,
  ): unknown {
    const mentionsImport = content.includes('import(');
    if (
      format === 'module' ||
      !/\.c?js$/.test(filename) ||
      (mentionsImport && callsImport(content))
    ) {
      return loaderCompile.call(this, content, filename, format);
    }
    const hash = createHash('sha1').update(content).digest('base64');
    if (stored === undefined) {
      // a module loaded long after the start (a lazy require): the file is read again for it
      stored = readCacheFile(file);
      setTimeout(release, SAVE_AFTER_MS).unref();
    }
    const cached = stored.get(filename);
    let script: vm.Script;
    try {
      script = new vm.Script(Module.wrap(content), {
        filename,
        cachedData: cached?.hash === hash ? cached.data : undefined,
        importModuleDynamically: mentionsImport ? MAIN_CONTEXT_LOADER : undefined,
      });
    } catch {
      // Node's own step reports the error, or loads the source as an ES module
      return loaderCompile.call(this, content, filename, format);
    }
    if (cached?.hash !== hash || script.cachedDataRejected === true) {
      fresh.set(filename, { hash, script });
    }
    const run = script.runInThisContext({ displayErrors: true }) as ModuleWrapper;
    return run.call(
      this.exports,
      this.exports,
      requireFor(this),
      this,
      filename,
      path.dirname(filename),
    );
  };

  const save = (): void => {
    if (fresh.size === 0) return;
    const entries = stored ?? readCacheFile(file);
    for (const [filename, { hash, script }] of fresh) {
      entries.set(filename, { hash, data: script.createCachedData() });
    }
    fresh.clear();
    writeCacheFile(directory, file, entries);
  };
  // the file's bytes are a few MB a process would otherwise hold for its whole life
  const release = (): void => {
    save();
    stored = undefined;
  };
  setTimeout(release, SAVE_AFTER_MS).unref();
  process.once('exit', save);
}

/** When a start's new cache data is written, unless the process exits first. */
const SAVE_AFTER_MS = 10_000;

/** Node's own loader for `import()` in a vm script, resolving from the script's file name. */
const MAIN_CONTEXT_LOADER = vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER;

/** Whether `import(` appears outside block and line comments (by a plain, cautious reading). */
function callsImport(source: string): boolean {
  return source.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, '').includes('import(');
}

interface CacheEntry {
  /** SHA-1 of the module's source text: the data is for exactly this text. */
  hash: string;
  data: Buffer;
}

type ModuleWrapper = (
  exports: unknown,
  require: NodeJS.Require,
  module: LoaderModule,
  filename: string,
  dirname: string,
) => unknown;

/** The loader's module as its compile step sees it (internals @types/node does not describe). */
interface LoaderModule {
  exports: unknown;
  require(id: string): unknown;
}

const moduleInternals = Module as unknown as {
  prototype: {
    _compile: (this: LoaderModule, content: string, filename: string, format?: string) => unknown;
  };
  _resolveFilename(
    request: string,
    parent: LoaderModule,
    isMain: boolean,
    options?: unknown,
  ): string;
  _resolveLookupPaths(request: string, parent: LoaderModule): string[] | null;
  _extensions: NodeJS.RequireExtensions;
  _cache: NodeJS.Dict<NodeJS.Module>;
};

/** The `require` a module's code is given, as Node's loader makes it for that module. */
function requireFor(mod: LoaderModule): NodeJS.Require {
  const requireFromModule = (id: string): unknown => mod.require(id);
  const resolve = (request: string, options?: { paths?: string[] }): string =>
    moduleInternals._resolveFilename(request, mod, false, options);
  resolve.paths = (request: string) => moduleInternals._resolveLookupPaths(request, mod);
  return Object.assign(requireFromModule, {
    resolve,
    main: require.main,
    extensions: moduleInternals._extensions,
    cache: moduleInternals._cache,
  }) as NodeJS.Require;
}

// The file: a 4-byte length, a JSON index of [filename, hash, offset, length], then the data.
function readCacheFile(file: string): Map<string, CacheEntry> {
  const entries = new Map<string, CacheEntry>();
  try {
    const bytes = readFileSync(file);
    const indexLength = bytes.readUInt32LE(0);
    const index = JSON.parse(bytes.toString('utf8', 4, 4 + indexLength)) as [
      string,
      string,
      number,
      number,
    ][];
    const start = 4 + indexLength;
    for (const [filename, hash, offset, length] of index) {
      entries.set(filename, {
        hash,
        data: bytes.subarray(start + offset, start + offset + length),
      });
    }
  } catch {
    // none yet, or unreadable: every module is compiled, and the file written again on exit
  }
  return entries;
}

function writeCacheFile(directory: string, file: string, entries: Map<string, CacheEntry>): void {
  const index: [string, string, number, number][] = [];
  const blobs: Buffer[] = [];
  let offset = 0;
  for (const [filename, { hash, data }] of entries) {
    index.push([filename, hash, offset, data.length]);
    blobs.push(data);
    offset += data.length;
  }
  const indexBytes = Buffer.from(JSON.stringify(index));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(indexBytes.length, 0);
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(directory, { recursive: true });
    writeFileSync(temporary, Buffer.concat([length, indexBytes, ...blobs]));
    renameSync(temporary, file);
    pruneFolder(directory, file);
  } catch {
    try {
      unlinkSync(temporary);
    } catch {
      // nothing was written
    }
  }
}

/** Marks a file read by a start as recently used, so the folder's pruning keeps it longest. */
function markUsed(file: string): void {
  try {
    const now = new Date();
    utimesSync(file, now, now);
  } catch {
    // a read-only folder: the file is only pruned sooner
  }
}
