/**
 * @module bench/capacity-model
 * docs/performance.md's capacity model ("Capacity") in the form one machine can check: creates/s predicted from the
 * CPU each create cost in the same run, set against the creates/s measured.
 *
 * The doc's model puts each replica and PostgreSQL on hosts of their own: calls/s(N) ≈ min(N × 1,000 / g,
 * 4,000 / d). On the bench's machine every process shares the same cores, so the database's bound becomes the
 * machine's: all of a create's CPU (the gateways' g, PostgreSQL's d, Redis's r and the load client's c, each in ms per
 * create) on `cores` cores. The replicas' bound stays: a replica's JavaScript runs on one thread.
 *
 * > creates/s(N) ≈ min(N × 1,000 / g, cores × 1,000 / (g + d + r + c))
 *
 * Left out, as in the doc: waits that burn no CPU (a commit's flush, a lock) and what else runs on the machine. Both
 * show as measured creates/s below the prediction: the error is what the check reads.
 */
import { round } from './stats.js';

/** CPU per create, in ms, of everything on the machine that serves it. */
export interface CreateCost {
  /** Every replica together (every thread of each process). */
  gateways: number;
  database: number;
  redis: number;
  client: number;
}

/** The model's prediction for one shape, and which bound set it. */
export interface CapacityPrediction {
  predicted_rps: number;
  bound_by: 'replicas' | 'cores';
}

/** creates/s that `replicas` replicas should reach on `cores` cores at `cost` (see the module comment). */
export function predictCreates(replicas: number, cost: CreateCost, cores: number): CapacityPrediction {
  const byReplicas = (replicas * 1000) / cost.gateways;
  const byCores = (cores * 1000) / (cost.gateways + cost.database + cost.redis + cost.client);
  return byReplicas <= byCores
    ? { predicted_rps: round(byReplicas, 0), bound_by: 'replicas' }
    : { predicted_rps: round(byCores, 0), bound_by: 'cores' };
}

/** |predicted − measured| / measured, in percent (one decimal); null when nothing was measured. */
export function modelErrorPct(predicted: number, measured: number): number | null {
  return measured > 0 && Number.isFinite(predicted)
    ? round((Math.abs(predicted - measured) / measured) * 100, 1)
    : null;
}
