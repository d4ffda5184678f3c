// The app's server process for the benches that measure it apart from their clients and upstream
// (bench/stream-server.ts: the real app, and a bare proxy beside it), and the IPC that asks it for its
// CPU time ('cpu'), its memory after a full GC ('mem') and a turn's stored rows ('rows').
import { type ChildProcess, fork } from 'node:child_process';
import { npmStart } from '../test/runtimes/servers.ts';

/**
 * Node's flags for a bench's server process: `npm start`'s (package.json: Node's own type stripping, no
 * tsx), so that a bench measures the app as it runs there, with the GC exposed and a bench's own flags.
 */
export function serverExecArgv(...more: string[]): string[] {
  return [...npmStart().args.filter((arg) => arg.startsWith('-')), '--expose-gc', ...more];
}

export interface AppProcess {
  child: ChildProcess;
  base: string;
}

export async function startAppProcess(options: { upstreamUrl: string; env?: Record<string, string>; execArgv?: string[] }): Promise<AppProcess> {
  const child = fork(new URL('./stream-server.ts', import.meta.url).pathname, [], {
    execArgv: serverExecArgv('--max-old-space-size=4096', ...(options.execArgv ?? [])),
    env: { ...process.env, UPSTREAM_URL: options.upstreamUrl, KEEPALIVE_MS: '1000', ...options.env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve) => child.once('message', (m) => resolve((m as { port: number }).port)));
  return { child, base: `http://127.0.0.1:${port}` };
}

export function ask<T>(child: ChildProcess, type: string, extra: Record<string, unknown> = {}): Promise<T> {
  return new Promise((resolve) => {
    const on = (message: unknown) => {
      const m = message as { type: string; usage: T };
      if (m.type === type) {
        child.off('message', on);
        resolve(m.usage);
      }
    };
    child.on('message', on);
    child.send({ type, ...extra });
  });
}
