// Serves a Hono app on a loopback port for the browser suites.
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

export function listen(fetch: (request: Request) => Response | Promise<Response>): Promise<RunningServer> {
  return new Promise((resolve) => {
    const server = serve({ fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        close: () =>
          new Promise<void>((done) => {
            // Open EventSource streams would keep close() waiting forever.
            (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
            server.close(() => done());
          }),
      });
    });
  });
}
