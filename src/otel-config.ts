// The OpenTelemetry variables (OTEL_*), read as the OpenTelemetry specification says: an invalid value
// is warned about and ignored (its default is used), never a reason to stop the server, unlike the
// rest of config.ts. Tracing is on when a traces endpoint is set or OTEL_TRACES_EXPORTER=otlp, and
// OTEL_SDK_DISABLED is not true; otherwise it is off and nothing of the SDK is loaded (src/telemetry/).
// Platform-free: each runtime passes its env record (on Workers, the bindings).

import { isHttpUrl } from './http-url.ts';
export interface TracingConfig {
  /** The full OTLP/HTTP traces URL (…/v1/traces). */
  endpoint: string;
  protocol: 'http/protobuf' | 'http/json';
  /** OTEL_EXPORTER_OTLP_HEADERS then OTEL_EXPORTER_OTLP_TRACES_HEADERS (credentials: never logged). */
  headers: Record<string, string>;
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES, besides service.name. */
  resourceAttributes: Record<string, string>;
  sampler: TracingSampler;
  /** Samples kept for the parent-free ratio samplers (OTEL_TRACES_SAMPLER_ARG, 0–1). */
  samplerRatio: number;
  /** OTEL_BSP_SCHEDULE_DELAY: the longest a finished span waits before it is exported (ms). */
  scheduleDelayMs: number;
  /** OTEL_BSP_MAX_QUEUE_SIZE: finished spans held while the collector is slow; more are dropped and counted. */
  maxQueueSize: number;
  /** OTEL_BSP_MAX_EXPORT_BATCH_SIZE. */
  maxExportBatchSize: number;
  /** OTEL_EXPORTER_OTLP_(TRACES_)TIMEOUT: one export request's limit (ms). */
  exportTimeoutMs: number;
  /** OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: prompts, messages, arguments and results in spans (bounded). */
  captureContent: boolean;
}

export const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;
export type TracingSampler = (typeof SAMPLERS)[number];

/** The spec's default endpoint when only OTEL_TRACES_EXPORTER=otlp is set. */
const DEFAULT_ENDPOINT = 'http://localhost:4318';

/** The tracing configuration (null: tracing is off) and a line for each OTEL_* value ignored. */
export function parseTracingEnv(env: Record<string, string | undefined>): { tracing: TracingConfig | null; warnings: string[] } {
  const warnings: string[] = [];
  const get = (k: string) => env[k]?.trim() || undefined;
  const warn = (k: string, what: string) => warnings.push(`${k}=${JSON.stringify(get(k))} ignored: ${what}`);

  const disabled = get('OTEL_SDK_DISABLED');
  if (disabled !== undefined && !/^(true|false)$/i.test(disabled)) warn('OTEL_SDK_DISABLED', 'use true or false');
  const exporter = get('OTEL_TRACES_EXPORTER')?.toLowerCase();
  if (exporter !== undefined && exporter !== 'otlp' && exporter !== 'none') {
    warn('OTEL_TRACES_EXPORTER', 'Rebound exports traces with "otlp" (or "none" for no traces)');
  }

  const endpoint = tracesEndpoint(get('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'), get('OTEL_EXPORTER_OTLP_ENDPOINT'), warn);
  const on = (endpoint !== undefined || exporter === 'otlp') && exporter !== 'none' && disabled?.toLowerCase() !== 'true';

  const protocolKey = get('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  let protocol: TracingConfig['protocol'] = 'http/protobuf';
  const asked = get(protocolKey);
  if (asked === 'http/json' || asked === 'http/protobuf') protocol = asked;
  else if (asked !== undefined) warn(protocolKey, 'use http/protobuf (the default) or http/json; gRPC is not supported');

  const samplerName = get('OTEL_TRACES_SAMPLER')?.toLowerCase();
  let sampler: TracingSampler = 'parentbased_always_on';
  if (samplerName !== undefined) {
    if ((SAMPLERS as readonly string[]).includes(samplerName)) sampler = samplerName as TracingSampler;
    else warn('OTEL_TRACES_SAMPLER', `use one of ${SAMPLERS.join(', ')}`);
  }
  let samplerRatio = 1;
  const arg = get('OTEL_TRACES_SAMPLER_ARG');
  if (arg !== undefined && sampler.endsWith('traceidratio')) {
    const ratio = Number(arg);
    if (Number.isFinite(ratio) && ratio >= 0 && ratio <= 1) samplerRatio = ratio;
    else warn('OTEL_TRACES_SAMPLER_ARG', 'use a ratio from 0 to 1');
  }

  const int = (k: string, { fallback, min, max }: { fallback: number; min: number; max: number }) => {
    const text = get(k);
    if (text === undefined) return fallback;
    const n = Number(text);
    if (Number.isInteger(n) && n >= min && n <= max) return n;
    warn(k, `use a whole number from ${min} to ${max}`);
    return fallback;
  };
  const timeoutKey = get('OTEL_EXPORTER_OTLP_TRACES_TIMEOUT') ? 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT' : 'OTEL_EXPORTER_OTLP_TIMEOUT';
  const maxQueueSize = int('OTEL_BSP_MAX_QUEUE_SIZE', { fallback: 2048, min: 1, max: 65_536 });
  const tracing: TracingConfig = {
    endpoint: endpoint ?? `${DEFAULT_ENDPOINT}/v1/traces`,
    protocol,
    headers: {
      ...keyValues({ key: 'OTEL_EXPORTER_OTLP_HEADERS', text: get('OTEL_EXPORTER_OTLP_HEADERS'), warnings, quote: false }),
      ...keyValues({ key: 'OTEL_EXPORTER_OTLP_TRACES_HEADERS', text: get('OTEL_EXPORTER_OTLP_TRACES_HEADERS'), warnings, quote: false }),
    },
    serviceName: 'rebound',
    resourceAttributes: keyValues({ key: 'OTEL_RESOURCE_ATTRIBUTES', text: get('OTEL_RESOURCE_ATTRIBUTES'), warnings, quote: true }),
    sampler,
    samplerRatio,
    scheduleDelayMs: int('OTEL_BSP_SCHEDULE_DELAY', { fallback: 5_000, min: 0, max: 600_000 }),
    maxQueueSize,
    maxExportBatchSize: Math.min(int('OTEL_BSP_MAX_EXPORT_BATCH_SIZE', { fallback: 512, min: 1, max: 65_536 }), maxQueueSize),
    exportTimeoutMs: int(timeoutKey, { fallback: 10_000, min: 1, max: 600_000 }),
    captureContent: false,
  };
  const serviceName = get('OTEL_SERVICE_NAME') ?? tracing.resourceAttributes['service.name'];
  if (serviceName) tracing.serviceName = serviceName;
  delete tracing.resourceAttributes['service.name'];
  const capture = get('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT');
  if (capture !== undefined && !/^(true|false)$/i.test(capture)) warn('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT', 'use true or false');
  tracing.captureContent = capture?.toLowerCase() === 'true';
  return { tracing: on ? tracing : null, warnings };
}

/** The traces URL: the per-signal variable as it is, or the base endpoint with /v1/traces appended. */
function tracesEndpoint(traces: string | undefined, base: string | undefined, warn: (k: string, what: string) => void): string | undefined {
  if (traces !== undefined) {
    if (isHttpUrl(traces)) return traces;
    warn('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'use an http(s) URL such as http://127.0.0.1:4318/v1/traces');
  }
  if (base !== undefined) {
    if (isHttpUrl(base)) return `${base.replace(/\/+$/, '')}/v1/traces`;
    warn('OTEL_EXPORTER_OTLP_ENDPOINT', 'use an http(s) URL such as http://127.0.0.1:4318');
  }
  return undefined;
}

/**
 * `key=value,key2=value2` with percent-encoded values (the W3C Baggage format the spec names). A bad
 * list is ignored whole; the warning never quotes a headers value (it may hold a key).
 */
function keyValues({ key, text, warnings, quote }: { key: string; text: string | undefined; warnings: string[]; quote: boolean }): Record<string, string> {
  if (text === undefined) return {};
  const out: Record<string, string> = {};
  for (const item of text.split(',')) {
    if (!item.trim()) continue;
    const at = item.indexOf('=');
    const name = at > 0 ? item.slice(0, at).trim() : '';
    let value: string | undefined;
    try {
      value = at > 0 ? decodeURIComponent(item.slice(at + 1).trim()) : undefined;
    } catch {
      value = undefined;
    }
    if (!name || value === undefined || !/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) {
      warnings.push(`${key}${quote ? `=${JSON.stringify(text)}` : ''} ignored: write it as key=value pairs, comma-separated, values percent-encoded`);
      return {};
    }
    out[name] = value;
  }
  return out;
}
