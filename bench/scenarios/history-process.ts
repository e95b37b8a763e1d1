/**
 * @module bench/scenarios/history-process
 * `history.process_100k.decision_to_resume_ms.p99` (issue 35): a gateway process's own history. One gateway takes
 * 100,000 creates, each decided right after (32 at a time, not timed), then decision → resume is measured as in the
 * `decision_to_resume` scenario. The same measurement on the fresh process first (`fresh_…`) shows what the 100,000
 * cost the tail; the RSS after them shows what the process kept.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { freshGateway, type Scenario } from '../context.js';
import { BenchHttp } from '../http-client.js';
import { BENCH_TOKEN } from '../processes.js';
import { rssMb } from '../proc.js';
import type { ClientTask } from '../protocol.js';
import { round } from '../stats.js';
import { createWebRequest, measureDecisions } from './decision-resume.js';

/** `count` requests created and decided through the API, `concurrency` at a time. */
const churn: ClientTask = async (raw) => {
  const p = raw as unknown as { url: string; token: string; count: number; concurrency: number };
  const http = new BenchHttp(p.url, p.token, p.concurrency);
  let next = 0;
  const started = performance.now();
  try {
    await Promise.all(
      Array.from({ length: p.concurrency }, async () => {
        while (next < p.count) {
          const request = await createWebRequest(http, next++);
          await http.json(
            'POST',
            `/v1/requests/${request.id}/decision`,
            { decision: 'approve', approver: 'web:bench-approver', reason: 'bench' },
            200,
          );
        }
      }),
    );
    return { seconds: (performance.now() - started) / 1000 };
  } finally {
    http.close();
  }
};

/** The client tasks of this scenario. */
export const clientTasks: Record<string, ClientTask> = { churn };

/** Size of the SQLite file's WAL in MB (0 when there is none). */
function walMb(db: string): number {
  try {
    return round(statSync(`${db}-wal`).size / 1024 / 1024, 0);
  } catch {
    return 0;
  }
}

/** `history.process_100k.*`. */
export const historyProcessScenario: Scenario = {
  name: 'history_process',
  modes: ['sqlite', 'postgres'],
  async run(ctx) {
    const count = ctx.quick ? 10_000 : 100_000;
    const measured = ctx.quick ? 200 : 1000;
    const gateway = await freshGateway(ctx, 'history_process');
    try {
      const fresh = await measureDecisions(ctx, gateway, measured);
      const rssFresh = rssMb(gateway.pid);
      const { seconds } = await ctx.client.run<{ seconds: number }>('history-process', 'churn', {
        url: gateway.url,
        token: BENCH_TOKEN,
        count,
        concurrency: 32,
      });
      ctx.log(`history_process: ${count.toLocaleString('en-US')} creates and decisions in ${round(seconds, 1)} s`);
      const after = await measureDecisions(ctx, gateway, measured);
      return {
        history: {
          process_100k: {
            requests: count,
            churn_per_s: Math.round(count / seconds),
            decision_to_resume_ms: after.decision_to_resume_ms,
            fresh_decision_to_resume_ms: fresh.decision_to_resume_ms,
            rss_mb_fresh: round(rssFresh, 0),
            rss_mb_after: round(rssMb(gateway.pid), 0),
            // SQLite: how far the WAL grew under the churn (the background checkpointer's PASSIVE checkpoints run beside it).
            ...(ctx.pg ? {} : { wal_mb_after: walMb(join(ctx.tmp, 'history_process.db')) }),
          },
        },
      };
    } finally {
      await gateway.stop();
    }
  },
};
