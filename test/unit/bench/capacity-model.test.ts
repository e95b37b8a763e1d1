/**
 * The capacity model as the replicas scenario checks it on one machine (docs/performance.md, "Capacity"): the lower
 * of the replicas' one-thread bound and the machine's cores shared by every process that serves a create.
 */
import { describe, expect, it } from 'vitest';
import { modelErrorPct, predictCreates } from '../../../bench/capacity-model.js';

describe('predictCreates', () => {
  it('is bound by the cores when the whole create costs more than a replica thread can give', () => {
    // 2 cores / (0.11 + 0.109 + 0.001 + 0.05) ms = 7,407 /s, under one replica's 1,000 / 0.11 = 9,091 /s.
    const cost = { gateways: 0.11, database: 0.109, redis: 0.001, client: 0.05 };
    expect(predictCreates(1, cost, 2)).toEqual({ predicted_rps: 7407, bound_by: 'cores' });
  });

  it('is bound by the replicas when the database and client cost little beside them, and grows with them', () => {
    const cost = { gateways: 0.5, database: 0.05, redis: 0, client: 0.05 };
    expect(predictCreates(1, cost, 8)).toEqual({ predicted_rps: 2000, bound_by: 'replicas' });
    expect(predictCreates(2, cost, 8)).toEqual({ predicted_rps: 4000, bound_by: 'replicas' });
  });
});

describe('modelErrorPct', () => {
  it('is the distance from the measured figure, either side, in percent of it', () => {
    expect(modelErrorPct(7407, 6316)).toBe(17.3);
    expect(modelErrorPct(5000, 6250)).toBe(20);
  });

  it('has no value when nothing was measured', () => {
    expect(modelErrorPct(7407, 0)).toBeNull();
  });
});
