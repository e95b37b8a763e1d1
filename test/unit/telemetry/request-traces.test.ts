// Where the later spans of a request go: under its create span (jobs, and callers without a trace of their own), or
// under the caller's span with a link to the create span; the memory of create spans is bounded, oldest forgotten.
import { context, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestTraces } from '../../../src/telemetry/tracing.js';

const provider = new NodeTracerProvider();
const tracer = provider.getTracer('test');
beforeAll(() => provider.register());
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

describe('RequestTraces', () => {
  it('puts a job under the create span, and a request it never saw in a trace of its own', () => {
    const traces = new RequestTraces();
    const create = tracer.startSpan('create');
    traces.remember('r1', create);
    expect(trace.getSpanContext(traces.jobPlace('r1').parent!)).toEqual(create.spanContext());
    expect(traces.jobPlace('r2').parent).toBe(ROOT_CONTEXT);
  });

  it("puts a caller's span first, linked to the create span; without one, under the create span", () => {
    const traces = new RequestTraces();
    const create = tracer.startSpan('create');
    traces.remember('r1', create);
    const caller = tracer.startSpan('approver');
    const place = context.with(trace.setSpan(ROOT_CONTEXT, caller), () => traces.callerPlace('r1'));
    expect(trace.getSpanContext(place.parent!)).toEqual(caller.spanContext());
    expect(place.links).toEqual([{ context: create.spanContext() }]);
    expect(trace.getSpanContext(traces.callerPlace('r1').parent!)).toEqual(create.spanContext());
  });

  it('remembers only spans that record, and forgets the oldest past its limit', () => {
    const traces = new RequestTraces(2);
    traces.remember('none', trace.wrapSpanContext({ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 0 }));
    traces.remember('undefined', undefined);
    for (const id of ['r1', 'r2', 'r3']) traces.remember(id, tracer.startSpan(id));
    expect(traces.jobPlace('none').parent).toBe(ROOT_CONTEXT);
    expect(traces.jobPlace('undefined').parent).toBe(ROOT_CONTEXT);
    expect(traces.jobPlace('r1').parent).toBe(ROOT_CONTEXT);
    expect(trace.getSpanContext(traces.jobPlace('r3').parent!)).toBeDefined();
    expect(trace.getSpanContext(traces.jobPlace('r2').parent!)).toBeDefined();
  });
});
