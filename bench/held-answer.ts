// What one streamed answer makes a host keep while it is still open (docs/configuration.md § Limits):
// 30 MB of text after a ``` opener through HeldAnswer (the first attempt, extraction on, as the gateway
// holds it), and a call whose arguments are 30 MB through ToolCallAssembler (the gateway and the loop).
// Prints the heap each retains after a full GC. Each 64 KB piece is a distinct string, as a network read is.
//
//   npx tsx --conditions=rebound-source bench/held-answer.ts [root of a checkout, default: this one]
import { resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const root = resolve(process.argv[2] ?? '.');
const { HeldAnswer } = await import(`${root}/packages/gate/src/held-answer.ts`);
const { ToolCallAssembler } = await import(`${root}/src/model/assemble.ts`);
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const MB = 1024 * 1024;
const PIECES = 480;
const piece = (i: number) => Buffer.alloc(64 * 1024, 97 + (i % 26)).toString('latin1');

const base = heap();
const answer = new HeldAnswer({ first: true, last: true, extract: true, accepted: () => true, sent: () => false, textCalls: () => null });
answer.pushText('Here:\n```\n');
for (let i = 0; i < PIECES; i++) answer.pushText(piece(i));
const text = heap() - base;
const calls = new ToolCallAssembler();
calls.push({ index: 0, id: 'c', function: { name: 'write_file', arguments: '{"content": "' } });
for (let i = 0; i < PIECES; i++) calls.push({ index: 0, function: { arguments: piece(i) } });
const args = heap() - base - text;
const round = (n: number) => Math.round((n / MB) * 10) / 10;
console.log(
  `${root}: ${(PIECES * 64) / 1024} MB of text held: ${round(text)} MB of heap; a call of ${(PIECES * 64) / 1024} MB of arguments: ${round(args)} MB`,
);
// Read after the figures, so that neither is collected before them.
if (answer.text.length + calls.result().length < 0) console.log('unreachable');
