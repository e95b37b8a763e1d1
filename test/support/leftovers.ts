/**
 * What a test file creates outside its process, removed when the file ends even if a hook failed or timed out
 * half-way: a PostgreSQL database whose `CREATE DATABASE` was still running when `beforeAll` timed out (its suite's
 * `afterAll` ran with the handle unset, so nothing dropped it), the Redis keys of a queue prefix the child gateways
 * wrote. Whatever creates such a thing registers its removal here as it starts creating it, and unregisters once it
 * removed it itself; `remove-leftovers.ts` (a vitest setup file) runs what is left after each file's own hooks.
 *
 * The registry lives on `globalThis`: the setup file and the test file may hold different instances of this module.
 */

type Removal = () => Promise<void>;

const KEY = Symbol.for('tollgate.test.leftovers');

function registry(): Set<Removal> {
  const global = globalThis as { [KEY]?: Set<Removal> };
  return (global[KEY] ??= new Set());
}

/** Registers `removal` to run when the test file ends; the returned function unregisters it (once done by hand). */
export function removeAtEnd(removal: Removal): () => void {
  const removals = registry();
  removals.add(removal);
  return () => void removals.delete(removal);
}

/** Runs every registered removal (all of them, even when one fails), then throws the failures together. */
export async function removeLeftovers(): Promise<void> {
  const removals = [...registry()];
  registry().clear();
  const failed = (await Promise.allSettled(removals.map((removal) => removal()))).filter(
    (r): r is PromiseRejectedResult => r.status === 'rejected',
  );
  if (failed.length)
    throw new AggregateError(
      failed.map((f) => f.reason as unknown),
      'test leftovers not removed',
    );
}
