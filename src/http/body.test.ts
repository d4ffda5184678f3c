// readJson on @hono/node-server, as Node's entries serve it: a body the server has already received
// whole is taken from the request stream's buffer (receivedWhole), one still arriving or without a
// Content-Length is read as before; either way the route reads the same text and the request ends.
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { readJson } from './body.ts';
import { onApiError } from './errors.ts';

const Body = z.looseObject({ text: z.string() });
let server: ServerType;
let port: number;
const incomings: IncomingMessage[] = [];
beforeAll(async () => {
  const app = new Hono();
  app.post('/echo', async (c) => {
    incomings.push((c.env as { incoming: IncomingMessage }).incoming);
    // As a gateway route's auth comes first: by then Node's parser has handed over what the socket read.
    await Promise.resolve();
    return c.json(await readJson(c, Body, { maxBytes: 1024 }));
  });
  app.onError(onApiError);
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** POSTs `parts` to /echo, each a write of its own `pauseMs` after the one before; `length` false: chunked. */
function post(parts: Buffer[], { pauseMs = 0, length = true } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const total = Buffer.concat(parts);
    const headers: Record<string, string | number> = { 'content-type': 'application/json' };
    if (length) headers['content-length'] = total.byteLength;
    const req = httpRequest({ host: '127.0.0.1', port, path: '/echo', method: 'POST', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    void (async () => {
      for (const [i, part] of parts.entries()) {
        if (i > 0 && pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
        req.write(part);
      }
      req.end();
    })();
  });
}

const ended = async (incoming: IncomingMessage) => {
  for (let i = 0; i < 50 && !incoming.readableEnded; i++) await new Promise((r) => setTimeout(r, 5));
  return incoming.readableEnded;
};

describe('readJson on @hono/node-server', () => {
  const json = Buffer.from(JSON.stringify({ text: 'héllo wörld 👋', n: [1, 2, 3] }));

  it('reads a body sent whole, in pieces with pauses, or chunked, to the same text; the request stream ends each time', async () => {
    const cases = [
      post([json]),
      // Cut inside a multi-byte character, the second half sent 30 ms later: not all of it is there when the route reads.
      post([json.subarray(0, 15), json.subarray(15)], { pauseMs: 30 }),
      post([json.subarray(0, 10), json.subarray(10)], { pauseMs: 30, length: false }),
    ];
    for (const [i, answer] of (await Promise.all(cases)).entries()) {
      expect(answer, `case ${i}`).toEqual({ status: 200, body: JSON.stringify(JSON.parse(json.toString())) });
    }
    for (const incoming of incomings.slice(-3)) expect(await ended(incoming)).toBe(true);
  });

  it('drops a leading BOM as text() does, and still holds the body to its bounds', async () => {
    const bom = await post([Buffer.from([0xef, 0xbb, 0xbf]), json]);
    expect(bom).toEqual({ status: 200, body: JSON.stringify(JSON.parse(json.toString())) });
    const large = await post([Buffer.from(JSON.stringify({ text: 'x'.repeat(2000) }))]);
    expect(large.status).toBe(413);
    const malformed = await post([Buffer.from('{"text": "a"')]);
    expect(malformed.status).toBe(400);
    expect(malformed.body).toContain('malformed_json');
  });
});
