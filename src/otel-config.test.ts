import { describe, expect, it } from 'vitest';
import { parseTracingEnv } from './otel-config.ts';

describe('parseTracingEnv', () => {
  it('is off without an endpoint or OTEL_TRACES_EXPORTER=otlp, and with OTEL_SDK_DISABLED=true', () => {
    expect(parseTracingEnv({}).tracing).toBeNull();
    expect(parseTracingEnv({ OTEL_SERVICE_NAME: 'x' }).tracing).toBeNull();
    expect(parseTracingEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'TRUE' }).tracing).toBeNull();
    expect(parseTracingEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }).tracing).toBeNull();
  });

  it('reads the endpoints as the spec says: the base gets /v1/traces, the per-signal one is used as it is', () => {
    expect(parseTracingEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' }).tracing?.endpoint).toBe('http://c:4318/v1/traces');
    expect(parseTracingEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://h/otlp/traces', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c' }).tracing?.endpoint).toBe(
      'https://h/otlp/traces',
    );
    expect(parseTracingEnv({ OTEL_TRACES_EXPORTER: 'otlp' }).tracing?.endpoint).toBe('http://localhost:4318/v1/traces');
  });

  it('takes headers, resource attributes, service name, sampler, protocol and content capture', () => {
    const { tracing, warnings } = parseTracingEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-honeycomb-team=abc%3D,x-other=1',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-other=2',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,service.name=from-attrs',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
    });
    expect(warnings).toEqual([]);
    expect(tracing).toMatchObject({
      headers: { 'x-honeycomb-team': 'abc=', 'x-other': '2' },
      resourceAttributes: { 'deployment.environment': 'prod' },
      serviceName: 'from-attrs',
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.25,
      protocol: 'http/json',
      scheduleDelayMs: 100,
      captureContent: true,
    });
    expect(
      parseTracingEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_SERVICE_NAME: 'svc', OTEL_RESOURCE_ATTRIBUTES: 'service.name=x' }).tracing?.serviceName,
    ).toBe('svc');
  });

  it('warns about each invalid value and uses its default, never failing; a headers warning never quotes the value', () => {
    const { tracing, warnings } = parseTracingEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_TRACES_SAMPLER: 'sometimes',
      OTEL_BSP_SCHEDULE_DELAY: '-5',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization Bearer secret',
      OTEL_SDK_DISABLED: 'maybe',
    });
    expect(tracing).toMatchObject({ protocol: 'http/protobuf', sampler: 'parentbased_always_on', scheduleDelayMs: 5000, headers: {} });
    expect(warnings).toHaveLength(5);
    expect(warnings.join('\n')).not.toContain('secret');
    expect(warnings[0]).toMatch(/^OTEL_SDK_DISABLED="maybe" ignored/);
    expect(parseTracingEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })).toMatchObject({
      tracing: null,
      warnings: [expect.stringMatching(/^OTEL_EXPORTER_OTLP_ENDPOINT/)],
    });
  });
});
