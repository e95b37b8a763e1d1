/**
 * @module bench/scenarios/audit
 * The proof's own costs, judged apart from the hot path (issue 57):
 *
 * - SQLite mode only (in process, whatever the mode: `bench/micro/audit-integrate.ts`): `audit_integrate_cpu_ms` per
 *   event placed (goal ≤ 0.02) and `audit_receipt_cpu_ms`, a receipt's signature per event it covers, reported like
 *   `verdict_sign_cpu_ms`.
 * - SQLite and PostgreSQL: `audit.backlog_*`, how long events wait for their place under 1,000 creates a second
 *   (`audit-backlog.ts`).
 */
import type { Scenario } from '../context.js';
import { auditCpu } from '../micro/audit-integrate.js';
import { auditBacklogFigures } from './audit-backlog.js';

/** `audit_integrate_cpu_ms`, `audit_receipt_cpu_ms` and what they were measured over; `audit.backlog_*`. */
export const auditScenario: Scenario = {
  name: 'audit',
  modes: ['sqlite', 'postgres'],
  async run(ctx) {
    const micro =
      ctx.mode === 'sqlite'
        ? await auditCpu(ctx.quick ? 1 : 5, ctx.quick ? 500 : 5000).then((figures) => ({
            audit_integrate_cpu_ms: figures.integrate_cpu_ms,
            audit_receipt_cpu_ms: figures.receipt_cpu_ms,
            audit_cpu: {
              events_per_receipt: figures.events_per_receipt,
              rounds: figures.rounds,
              events: figures.events,
            },
          }))
        : {};
    return { ...micro, ...(await auditBacklogFigures(ctx)) };
  },
};
