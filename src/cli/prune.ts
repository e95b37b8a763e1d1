/**
 * @module cli/prune
 * `tollgate prune --before DATE [--db …] [--dry-run] [--batch N] [--json]`: deletes requests decided before DATE, with
 * their events, cards and grants, in batches, and keeps the audit chain verifiable with a signed checkpoint
 * (`history/prune.ts`, docs/audit.md). Safe beside a running gateway: each batch is a short transaction.
 */
import { describeKeyPlace, openSigningKeys } from '../signing/keys.js';
import { anchorSignerOf, verdictTtlFromEnv } from '../signing/verdict.js';
import { Integrator } from '../audit/integrator.js';
import { Witness } from '../audit/witness.js';
import { prune, PruneRefusedError, type PruneReport } from '../history/prune.js';
import { pruneStoreOf } from '../stores/prune-store-of.js';
import { openStores } from '../stores/open-store.js';
import { existingDatabase } from './audit.js';
import { flag, parseArgs, UsageError } from './args.js';

/** `--before`: a date (`2026-01-31`, midnight UTC) or an ISO time, not in the future. */
export function parseBefore(text: string | undefined, now = new Date()): Date {
  if (text === undefined)
    throw new UsageError(
      '--before DATE is required: requests decided before it are deleted (e.g. --before 2026-01-01)',
    );
  const before = /^\d{4}-\d{2}-\d{2}$/.test(text) ? new Date(`${text}T00:00:00.000Z`) : new Date(text);
  if (Number.isNaN(before.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(text))
    throw new UsageError(`--before: not a date: ${text} (use 2026-01-31 or an ISO time such as 2026-01-31T12:00:00Z)`);
  if (before.getTime() > now.getTime())
    throw new UsageError(`--before: ${text} is in the future; prune deletes history, give a date in the past`);
  return before;
}

/** The report in words: what went, where the chain starts now, and what stopped the prune. */
export function describePrune(report: PruneReport, before: Date): string {
  const verb = report.dryRun ? 'would prune' : 'pruned';
  const lines = [`${verb} ${report.requests} requests, ${report.events} events decided before ${before.toISOString()}`];
  if (report.checkpoint) {
    lines.push(
      report.dryRun
        ? `the audit chain would start after seq ${report.checkpoint.eventId}; a signed checkpoint would keep it verifiable`
        : `the audit chain now starts at seq ${report.chainStartsAt ?? report.checkpoint.eventId + 1}, checkpoint signed (seq ${report.checkpoint.eventId}, hash ${report.checkpoint.hash}); \`tollgate audit verify\` starts from it`,
    );
  } else lines.push('nothing to prune: the audit chain is unchanged');
  if (report.stoppedAt)
    lines.push(
      `stopped at request ${report.stoppedAt.requestId} (seq ${report.stoppedAt.eventId}): ${report.stoppedAt.reason}; older requests after it stay until it can go`,
    );
  return lines.join('\n');
}

const stderrLine = (message: string) => void process.stderr.write(`${message}\n`);

/** Runs `tollgate prune`. */
export async function run(argv: string[]): Promise<number> {
  const args = parseArgs(argv, { values: ['before', 'db', 'batch'], booleans: ['dry-run', 'json'] });
  const before = parseBefore(flag(args, 'before'));
  const batchText = flag(args, 'batch');
  const batchSize = batchText === undefined ? 1000 : Number(batchText);
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new UsageError(`--batch: expected a whole number of requests per transaction, got ${batchText}`);
  const dryRun = flag(args, 'dry-run') === 'true';
  // Migrations applied (as `serve` does at start): the checkpoint's table may be newer than the database.
  const stores = await openStores(existingDatabase(flag(args, 'db'), process.env.TOLLGATE_DB), { env: process.env });
  try {
    // The key is read before the first transaction, so signing inside one never waits on the database.
    // The key is read before the first transaction, so signing inside one never waits on the database. A dry run
    // signs nothing and makes no key file.
    const keys = await openSigningKeys(process.env, stores, { readOnly: dryRun, log: (_, line) => stderrLine(line) });
    let sign: (claims: { event_id: number; hash: string; at: string }) => Promise<string> = () =>
      Promise.reject(new Error('a dry run signs nothing'));
    if (!dryRun) {
      const { kid } = await keys.ready();
      // Which key signs the checkpoint, and where it lives: on stderr, so `--json` stays one object.
      stderrLine(`the checkpoint is signed with the ${describeKeyPlace(keys, kid)}`);
      const signer = await anchorSignerOf(keys);
      sign = async (claims) => signer(claims);
      // Holding the key, prune places what is pending first (closing a legacy part on a database no gateway has
      // served since the upgrade), as a gateway's integrator would: only placed events can be pruned.
      await new Integrator(
        stores.integration,
        new Witness(await keys.ready(), verdictTtlFromEnv(process.env)),
      ).runOnce();
    }
    const report = await prune(await pruneStoreOf(stores), { before, sign, batchSize, dryRun });
    process.stdout.write(
      flag(args, 'json') === 'true'
        ? `${JSON.stringify({ ...report, before: before.toISOString() })}\n`
        : `${describePrune(report, before)}\n`,
    );
    return 0;
  } catch (error) {
    if (error instanceof PruneRefusedError) {
      process.stderr.write(`tollgate prune: refused: ${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await stores.close();
  }
}
