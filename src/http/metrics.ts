/**
 * @module http/metrics
 * Prometheus metrics (`GET /metrics`). One registry per server, so several gateways in one process (tests) do not
 * share counters. Row counts are read from the database at scrape time: the rows are the truth.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Gateway } from '../gateway/gateway.js';
import { REQUEST_STATUSES } from '../requests/types.js';

/** The metrics of one gateway. */
export interface GatewayMetrics {
  registry: Registry;
  /** Stops observing the gateway. */
  close(): void;
}

/** Registers tollgate's metrics for `gateway`. */
export function createMetrics(gateway: Gateway, options: { defaultMetrics?: boolean } = {}): GatewayMetrics {
  const registry = new Registry();
  if (options.defaultMetrics) collectDefaultMetrics({ register: registry, prefix: 'tollgate_process_' });
  const requests = new Gauge({
    name: 'tollgate_requests',
    help: 'Confirmation requests in the database, by status.',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const counts = await gateway.countByStatus();
      for (const status of REQUEST_STATUSES) this.set({ status }, counts[status]);
    },
  });
  void requests;
  new Gauge({
    name: 'tollgate_pending_requests',
    help: 'Requests waiting for a decision.',
    registers: [registry],
    async collect() {
      this.set((await gateway.countByStatus()).pending);
    },
  });
  // The event stream's sinks, as this process sees them (the one delivering a sink counts its deliveries).
  new Gauge({
    name: 'tollgate_event_sink_backlog',
    help: 'Events a webhook sink of the event stream is behind (0 when it is up to date).',
    labelNames: ['sink'],
    registers: [registry],
    collect() {
      for (const state of gateway.stream?.states() ?? []) this.set({ sink: state.name }, state.backlog);
    },
  });
  new Gauge({
    name: 'tollgate_event_sink_deliveries',
    help: 'Events delivered to a sink by this process, failed attempts, and events skipped over max_backlog.',
    labelNames: ['sink', 'outcome'],
    registers: [registry],
    collect() {
      for (const s of gateway.stream?.states() ?? []) {
        this.set({ sink: s.name, outcome: 'delivered' }, s.delivered);
        this.set({ sink: s.name, outcome: 'failed' }, s.failures);
        this.set({ sink: s.name, outcome: 'skipped' }, s.skipped);
      }
    },
  });
  // The audit integrator's backlog (docs/audit.md, "One order, without one lock"): what waits for a place.
  const backlog = async () => (await gateway.audit?.backlog()) ?? { events: 0, oldestAt: null };
  new Gauge({
    name: 'tollgate_audit_backlog_events',
    help: 'Audit events committed and waiting for the integrator to place them.',
    registers: [registry],
    async collect() {
      this.set((await backlog()).events);
    },
  });
  new Gauge({
    name: 'tollgate_audit_backlog_age_seconds',
    help: 'How long the oldest audit event has waited for the integrator (0 when none waits).',
    registers: [registry],
    async collect() {
      const { oldestAt } = await backlog();
      this.set(oldestAt ? Math.max(0, (Date.now() - Date.parse(oldestAt)) / 1000) : 0);
    },
  });
  const created = new Counter({
    name: 'tollgate_requests_created_total',
    help: 'Requests filed by this process.',
    registers: [registry],
  });
  const finished = new Counter({
    name: 'tollgate_requests_finished_total',
    help: 'Requests that reached a final state in this process, by status.',
    labelNames: ['status'],
    registers: [registry],
  });
  const timeToDecision = new Histogram({
    name: 'tollgate_time_to_decision_seconds',
    help: 'From filing to the final state.',
    labelNames: ['status'],
    buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 86_400],
    registers: [registry],
  });
  const jobs = new Counter({
    name: 'tollgate_channel_jobs_total',
    help: 'Card deliveries, card updates, callbacks and expiries run by this process, by outcome.',
    labelNames: ['job', 'channel', 'outcome'],
    registers: [registry],
  });
  const stopObserving = gateway.observe((request, kind) => {
    if (kind === 'created') created.inc();
    else if (request.status !== 'pending' && request.respondedAt) {
      finished.inc({ status: request.status });
      timeToDecision.observe(
        { status: request.status },
        (request.respondedAt.getTime() - request.createdAt.getTime()) / 1000,
      );
    }
  });
  const rulings = new Counter({
    name: 'tollgate_policy_decisions_total',
    help: 'Requests filed by this process, by the policy rule that matched and what it decided (allow, deny, ask, or grant when a standing grant approved it).',
    labelNames: ['rule', 'decision'],
    registers: [registry],
  });
  const stopRulings =
    gateway.policy?.onRuling((r) => rulings.inc({ rule: r.rule, decision: r.decision })) ?? (() => undefined);
  const stopJobs = gateway.onJobOutcome((o) =>
    jobs.inc({ job: o.job, channel: o.channel ?? '', outcome: o.ok ? 'ok' : 'failed' }),
  );
  return {
    registry,
    close() {
      stopObserving();
      stopRulings();
      stopJobs();
    },
  };
}
