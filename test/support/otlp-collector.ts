// An OTLP/HTTP traces endpoint on loopback, for the tracing suites: it takes POST /v1/traces as
// http/protobuf or http/json and decodes it independently of the exporter's own code, with protobufjs
// and the opentelemetry-proto .proto files as a registry package ships them (the `otlp-protos` alias
// of @opentelemetry/otlp-grpc-exporter-base 0.36.1, a dev dependency for its build/protos/ alone), or
// JSON.parse. Spans come out flattened: ids in hex, attributes as plain values.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import protobuf from 'protobufjs';

export interface CollectedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind number: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  events: Array<{ name: string; attributes: Record<string, unknown> }>;
  /** Span links: the span each one points at, and the link's attributes. */
  links: Array<{ traceId: string; spanId: string; attributes: Record<string, unknown> }>;
  status: { code: number; message: string };
  resource: Record<string, unknown>;
  scope: string;
}

export interface Collector {
  /** Base endpoint (OTEL_EXPORTER_OTLP_ENDPOINT): the traces go to `${url}/v1/traces`. */
  url: string;
  spans: CollectedSpan[];
  /** Content types of the requests received, in order. */
  contentTypes: string[];
  /** Resolves once spans matching `until` have arrived (polls; fails after timeoutMs). */
  waitFor(until: (spans: CollectedSpan[]) => boolean, timeoutMs?: number): Promise<CollectedSpan[]>;
  close(): Promise<void>;
}

const require = createRequire(import.meta.url);
const PROTOS = join(dirname(require.resolve('otlp-protos/package.json')), 'build', 'protos');
let requestType: Promise<protobuf.Type> | undefined;

function traceRequestType(): Promise<protobuf.Type> {
  requestType ??= (async () => {
    const root = new protobuf.Root();
    root.resolvePath = (_origin, target) => join(PROTOS, target);
    await root.load('opentelemetry/proto/collector/trace/v1/trace_service.proto', { keepCase: true });
    return root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
  })();
  return requestType;
}

export async function startCollector(options: { stallMs?: number } = {}): Promise<Collector> {
  const spans: CollectedSpan[] = [];
  const contentTypes: string[] = [];
  const server: Server = createServer(async (req, res) => {
    try {
      const body = await readBody(req);
      const type = String(req.headers['content-type'] ?? '');
      contentTypes.push(type);
      if (options.stallMs) await new Promise((r) => setTimeout(r, options.stallMs));
      const decoded = type.startsWith('application/json') ? fromJson(JSON.parse(body.toString('utf8'))) : await fromProtobuf(body);
      spans.push(...decoded);
      res.writeHead(200, { 'content-type': type || 'application/x-protobuf' }).end();
    } catch (err) {
      res.writeHead(400).end(String(err));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    async waitFor(until, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!until(spans)) {
        if (Date.now() > deadline) throw new Error(`the collector did not get the spans in ${timeoutMs} ms; it has: ${spans.map((s) => s.name).join(', ')}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return spans;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function fromProtobuf(body: Buffer): Promise<CollectedSpan[]> {
  const type = await traceRequestType();
  const message = type.toObject(type.decode(body), { longs: String, bytes: String, defaults: true });
  return flattenSpans(message as OtlpRequest, (id) => Buffer.from(id, 'base64').toString('hex'));
}

/** OTLP/JSON: ids are hex already (the spec's JSON mapping), enums numbers. */
function fromJson(message: OtlpRequest): CollectedSpan[] {
  return flattenSpans(message, (id) => id);
}

interface OtlpValue {
  stringValue?: string;
  string_value?: string;
  boolValue?: boolean;
  bool_value?: boolean;
  intValue?: string | number;
  int_value?: string | number;
  doubleValue?: number;
  double_value?: number;
  arrayValue?: { values: OtlpValue[] };
  array_value?: { values: OtlpValue[] };
}
type OtlpAttributes = Array<{ key: string; value: OtlpValue }>;
interface OtlpSpan {
  trace_id?: string;
  traceId?: string;
  span_id?: string;
  spanId?: string;
  parent_span_id?: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpAttributes;
  events?: Array<{ name: string; attributes?: OtlpAttributes }>;
  links?: Array<{ trace_id?: string; traceId?: string; span_id?: string; spanId?: string; attributes?: OtlpAttributes }>;
  status?: { code?: number; message?: string };
}
interface OtlpRequest {
  resource_spans?: OtlpResourceSpans[];
  resourceSpans?: OtlpResourceSpans[];
}
interface OtlpResourceSpans {
  resource?: { attributes?: OtlpAttributes };
  scope_spans?: OtlpScopeSpans[];
  scopeSpans?: OtlpScopeSpans[];
}
interface OtlpScopeSpans {
  scope?: { name?: string };
  spans?: OtlpSpan[];
}

function flattenSpans(message: OtlpRequest, hex: (id: string) => string): CollectedSpan[] {
  const out: CollectedSpan[] = [];
  for (const rs of message.resource_spans ?? message.resourceSpans ?? []) {
    const resource = attrs(rs.resource?.attributes);
    for (const ss of rs.scope_spans ?? rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          traceId: hex(s.trace_id ?? s.traceId ?? ''),
          spanId: hex(s.span_id ?? s.spanId ?? ''),
          parentSpanId: hex(s.parent_span_id ?? s.parentSpanId ?? ''),
          name: s.name,
          kind: Number(s.kind),
          attributes: attrs(s.attributes),
          events: (s.events ?? []).map((e) => ({ name: e.name, attributes: attrs(e.attributes) })),
          links: (s.links ?? []).map((l) => ({
            traceId: hex(l.trace_id ?? l.traceId ?? ''),
            spanId: hex(l.span_id ?? l.spanId ?? ''),
            attributes: attrs(l.attributes),
          })),
          status: { code: Number(s.status?.code ?? 0), message: s.status?.message ?? '' },
          resource,
          scope: ss.scope?.name ?? '',
        });
      }
    }
  }
  return out;
}

function attrs(list: OtlpAttributes | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, plainValue(value)]));
}

function plainValue(v: OtlpValue): unknown {
  const s = v.stringValue ?? v.string_value;
  if (s !== undefined && s !== '') return s;
  const b = v.boolValue ?? v.bool_value;
  if (b !== undefined && b !== false) return b;
  const i = v.intValue ?? v.int_value;
  if (i !== undefined && String(i) !== '0') return Number(i);
  const d = v.doubleValue ?? v.double_value;
  if (d !== undefined && d !== 0) return d;
  const a = v.arrayValue ?? v.array_value;
  if (a?.values?.length) return a.values.map(plainValue);
  // With `defaults: true` every field reads as its zero value: the set one was empty, false or 0.
  if (s !== undefined) return s;
  if (b !== undefined) return b;
  return i !== undefined ? Number(i) : (d ?? null);
}
