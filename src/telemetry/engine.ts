// The tracing engine, loaded with import() only when tracing is on (index.ts): the maintained SDK
// (@opentelemetry/sdk-trace: tracer provider, samplers, the batch span processor and its bounded
// queue) and OTLP encoding (@opentelemetry/otlp-transformer's protobuf and JSON serializers, driven by
// @opentelemetry/otlp-exporter-base's export delegate). The one part of our own is the transport, plain
// fetch (transport.ts), the same on Node, workerd and Deno: the packages' Node transport is node:http,
// and their browser one sets fetch options workerd refuses. Context is passed explicitly (a span's
// parent is named, never taken from an ambient context manager), so no AsyncLocalStorage is needed on
// any runtime, and nothing here touches a global: each app has its own provider.
import { type Attributes, type Context, ROOT_CONTEXT, type Span, createNoopMeter, defaultTextMapGetter, defaultTextMapSetter, trace } from '@opentelemetry/api';
import { ExportResultCode, W3CTraceContextPropagator } from '@opentelemetry/core';
import { ExporterMetrics, OTLPExporterBase, createOtlpNetworkExportDelegate } from '@opentelemetry/otlp-exporter-base';
import { JsonTraceSerializer, ProtobufTraceSerializer, TraceExporterMetricsHelper } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type ReadableSpan,
  type Sampler,
  type SpanExporter,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import type { TracingConfig } from '../otel-config.ts';
import type { TraceCarrier, Tracing } from './index.ts';
import { gatewaySpans, turnSpans } from './spans.ts';
import { fetchTransport } from './transport.ts';
import { assertNever } from '../vocabulary.ts';

export const TRACER_NAME = 'rebound';

export function createEngine(config: TracingConfig, log: (line: string) => void): Tracing {
  const drops = new DropCounter(config.endpoint, log);
  const exporter = countingExporter(otlpExporter(config), drops);
  const processor = new BatchSpanProcessor({
    exporter,
    maxQueueSize: config.maxQueueSize,
    maxExportBatchSize: config.maxExportBatchSize,
    scheduledDelayMillis: config.scheduleDelayMs,
    exportTimeoutMillis: config.exportTimeoutMs,
    // The processor reports a full queue through its self-observability counter; that is where drops are counted.
    selfObsMeterProvider: drops.meterProvider,
  });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ ...config.resourceAttributes, 'service.name': config.serviceName }),
    sampler: samplerOf(config),
    spanProcessors: [processor],
  });
  const tracer = provider.getTracer(TRACER_NAME, '0.1.0');
  const propagator = new W3CTraceContextPropagator();
  const parentOf = (carrier: TraceCarrier | undefined): Context =>
    carrier ? propagator.extract(ROOT_CONTEXT, carrier as Record<string, string>, defaultTextMapGetter) : ROOT_CONTEXT;
  const headersOf = (span: Span): Record<string, string> => {
    const headers: Record<string, string> = {};
    propagator.inject(trace.setSpan(ROOT_CONTEXT, span), headers, defaultTextMapSetter);
    return headers;
  };
  const spans = { tracer, parentOf, headersOf, captureContent: config.captureContent };
  return {
    startTurn: async (start) => turnSpans(spans, start),
    startGateway: async (start) => gatewaySpans(spans, start),
    // The queue's spans go out, and the exports already in flight (started by the schedule) are waited for too.
    flush: () =>
      bounded(
        provider.forceFlush().finally(() => exporter.forceFlush?.()),
        config.exportTimeoutMs + 1_000,
      ),
    stats: () => ({ dropped: drops.count }),
  };
}

function otlpExporter(config: TracingConfig): SpanExporter {
  const json = config.protocol === 'http/json';
  // Exports in flight at once: a flush sends every batch of the queue together (at most queue / batch).
  const concurrencyLimit = Math.ceil(config.maxQueueSize / config.maxExportBatchSize) + 1;
  const options = { timeoutMillis: config.exportTimeoutMs, concurrencyLimit, compression: 'none' as const };
  const metrics = new ExporterMetrics<ReadableSpan[]>({
    componentType: 'otlp_http_span_exporter',
    metricsHelper: TraceExporterMetricsHelper,
    url: config.endpoint,
    meterProvider: undefined,
    responseAttributesFromError: () => ({}),
  });
  const transport = fetchTransport({ url: config.endpoint, headers: config.headers, contentType: json ? 'application/json' : 'application/x-protobuf' });
  return new OTLPExporterBase(createOtlpNetworkExportDelegate(options, json ? JsonTraceSerializer : ProtobufTraceSerializer, metrics, transport));
}

/** The exporter, with the spans of every failed export counted as dropped (a collector that is down or slow). */
function countingExporter(inner: SpanExporter, drops: DropCounter): SpanExporter {
  return {
    export(spans, done) {
      inner.export(spans, (result) => {
        if (result.code !== ExportResultCode.SUCCESS) drops.add(spans.length, result.error?.message ?? 'export failed');
        done(result);
      });
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}

/** Dropped spans: counted, and told once per engine (a collector that stays down must not flood the log). */
class DropCounter {
  count = 0;
  private told = false;
  readonly meterProvider: { getMeter(): ReturnType<typeof createNoopMeter> };

  private readonly endpoint: string;
  private readonly log: (line: string) => void;
  constructor(endpoint: string, log: (line: string) => void) {
    this.endpoint = endpoint;
    this.log = log;
    const noop = createNoopMeter();
    const meter = Object.create(noop) as ReturnType<typeof createNoopMeter>;
    meter.createCounter = ((name: string, options?: object) => {
      if (name !== 'otel.sdk.processor.span.processed') return noop.createCounter(name, options);
      return {
        add: (n: number, attributes?: Attributes) => {
          if (attributes?.['error.type'] === 'queue_full') this.add(n, 'the queue was full (OTEL_BSP_MAX_QUEUE_SIZE)');
        },
      };
    }) as typeof meter.createCounter;
    this.meterProvider = { getMeter: () => meter };
  }

  add(n: number, why: string): void {
    this.count += n;
    if (this.told) return;
    this.told = true;
    this.log(`rebound: tracing: ${n} spans dropped, not exported to ${this.endpoint} (${why}); later drops are counted, not logged`);
  }
}

function samplerOf({ sampler, samplerRatio }: TracingConfig): Sampler {
  const ratio = new TraceIdRatioBasedSampler(samplerRatio);
  switch (sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio;
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio });
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    default:
      return assertNever(sampler, 'sampler');
  }
}

/** Waits for `promise` at most `ms`; never rejects (a flush that fails has counted its drops). */
async function bounded(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([
      promise.then(
        () => {},
        () => {},
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
