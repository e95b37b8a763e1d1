/**
 * @module bench/scenarios/replicas-load
 * The load client's side of the replicas scenario (`replicas.ts`), with no balancer in front: the client itself
 * splits the load. `creates`: the `create_rps` load (64 concurrent clients) with request n sent to replica
 * n % (number of replicas), the same code for one replica and for two, so their figures compare like with like.
 * `decisions`: every long-poll parked on replica A, the decisions alternating between A (`same`) and B (`cross`: the
 * wake-up crosses replicas).
 */
import { BenchHttp, closedLoop, pool } from '../http-client.js';
import type { ClientTask } from '../protocol.js';
import { round, summarize, type Percentiles } from '../stats.js';
import { CREATE_BODY, CREATE_CONCURRENCY } from './create-rps.js';
import { createWebRequest, type ApiRequest } from './decision-resume.js';

/** Parameters of the `creates` task. */
export interface CreatesParams {
  urls: string[];
  token: string;
  warmupMs: number;
  durationMs: number;
}

/** What the `creates` task measured (the warm-up left out). */
export interface CreatesResult {
  create_rps: number;
  created_per_replica: number[];
  by_status: Record<string, number>;
}

/** Parameters of the `decisions` task. */
export interface DecisionsParams {
  urls: [string, string];
  token: string;
  count: number;
  batch: number;
}

/** Decision → resume, the decision sent to the replica holding the long-poll (`same`) or to the other (`cross`). */
export interface DecisionsResult {
  same: Percentiles;
  cross: Percentiles;
}

const creates: ClientTask = async (raw, ask) => {
  const p = raw as unknown as CreatesParams;
  const https = p.urls.map((url) => new BenchHttp(url, p.token, CREATE_CONCURRENCY));
  try {
    const template = JSON.stringify(CREATE_BODY);
    let seq = 0;
    const perReplica = p.urls.map(() => 0);
    const once = async () => {
      const n = seq++;
      const replica = n % https.length;
      const res = await https[replica]!.send('POST', '/v1/requests', template.replaceAll('{i}', String(n)));
      if (res.status === 201) perReplica[replica]!++;
      return res.status;
    };
    await closedLoop(CREATE_CONCURRENCY, p.warmupMs, once);
    perReplica.fill(0);
    await ask('mark', 'start');
    const run = await closedLoop(CREATE_CONCURRENCY, p.durationMs, once);
    await ask('mark', 'end');
    return {
      create_rps: round((run.byStatus['201'] ?? 0) / (run.elapsedMs / 1000), 0),
      created_per_replica: perReplica,
      by_status: run.byStatus,
    } satisfies CreatesResult;
  } finally {
    for (const http of https) http.close();
  }
};

const decisions: ClientTask = async (raw, ask) => {
  const p = raw as unknown as DecisionsParams;
  const https = p.urls.map((url) => new BenchHttp(url, p.token, 16)) as [BenchHttp, BenchHttp];
  const polls = new BenchHttp(p.urls[0], p.token, p.batch + 8);
  const same: number[] = [];
  const cross: number[] = [];
  try {
    for (let done = 0; done < p.count; done += p.batch) {
      const size = Math.min(p.batch, p.count - done);
      const requests = await pool(size, 16, (i) => createWebRequest(https[(done + i) % 2]!, done + i));
      const waits = requests.map((r) => polls.send('GET', `/v1/requests/${r.id}?wait=50`));
      await ask('idle');
      await ask('mark', 'start');
      for (let i = 0; i < size; i++) {
        const onB = i % 2 === 1;
        const started = performance.now();
        const answer = await https[onB ? 1 : 0].send('POST', `/v1/requests/${requests[i]!.id}/decision`, {
          decision: 'approve',
          approver: 'web:bench-approver',
          reason: 'bench',
        });
        if (answer.status !== 200)
          throw new Error(`decision on ${requests[i]!.id} -> ${answer.status}: ${answer.body.slice(0, 300)}`);
        const resumed = await waits[i]!;
        const body = JSON.parse(resumed.body) as ApiRequest;
        if (body.status === 'pending')
          throw new Error(
            `long-poll on ${body.id} (replica A) answered pending after a decision on replica ${onB ? 'B' : 'A'}`,
          );
        (onB ? cross : same).push(resumed.doneAt - started);
      }
      await ask('mark', 'end');
    }
    return { same: summarize(same), cross: summarize(cross) } satisfies DecisionsResult;
  } finally {
    for (const http of https) http.close();
    polls.close();
  }
};

/** The client tasks of the replicas scenario. */
export const clientTasks: Record<string, ClientTask> = { creates, decisions };
