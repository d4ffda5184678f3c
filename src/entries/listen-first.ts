// `npm start` binds its port before it opens the database (docs/configuration.md § One server per data
// folder): a port in use is found, and said in one line naming PORT, before anything of the data folder is
// opened. Requests that arrive while the database opens wait for the app; a failure to bind is data.
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';

/** The app's fetch; `env` is @hono/node-server's ({ incoming, outgoing }: a streamed answer writes to `outgoing`, node-sse.ts). */
type Fetch = (request: Request, env?: unknown) => Response | Promise<Response>;

export type Bound =
  | {
      ok: true;
      /** The address and port it listens on (PORT=0: the one the system gave). */
      address: AddressInfo;
      /** Hands the requests, those waiting included, to the app once it is ready. */
      serve(fetch: Fetch): void;
      close(done: () => void): void;
    }
  | { ok: false; message: string };

/** What a failed bind of `host`:`port` means to the person starting the server, in one line. */
export function describeListenError(err: NodeJS.ErrnoException, host: string, port: number): string {
  switch (err.code) {
    case 'EADDRINUSE':
      return `Port ${port} on ${host} is in use by another process: set PORT to a free port (PORT=${port + 1} npm start), or stop the process on ${port}.`;
    case 'EACCES':
      return `Port ${port} on ${host} needs privileges this process lacks: set PORT to a port above 1023 (PORT=8787 npm start).`;
    case 'EADDRNOTAVAIL':
      return `HOST=${host} is not an address of this machine: set HOST to one of its addresses (127.0.0.1 for this machine alone, 0.0.0.0 for all).`;
    default:
      return `Could not listen on ${host}:${port}: ${err.message} (set PORT or HOST to change where the server listens).`;
  }
}

/** Listens on `host`:`port`, answering nothing until `serve` hands it the app. */
export function listenFirst(host: string, port: number): Promise<Bound> {
  let app: Fetch | null = null;
  let ready: () => void = () => {};
  const appReady = new Promise<void>((resolve) => (ready = resolve));
  const server = createAdaptorServer({
    fetch: async (request: Request, env: unknown) => {
      if (!app) await appReady;
      return app!(request, env);
    },
  });
  return new Promise((resolve) => {
    server.once('error', (err: NodeJS.ErrnoException) => resolve({ ok: false, message: describeListenError(err, host, port) }));
    server.listen(port, host, () => {
      // Past the bind, an error of the listening socket is logged; the server goes on.
      server.on('error', (err) => console.error(`server: ${err.message}`));
      resolve({
        ok: true,
        address: server.address() as AddressInfo,
        serve(fetch) {
          app = fetch;
          ready();
        },
        close(done) {
          server.close(() => done());
        },
      });
    });
  });
}
