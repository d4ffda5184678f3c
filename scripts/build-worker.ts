// Builds the Cloudflare Worker (wrangler.toml runs it as its [build] command, for `wrangler dev` and
// `wrangler deploy` alike). Our own esbuild run instead of wrangler's because wrangler cannot split a
// bundle: the MCP client (the SDK, ~60 KB gzip) is imported with import() (src/tools/mcp/source.ts),
// and only a split build keeps it out of the script workerd evaluates at startup while sharing zod with
// the app. Wrangler's one-file bundle inlines that import() behind esbuild's lazy-init wrappers, which
// leave zod's `export *` namespaces uninitialised when the app's routes first call z.string() ("e is not
// a constructor" at startup). Out come three modules with fixed names in dist/worker/: worker.js (the
// entry), chunk.js (what the entry and the MCP client share, mostly zod) and sdk.js (the MCP client,
// loaded on the first connection to an MCP server); wrangler uploads them as they are (no_bundle, rules).
// The tracing engine (src/telemetry/engine.ts: the OpenTelemetry SDK and OTLP encoders) is split out the
// same way, as engine-*.js, imported on the first traced turn and never with tracing off; so are the
// other pieces no first request of a typical route needs (each module says when it loads): the page
// assets, the dashboard's SVG, the Messages and Responses codecs, JWT verification (jose), the demo
// model's script, the MCP tool source, useChat's handlers and the edge entries' memory storage. What the
// entry imports statically (startupModules) is the startup script, which must stay within 150 KB gzip
// (test/runtimes/worker-bundle.test.ts).
//   node scripts/build-worker.ts [--outdir dir]
import { build, type Metafile } from 'esbuild';
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';

const root = join(import.meta.dirname, '..');

export interface WorkerBuildOptions {
  /** Default: dist/worker (wrangler.toml `main` points there). */
  outdir?: string;
  /** Extra module substitutions (bench:bundle stubs the MCP SDK out with them). */
  aliases?: Record<string, string>;
  /** process.env.NODE_ENV in the bundle; wrangler's own build said "development" under `wrangler dev`. */
  nodeEnv?: string;
}

export interface WorkerBuild {
  outdir: string;
  /** The modules written (.js), entry first. */
  modules: string[];
  metafile: Metafile;
}

/** The modules the entry imports statically, itself included (file names): what workerd evaluates before the first request. */
export function startupModules(meta: Metafile, entry = 'worker.js'): Set<string> {
  const byName = new Map(Object.entries(meta.outputs).map(([path, out]) => [basename(path), out]));
  const seen = new Set<string>();
  const visit = (name: string) => {
    const out = byName.get(name);
    if (seen.has(name) || !out) return;
    seen.add(name);
    for (const i of out.imports) if (i.kind === 'import-statement') visit(basename(i.path));
  };
  visit(entry);
  return seen;
}

export async function buildWorker(options: WorkerBuildOptions = {}): Promise<WorkerBuild> {
  const outdir = options.outdir ?? join(root, 'dist', 'worker');
  const nodeEnv = JSON.stringify(options.nodeEnv ?? 'production');
  const noAjv = join(root, 'src', 'tools', 'mcp', 'no-ajv.ts');
  const noJose = join(root, 'src', 'tools', 'mcp', 'no-jose.ts');
  const result = await build({
    absWorkingDir: root,
    entryPoints: { worker: join(root, 'src', 'entries', 'worker.ts') },
    bundle: true,
    splitting: true,
    format: 'esm',
    // What wrangler's own build used: workerd runs V8 with ES2024, and packages' worker builds come first.
    target: 'es2024',
    conditions: ['rebound-source', 'workerd', 'worker', 'browser'],
    define: { 'process.env.NODE_ENV': nodeEnv, 'global.process.env.NODE_ENV': nodeEnv, 'globalThis.process.env.NODE_ENV': nodeEnv },
    // The MCP client (@modelcontextprotocol/client) resolves its `workerd` condition, whose default JSON
    // Schema validator is @cfworker/json-schema, bundled in it; ajv (its Node default, which compiles with
    // `new Function`, forbidden in workerd) is not reached, and is stubbed should anything import it
    // (src/tools/mcp/no-ajv.ts). Rebound hands the client the gate's validator anyway (src/tools/mcp/validator.ts).
    alias: { ajv: noAjv, 'ajv-formats': noAjv, ...options.aliases },
    plugins: [
      {
        // The MCP client's import('jose') (OAuth private_key_jwt and DPoP, never used: src/tools/mcp/no-jose.ts);
        // the app's own jose (JWT verification) is untouched.
        name: 'mcp-no-jose',
        setup(b) {
          b.onResolve({ filter: /^jose$/ }, (args) => (/[\\/]@modelcontextprotocol[\\/]client[\\/]/.test(args.importer) ? { path: noJose } : undefined));
        },
      },
    ],
    minify: true,
    // Wrangler's default keeps every function's name with a __name() call (~10 KB gzip); nothing here
    // reads a constructor's or function's name (errors set their `name` themselves).
    keepNames: false,
    // Stack traces stay readable through the maps, which wrangler uploads (upload_source_maps).
    sourcemap: 'linked',
    // The entry keeps its name; chunks are named by content, since several lazy modules (the MCP client,
    // the page assets) can share chunks of one name. The same source always gives the same files, so
    // two builds running at once (parallel `wrangler dev`s) still write the same files, and a rebuild
    // removes the chunks it no longer writes (below), so no stale chunk is ever uploaded.
    entryNames: '[name]',
    chunkNames: '[name]-[hash]',
    metafile: true,
    write: false,
    outdir,
    logLevel: 'warning',
  });
  mkdirSync(outdir, { recursive: true });
  const written = new Set<string>();
  for (const file of result.outputFiles) {
    // Each file whole or not at all: written aside, then renamed over the old one.
    const aside = `${file.path}.${process.pid}.tmp`;
    writeFileSync(aside, file.contents);
    renameSync(aside, file.path);
    written.add(basename(file.path));
  }
  writeFileSync(join(outdir, 'meta.json'), JSON.stringify(result.metafile));
  written.add('meta.json');
  for (const name of readdirSync(outdir)) {
    if (!written.has(name) && /\.(js|map)$/.test(name)) rmSync(join(outdir, name), { force: true });
  }
  const modules = [...written].filter((n) => n.endsWith('.js')).sort((a, b) => Number(b === 'worker.js') - Number(a === 'worker.js'));
  return { outdir, modules, metafile: result.metafile };
}

if (process.argv[1] && resolve(process.argv[1]) === import.meta.filename) {
  const at = process.argv.indexOf('--outdir');
  const built = await buildWorker({
    outdir: at > 0 ? process.argv[at + 1] : undefined,
    // wrangler tells its build command which command runs it.
    nodeEnv: process.env.WRANGLER_COMMAND === 'dev' ? 'development' : 'production',
  });
  console.log(`built ${built.modules.join(', ')} in ${relative(process.cwd(), built.outdir) || '.'}`);
}
