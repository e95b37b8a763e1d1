/**
 * @module bench/micro/audit-integrate
 * The proof's own costs, apart from the hot path (issue 57), in process on a SQLite file:
 *
 * - `audit_integrate_cpu_ms`: the integrator's CPU per event placed (`audit/integrator.ts`: a `seq`, a chain hash and
 *   the row's update, in batches of 1,000), over events filed with the integrator stopped, then placed in one drain.
 * - `audit_receipt_cpu_ms`: a batch receipt's CPU per event it covers, amortized — one Ed25519 signature over the
 *   leaves of each transaction (`Witness.receipt`), divided by the events per receipt the filings gave (a create
 *   awaited alone: its `created` and `delivered` events; a group commit shares one receipt among more).
 *
 * Rounds, each round's figure, the median of the rounds. `tsx bench/micro/audit-integrate.ts [ROUNDS] [REQUESTS]`.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Integrator } from '../../src/audit/integrator.js';
import { Witness } from '../../src/audit/witness.js';
import { argsSha256 } from '../../src/requests/args-hash.js';
import { newConfirmationRequest } from '../../src/requests/new-request.js';
import { keyFromSetting } from '../../src/signing/keys.js';
import { openStores } from '../../src/stores/open-store.js';
import { median, round } from '../stats.js';

/** The figures of {@link auditCpu}: ms of CPU per event. */
export interface AuditFigures {
  integrate_cpu_ms: number;
  receipt_cpu_ms: number;
  events_per_receipt: number;
  rounds: number;
  events: number;
}

const cpuMs = (start: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

/** One round: `requests` creates on a fresh file, then one drain; CPU per event of the drain and of the receipts. */
async function round1(
  requests: number,
): Promise<{ integrate: number; receipt: number; perReceipt: number; events: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-audit-bench-'));
  const stores = await openStores(join(dir, 'bench.db'));
  try {
    const pem = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const witness = new Witness(await keyFromSetting(pem), 3600);
    stores.useWitness(witness);
    for (let i = 0; i < requests; i++) {
      const toolArgs = { service: 'api', build: i };
      const request = newConfirmationRequest(
        { toolName: 'bench.deploy', toolArgs },
        { timeoutS: 600, channels: [{ type: 'web' }], options: ['Approve', 'Deny'], onTimeout: 'deny' },
        [{ type: 'web' }],
        argsSha256('bench.deploy', toolArgs),
        new Date(),
      );
      await stores.store.create(request, [{ channel: 'web', target: '', sent: true }]);
    }
    const { events } = await stores.audit.pending();
    const receipts = (await stores.audit.receiptCount()) || 1;
    const start = process.cpuUsage();
    await new Integrator(stores.integration, witness).runOnce();
    const integrate = cpuMs(start) / events;
    // One receipt's signature, as `seal` makes it, over a transaction's leaves.
    const leaves = Array.from({ length: Math.round(events / receipts) }, (_, i) => i.toString(16).padStart(64, '0'));
    const signStart = process.cpuUsage();
    for (let i = 0; i < 500; i++) witness.receipt(witness.receiptId(), new Date().toISOString(), leaves);
    const perReceipt = events / receipts;
    return { integrate, receipt: cpuMs(signStart) / 500 / perReceipt, perReceipt, events };
  } finally {
    await stores.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The medians over `rounds` rounds of `requests` creates each. */
export async function auditCpu(rounds = 5, requests = 5000): Promise<AuditFigures> {
  const runs = [];
  for (let i = 0; i < rounds; i++) runs.push(await round1(requests));
  return {
    integrate_cpu_ms: round(median(runs.map((r) => r.integrate)), 5),
    receipt_cpu_ms: round(median(runs.map((r) => r.receipt)), 5),
    events_per_receipt: round(median(runs.map((r) => r.perReceipt)), 2),
    rounds,
    events: runs[0]?.events ?? 0,
  };
}

if (process.argv[1]?.endsWith('audit-integrate.ts')) {
  const [rounds, requests] = process.argv.slice(2).map(Number);
  process.stdout.write(`${JSON.stringify(await auditCpu(rounds || 5, requests || 5000))}\n`);
}
