/**
 * @module bench/scenarios/audit-backlog
 * `audit.backlog_*` (issue 57): whether the audit integrator keeps every event within the stated merge delay
 * (`TOLLGATE_AUDIT_MAX_DELAY`, default 2 s) under a steady load. Requests are filed at 1,000 a second, open loop
 * (`pacedPosts`, as `events.sustained_*`: the load does not slow down when the gateway does), for 20 s after 2 s of
 * warm-up (5 s after 1 s with `--quick`), on a fresh gateway. Every 100 ms the orchestrator reads the gateway's
 * `/metrics`:
 *
 * - `audit.backlog_age_ms` — `tollgate_audit_backlog_age_seconds`: now less the `at` of the oldest event committed and
 *   not yet placed, computed when /metrics is read; `at` is kept to the millisecond on both stores, so the gauge is
 *   as fine as the scrape (no need to read the oldest pending event from the database instead). p50 / p99 / max of
 *   the samples: the age of the backlog at a random moment. Goal: p99 ≤ the merge delay.
 * - `audit.backlog_events_max` — `tollgate_audit_backlog_events` at its peak.
 * - `audit.backlog_creates_per_s` — what the load reached (below 1,000 the figures describe a lighter load);
 *   `audit.backlog_samples`: how many scrapes were read.
 */
import { freshGateway, type BenchContext } from '../context.js';
import type { ClientTask } from '../protocol.js';
import { BENCH_TOKEN } from '../processes.js';
import { round, sleep, summarize } from '../stats.js';
import { CREATE_BODY } from './create-rps.js';
import { pacedPosts, type PacedParams, type PacedResult } from './events-sustained.js';

const SAMPLE_EVERY_MS = 100;

const paced: ClientTask = async (raw, ask) => pacedPosts(raw as unknown as PacedParams, ask);

/** The client tasks of this scenario. */
export const clientTasks: Record<string, ClientTask> = { paced };

/** A gauge's value on a /metrics page (NaN when absent). */
function gauge(text: string, name: string): number {
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
}

/** The `audit.backlog_*` figures, on a fresh gateway in this mode. */
export async function auditBacklogFigures(ctx: BenchContext): Promise<Record<string, unknown>> {
  const gateway = await freshGateway(ctx, 'audit-backlog');
  const ages: number[] = [];
  let eventsMax = 0;
  let stopped = false;
  let sampling: Promise<void> | null = null;
  let failed: unknown = null;
  const sample = async () => {
    // Paced by the clock, not by sleeping 100 ms after each read, so a read's own time does not thin the samples out;
    // after a read slower than the interval the next follows at once, without a burst to catch up.
    for (let due = performance.now(); !stopped; due = Math.max(due + SAMPLE_EVERY_MS, performance.now())) {
      const text = await (await fetch(`${gateway.url}/metrics`)).text();
      const age = gauge(text, 'tollgate_audit_backlog_age_seconds');
      if (!Number.isFinite(age)) throw new Error('/metrics has no tollgate_audit_backlog_age_seconds');
      ages.push(age * 1000);
      eventsMax = Math.max(eventsMax, gauge(text, 'tollgate_audit_backlog_events') || 0);
      const wait = due + SAMPLE_EVERY_MS - performance.now();
      if (wait > 0) await sleep(wait);
    }
  };
  try {
    const load = await ctx.client.run<PacedResult>(
      'audit-backlog',
      'paced',
      {
        url: gateway.url,
        token: BENCH_TOKEN,
        rate: 1000,
        warmupMs: ctx.quick ? 1000 : 2000,
        durationMs: ctx.quick ? 5000 : 20_000,
        maxInFlight: 256,
        body: CREATE_BODY,
        path: '/v1/requests',
      } satisfies PacedParams,
      {
        mark: (edge) => {
          // Held until the load ends: a failed read must not reject with nobody listening.
          if (edge === 'start')
            sampling = sample().catch((error: unknown) => {
              failed = error;
              stopped = true;
            });
          else stopped = true;
          return null;
        },
      },
    );
    await sampling;
    if (failed) throw failed instanceof Error ? failed : new Error(String(failed));
    const errors = Object.entries(load.by_status).filter(([status]) => status !== '201');
    if (errors.length || load.missed)
      ctx.log(
        `audit backlog: non-201 answers ${JSON.stringify(Object.fromEntries(errors))}, ${load.missed} requests not sent (all 256 in flight)`,
      );
    const age = summarize(ages);
    return {
      audit: {
        backlog_age_ms: { p50: round(age.p50, 0), p99: round(age.p99, 0), max: round(age.max, 0), n: age.n },
        backlog_events_max: eventsMax,
        backlog_creates_per_s: load.per_s,
        backlog_samples: ages.length,
      },
    };
  } finally {
    stopped = true;
    await gateway.stop(5000);
  }
}
