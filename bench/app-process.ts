// The app's server process for the benches that measure it apart from their clients and upstream
// (bench/stream-server.ts: the real app, and a bare proxy beside it), and the IPC that asks it for its
// CPU time ('cpu'), its memory after a full GC ('mem') and a turn's stored rows ('rows').
import { type ChildProcess, fork } from 'node:child_process';

export interface AppProcess {
  child: ChildProcess;
  base: string;
}

export async function startAppProcess(options: { upstreamUrl: string; env?: Record<string, string>; execArgv?: string[] }): Promise<AppProcess> {
  const child = fork(new URL('./stream-server.ts', import.meta.url).pathname, [], {
    execArgv: ['--import', 'tsx', '--conditions=rebound-source', '--expose-gc', '--max-old-space-size=4096', ...(options.execArgv ?? [])],
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
