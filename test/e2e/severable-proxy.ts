// A loopback TCP proxy in front of an app that a test can cut: the network drop a phone sees when it
// leaves Wi-Fi. Chromium's context.setOffline() does not touch a connection already open on
// loopback (an EventSource keeps streaming through it), so the browser suites load the page through
// this proxy and sever its connections instead; while `offline`, new connections are cut at once.
import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface SeverableProxy {
  url: string;
  /** Cuts every open connection (both ends), as a dropped network does. */
  sever(): void;
  /** While true, every new connection is cut as soon as it is accepted. */
  offline: boolean;
  /** Connections accepted so far (including the ones cut while offline). */
  readonly connections: number;
  close(): Promise<void>;
}

export async function startSeverableProxy(target: string): Promise<SeverableProxy> {
  const { hostname, port } = new URL(target);
  const open = new Set<Socket>();
  let connections = 0;
  const state = { offline: false };
  const server = createServer((client) => {
    connections++;
    if (state.offline) {
      client.destroy();
      return;
    }
    const upstream = connect({ host: hostname, port: Number(port) });
    for (const s of [client, upstream]) {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => {}); // a cut connection errors on the other side; that is the point
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const sever = () => {
    for (const s of open) s.resetAndDestroy();
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sever,
    get offline() {
      return state.offline;
    },
    set offline(value: boolean) {
      state.offline = value;
      if (value) sever();
    },
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        sever();
        server.close(() => resolve());
      }),
  };
}
