// With nothing registered with the OpenTelemetry API (no SDK, no host provider), tollgate's spans and propagation
// still run the code they wrap, record nothing and add no header; a propagator registered later is used at once.
import { describe, expect, it, onTestFinished } from 'vitest';
import { injectTraceHeaders } from '../../../src/telemetry/inject.js';
import { markSpan, traced } from '../../../src/telemetry/tracing.js';
import { loadOtelApi } from '../../../src/telemetry/api.js';

describe('telemetry with nothing registered', () => {
  it('runs a traced function with a span that records nothing, and adds no trace header', async () => {
    const seen: boolean[] = [];
    const result = await traced('tollgate.test', { a: 1 }, {}, async (span) => {
      span.setAttributes({ b: 2 }).setAttribute('c', 3).addEvent('e').setStatus({ code: 0 }).updateName('n');
      span.recordException('x');
      seen.push(span.isRecording());
      return 'done';
    });
    expect(result).toBe('done');
    expect(seen).toEqual([false]);
    markSpan('tollgate.mark', {}, {});
    await expect(traced('tollgate.test', {}, {}, async () => Promise.reject(new Error('boom')))).rejects.toThrow(
      'boom',
    );
    expect(injectTraceHeaders({ accept: 'application/json' })).toEqual({ accept: 'application/json' });
  });

  it('uses a propagator registered afterwards', async () => {
    const api = loadOtelApi();
    // The propagator is this test's: the one before it must still find none, whichever runs first.
    onTestFinished(() => api.propagation.disable());
    api.propagation.setGlobalPropagator({
      inject: (_context, carrier, setter) => setter.set(carrier, 'x-test', 'yes'),
      extract: (context) => context,
      fields: () => ['x-test'],
    });
    expect(injectTraceHeaders({})).toEqual({ 'x-test': 'yes' });
  });
});
