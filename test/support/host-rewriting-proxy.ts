// A reverse proxy on loopback that forwards the way nginx's `proxy_pass http://127.0.0.1:PORT;` does
// with no other setting: it connects from this machine, and it rewrites `Host` to the upstream's own
// address ($proxy_host), so the app sees a loopback Host from a loopback peer whoever called. With
// `forwardedFor` it also adds `X-Forwarded-For` and `X-Real-IP` (the two lines most nginx guides add),
// naming a public client address. Bodies stream both ways (a turn's SSE goes out as it comes).
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HostRewritingProxy {
  /** Where the proxy listens: `http://127.0.0.1:PORT`, the public face of the app in a test. */
  url: string;
  /** The Host header each forwarded request carried to the upstream. */
  forwardedHosts: string[];
  close(): Promise<void>;
}

export interface ProxyOptions {
  /** Add `X-Forwarded-For` and `X-Real-IP` with this client address (say, 203.0.113.7). */
  forwardedFor?: string;
}

/** Hop-by-hop headers a proxy does not pass on (RFC 9110 § 7.6.1). */
const HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

export async function startHostRewritingProxy(target: string, options: ProxyOptions = {}): Promise<HostRewritingProxy> {
  const upstream = new URL(target);
  const forwardedHosts: string[] = [];
  const server = createServer((req, res) => {
    const headers: IncomingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) if (!HOP.has(name)) headers[name] = value;
    // $proxy_host: the upstream's host and port as proxy_pass names them.
    headers.host = upstream.host;
    if (options.forwardedFor) {
      headers['x-forwarded-for'] = options.forwardedFor;
      headers['x-real-ip'] = options.forwardedFor;
    }
    forwardedHosts.push(upstream.host);
    const out = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (answer) => {
      const back: IncomingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers)) if (!HOP.has(name)) back[name] = value;
      res.writeHead(answer.statusCode ?? 502, back);
      answer.pipe(res);
    });
    out.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    res.on('close', () => out.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    forwardedHosts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
