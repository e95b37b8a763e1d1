/**
 * @module bench/micro/verdict-sign
 * `verdict_sign_cpu_ms` (issue 47): the CPU of one verdict signature in process, as the gateway signs once per settled
 * request — `VerdictSigner.sign` of `src/signing/verdict.ts` (claims, compact JWS, Ed25519), each on a request it
 * has not signed before, so the cache never answers. Rounds of signatures, each round's CPU per signature, the median
 * of the rounds: one round caught by a collector or a neighbour on the machine does not move it.
 *
 * `tsx bench/micro/verdict-sign.ts [ROUNDS] [PER_ROUND]` prints the figures.
 */
import { randomBytes } from 'node:crypto';
import { argsSha256 } from '../../src/requests/args-hash.js';
import { newConfirmationRequest } from '../../src/requests/new-request.js';
import type { ConfirmationRequest } from '../../src/requests/types.js';
import { keyFromSeed, staticSigningKeys } from '../../src/signing/keys.js';
import { VerdictSigner } from '../../src/signing/verdict.js';
import { median, round } from '../stats.js';

/** What {@link verdictSignCpu} measured: ms of CPU per signature, the median round and the spread of the rounds. */
export interface SignFigures {
  median: number;
  min: number;
  max: number;
  rounds: number;
  signatures: number;
}

/** `count` approved requests with distinct ids, as a decision leaves them (one approver, no quorum). */
function approvedRequests(count: number): ConfirmationRequest[] {
  const toolArgs = { path: '/srv/app/config.yaml', bytes: 1024, overwrite: true };
  const base = newConfirmationRequest(
    { toolName: 'bench.write_file', toolArgs, prompt: 'bench' },
    { timeoutS: 300, channels: [{ type: 'web' }], options: ['Approve', 'Deny'], onTimeout: 'deny' },
    [{ type: 'web' }],
    argsSha256('bench.write_file', toolArgs),
    new Date(),
  );
  const at = new Date();
  return Array.from({ length: count }, (_, i) => ({
    ...base,
    id: `${base.id.slice(0, -8)}${i.toString(16).padStart(8, '0')}`,
    status: 'approved',
    allowed: true,
    respondedAt: at,
    updatedAt: at,
    respondedBy: 'web:bench-approver',
    respondedByPerson: 'bench-approver',
  }));
}

/** Signs `rounds × perRound` fresh verdicts (after a warm-up) and returns the CPU per signature. */
export async function verdictSignCpu(rounds = 25, perRound = 200): Promise<SignFigures> {
  const key = await keyFromSeed(randomBytes(32).toString('base64url'));
  const signer = new VerdictSigner(staticSigningKeys(key), { cacheSize: rounds * perRound + 1000 });
  const requests = approvedRequests(rounds * perRound + 500);
  // Warm-up: the first signatures compile the path and load the key into OpenSSL's structures.
  for (const r of requests.slice(0, 500)) await signer.sign(r);
  const perRoundMs: number[] = [];
  for (let k = 0; k < rounds; k++) {
    const batch = requests.slice(500 + k * perRound, 500 + (k + 1) * perRound);
    const start = process.cpuUsage();
    for (const r of batch) await signer.sign(r);
    const used = process.cpuUsage(start);
    perRoundMs.push((used.user + used.system) / 1000 / perRound);
  }
  return {
    median: round(median(perRoundMs), 4),
    min: round(Math.min(...perRoundMs), 4),
    max: round(Math.max(...perRoundMs), 4),
    rounds,
    signatures: rounds * perRound,
  };
}

if (process.argv[1]?.endsWith('verdict-sign.ts')) {
  const figures = await verdictSignCpu(Number(process.argv[2] ?? 25), Number(process.argv[3] ?? 200));
  process.stdout.write(
    `verdict_sign_cpu_ms: ${figures.median} ms (rounds ${figures.min}–${figures.max}, ${figures.signatures} signatures)\n`,
  );
}
