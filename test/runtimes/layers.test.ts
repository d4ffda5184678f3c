// Imports point down the layers. Each folder of src/ (and functions/) is a layer, and the table below
// says, bottom-up, which layers each one may import. An import that points up (model/ reaching into
// loop/ for a type, say) ties the lower layer to the upper one, so neither can be read, tested or
// replaced alone, and cycles follow. The fix is to move the shared thing down (src/vocabulary.ts holds
// what model, store, loop, turns and http share), never to widen a row of the table for it.
// Tests (x.test.ts) may import anything: they exercise their code with whatever fixture fits.
// The bottom layer is the gate, the workspace package rebound-gate (packages/gate): everything else
// imports it by that name, never by path, and it imports nothing of the server's.
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root, sources, specifiers } from './source-scan.ts';

interface Layer {
  name: string;
  /** Folders (ending in /) and files of the layer, relative to the repository root. */
  holds: string[];
  /** The layers its files may import, besides their own. */
  may: string[];
}

const BASE = ['vocabulary', 'gate', 'base'];

/** Bottom-up: a layer may only name layers above it in this list. */
const layers: Layer[] = [
  { name: 'gate', holds: ['packages/gate/'], may: [] },
  { name: 'vocabulary', holds: ['src/vocabulary.ts'], may: ['gate'] },
  {
    name: 'base',
    holds: ['src/config.ts', 'src/config-keys.ts', 'src/otel-config.ts', 'src/delay.ts', 'src/auth-error.ts', 'src/quote.ts', 'src/http-url.ts'],
    may: [],
  },
  // Tracing hooks and the lazily loaded SDK: low, so that loop/, turns/, gateway/ and http/ can all call them.
  { name: 'telemetry', holds: ['src/telemetry/'], may: BASE },
  { name: 'store', holds: ['src/store/'], may: BASE },
  { name: 'model', holds: ['src/model/'], may: BASE },
  { name: 'activity', holds: ['src/activity/'], may: ['store', ...BASE] },
  { name: 'tools', holds: ['src/tools/'], may: ['store', ...BASE] },
  { name: 'functions', holds: ['functions/'], may: ['tools', 'store', ...BASE] },
  { name: 'dashboard', holds: ['src/dashboard/'], may: ['store', ...BASE] },
  { name: 'web', holds: ['src/web/'], may: ['dashboard', ...BASE] },
  // What became of a proposed call (outcome, activity row): below both the loop, which runs calls, and
  // the gateway, which hands them on; neither imports the other. (The blocked message and the text hold
  // are the gate's: the adapters need them too.)
  { name: 'calls', holds: ['src/calls/'], may: ['activity', ...BASE] },
  { name: 'loop', holds: ['src/loop/'], may: ['calls', 'model', 'store', 'activity', 'tools', 'telemetry', ...BASE] },
  { name: 'turns', holds: ['src/turns/'], may: ['loop', 'model', 'store', 'activity', 'tools', 'telemetry', ...BASE] },
  { name: 'gateway', holds: ['src/gateway/'], may: ['calls', 'model', 'store', 'activity', 'tools', 'telemetry', ...BASE] },
  {
    name: 'http',
    holds: ['src/http/'],
    may: ['gateway', 'turns', 'loop', 'web', 'dashboard', 'model', 'store', 'activity', 'tools', 'telemetry', ...BASE],
  },
  {
    name: 'entries',
    holds: ['src/entries/'],
    may: ['http', 'gateway', 'turns', 'loop', 'web', 'dashboard', 'functions', 'model', 'store', 'activity', 'tools', 'telemetry', ...BASE],
  },
];

const GATE_PACKAGE = 'rebound-gate';
const GATE_DIR = 'packages/gate/';
/** The gate's adapters (subpath folders) and the optional peer dependencies each may import. */
const ADAPTERS: Record<string, string[]> = {
  'ai-sdk': ['ai'],
  langchain: ['langchain', '@langchain/core/messages', '@langchain/core/utils/json_schema'],
  'openai-agents': ['@openai/agents'],
};

const isTest = (path: string) => /\.test\.ts$/.test(path);

function layerOf(path: string, table: Layer[]): Layer | undefined {
  return table.find((l) => l.holds.some((h) => (h.endsWith('/') ? path.startsWith(h) : path === h)));
}

/** Every relative import in `files` that its layer may not make, as a readable line. */
function upwardImports(files: Map<string, string>, table: Layer[]): string[] {
  const offenders: string[] = [];
  for (const [path, code] of files) {
    const from = layerOf(path, table);
    if (!from) continue; // reported by the "every source is in a layer" check
    for (const spec of specifiers(code)) {
      const gatePackage = spec === GATE_PACKAGE || spec.startsWith(`${GATE_PACKAGE}/`);
      if (!spec.startsWith('.') && !gatePackage) continue; // other packages are not layers
      const target = gatePackage ? GATE_DIR : normalize(join(dirname(path), spec));
      const to = layerOf(target, table);
      if (to === from) {
        if (gatePackage) offenders.push(`${path}: imports "${spec}" from inside the package (import its own files by path)`);
        continue;
      }
      if (!gatePackage && target.startsWith(GATE_DIR)) offenders.push(`${path}: imports "${spec}" by path (import "${GATE_PACKAGE}" by name)`);
      else if (!to) offenders.push(`${path}: imports "${spec}", which is in no layer`);
      else if (!from.may.includes(to.name)) offenders.push(`${path}: imports "${spec}" (${from.name} may not import ${to.name})`);
    }
  }
  return offenders;
}

describe('layers', () => {
  const files = ['src', 'functions', 'packages/gate/src'].flatMap((d) => [...sources(d)]).filter((p) => !isTest(p));

  it('every source file belongs to exactly one layer', () => {
    expect(files.length).toBeGreaterThan(50);
    const homeless = files.filter((p) => layers.filter((l) => layerOf(p, [l])).length !== 1);
    expect(homeless, 'add the file or its folder to the table in test/runtimes/layers.test.ts').toEqual([]);
  });

  it('the table reads bottom-up: a layer may only import layers listed before it', () => {
    const seen = new Set<string>();
    const wrong: string[] = [];
    for (const l of layers) {
      for (const m of l.may) if (!seen.has(m)) wrong.push(`${l.name} may import ${m}, which is not below it`);
      seen.add(l.name);
    }
    expect(wrong).toEqual([]);
  });

  it('the check catches an import that points up, and one out of the layers', () => {
    const sample = new Map([
      ['src/model/types.ts', "import type { Usage } from '../loop/turn.ts';\nimport type { ChatMessage } from '../vocabulary.ts';"],
      ['src/loop/turn.ts', "import { gate } from 'rebound-gate';\nconst x = await import('../http/app.ts');"],
      ['src/loop/turn-state.ts', "import { validate } from '../../packages/gate/src/schema/schema.ts';"],
      ['packages/gate/src/rename.ts', "import { gate } from 'rebound-gate';\nimport type { Usage } from '../../../src/loop/turn.ts';"],
      ['src/store/memory.ts', "import { checkStorageContract } from '../../test/data/storage-contract.ts';"],
    ]);
    expect(upwardImports(sample, layers)).toEqual([
      'src/model/types.ts: imports "../loop/turn.ts" (model may not import loop)',
      'src/loop/turn.ts: imports "../http/app.ts" (loop may not import http)',
      'src/loop/turn-state.ts: imports "../../packages/gate/src/schema/schema.ts" by path (import "rebound-gate" by name)',
      'packages/gate/src/rename.ts: imports "rebound-gate" from inside the package (import its own files by path)',
      'packages/gate/src/rename.ts: imports "../../../src/loop/turn.ts" (gate may not import loop)',
      'src/store/memory.ts: imports "../../test/data/storage-contract.ts", which is in no layer',
    ]);
  });

  it('no import in src/ or functions/ points up the layers', () => {
    const code = new Map(files.map((p) => [p, readFileSync(join(root, p), 'utf8')]));
    expect(upwardImports(code, layers), 'move what both sides need down a layer (see the table above)').toEqual([]);
  });

  it('the gate imports no package but its one dependency (an adapter, its framework too)', () => {
    const pkg = JSON.parse(readFileSync(join(root, GATE_DIR, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    expect(Object.keys(pkg.dependencies ?? {})).toEqual(['fastest-levenshtein']);
    const bare = files
      .filter((p) => p.startsWith(GATE_DIR))
      .flatMap((p) => specifiers(readFileSync(join(root, p), 'utf8')).map((spec) => ({ p, spec })))
      .filter(({ spec }) => !spec.startsWith('.') && spec !== 'fastest-levenshtein')
      .filter(({ p, spec }) => !Object.entries(ADAPTERS).some(([dir, peers]) => p.startsWith(`${GATE_DIR}src/${dir}/`) && peers.includes(spec)));
    expect(bare.map(({ p, spec }) => `${p}: ${spec}`)).toEqual([]);
  });
});
