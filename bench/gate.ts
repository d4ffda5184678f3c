// npm run bench:gate -- --corpus <file.jsonl> [--corpus <file.jsonl> …] [--json] [--verbose] [--paths-100k]
//                       [--adversarial [--family <substring>] [--max-size <chars>]]
// Dispatches each corpus, by the name of its file, to bench/gate/<corpus>.ts and prints its tables;
// --adversarial times every layer on pathological inputs of growing size (bench/gate/adversarial.ts).
// With --json the last line printed is one JSON object holding every figure; --verbose adds the ids of
// the cases behind some figures (the repairs judged wrong by repairPrecision).
import { basename } from 'node:path';
import { printAdversarial, runAdversarial } from './gate/adversarial.ts';
import { printReport, readJsonl, type CorpusModule, type CorpusReport } from './gate/common.ts';

const KINDS = ['tool-calls', 'text-calls', 'paths', 'content'] as const;

interface Args {
  corpora: string[];
  json: boolean;
  verbose: boolean;
  paths100k: boolean;
  adversarial: boolean;
  family?: string;
  maxSize?: number;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { corpora: [], json: false, verbose: false, paths100k: false, adversarial: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--corpus') args.corpora.push(argv[++i] ?? '');
    else if (a.startsWith('--corpus=')) args.corpora.push(a.slice('--corpus='.length));
    else if (a === '--json') args.json = true;
    else if (a === '--verbose') args.verbose = true;
    else if (a === '--paths-100k') args.paths100k = true;
    else if (a === '--adversarial') args.adversarial = true;
    else if (a === '--family') args.family = argv[++i] ?? '';
    else if (a === '--max-size') {
      args.maxSize = Number(argv[++i]);
      if (!Number.isFinite(args.maxSize) || args.maxSize <= 0) throw new Error(`--max-size needs a positive number of characters, got ${argv[i]}`);
    } else if (a !== '--') throw new Error(`unknown argument ${a}`);
  }
  args.corpora = args.corpora.filter(Boolean);
  return args;
}

function kindOf(file: string): (typeof KINDS)[number] {
  const name = basename(file);
  const kind = KINDS.find((k) => name.startsWith(`${k}.`) || name === `${k}.jsonl`);
  if (!kind) throw new Error(`cannot tell the corpus of ${file}: expected a name starting with ${KINDS.join(' / ')}`);
  return kind;
}

async function main(): Promise<void> {
  const { corpora, json, verbose, paths100k, adversarial, family, maxSize } = parseArgs(process.argv.slice(2));
  if (corpora.length === 0 && !paths100k && !adversarial) {
    console.error(
      'usage: npm run bench:gate -- --corpus <file.jsonl> [--json] [--verbose] [--paths-100k] [--adversarial [--family <substring>] [--max-size <chars>]]',
    );
    process.exit(2);
  }
  const reports: Record<string, CorpusReport> = {};
  for (const file of corpora) {
    const kind = kindOf(file);
    const mod = (await import(`./gate/${kind}.ts`)) as CorpusModule;
    const report = await mod.run(readJsonl(file), { corpusPath: file, verbose });
    printReport(report);
    reports[report.corpus in reports ? `${report.corpus}:${file}` : report.corpus] = report;
  }
  let extra: Record<string, unknown> = {};
  if (paths100k) {
    // The 100k-path index benchmark (--paths-100k) lives with the paths corpus module.
    const pathsModule = './gate/paths.ts';
    const mod = (await import(pathsModule)) as { paths100k?: (opts: { corpora: string[] }) => Promise<unknown> };
    if (!mod.paths100k) throw new Error('bench/gate/paths.ts does not export paths100k()');
    const figures = await mod.paths100k({ corpora });
    console.log('\npathIndex100k', figures);
    extra = { pathIndex100k: figures };
  }
  if (adversarial) {
    const report = await runAdversarial({ family, maxSize });
    printAdversarial(report);
    extra = { ...extra, adversarial: report };
  }
  if (json) {
    const values = Object.values(reports);
    const out = values.length === 1 ? { ...values[0], ...extra } : { ...reports, ...extra };
    console.log(JSON.stringify(out));
  }
}

await main();
