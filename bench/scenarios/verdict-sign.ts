/**
 * @module bench/scenarios/verdict-sign
 * `verdict_sign_cpu_ms` (issue 47): one verdict signature's CPU in process (`bench/micro/verdict-sign.ts`), measured in
 * the orchestrator while nothing else of the bench runs. Judged on its own (≤ 0.15 ms), not inside the decision's
 * budget; the decision's goal against the baseline adds it.
 */
import type { Scenario } from '../context.js';
import { verdictSignCpu } from '../micro/verdict-sign.js';

/** `verdict_sign_cpu_ms` and the spread of its rounds (`verdict_sign_rounds_ms`). */
export const verdictSignScenario: Scenario = {
  name: 'verdict_sign',
  modes: ['sqlite'],
  async run(ctx) {
    const figures = await verdictSignCpu(ctx.quick ? 5 : 25, 200);
    return {
      verdict_sign_cpu_ms: figures.median,
      verdict_sign_rounds_ms: {
        min: figures.min,
        max: figures.max,
        rounds: figures.rounds,
        signatures: figures.signatures,
      },
    };
  },
};
