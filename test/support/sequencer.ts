/**
 * The order `npm test` starts its files in. All of them share one pool (vitest.config.ts), so the files that mostly
 * wait on other processes start first and the CPU-bound files fill the cores around them as they wait; the longest of
 * the rest start next, so none of them is left running alone at the end. vitest orders by past durations only when it
 * has its cache, which a fresh clone (CI) has not: there every file started in the order it was found, and the
 * longest ones sometimes last.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Files (path prefixes from the repository's root) that take longest after the waiting ones, in that order. */
export const LONG_FIRST = [
  'test/agents/',
  'test/contracts/agent-adapters',
  'test/integration/mcp/',
  'test/integration/readme',
  'test/browser/',
];

/** The rank of a file: waiting files first, then the long ones in {@link LONG_FIRST}'s order, then the rest. */
function rank(spec: TestSpecification): number {
  if (spec.project.name === 'waiting') return 0;
  const path = spec.moduleId.slice(spec.project.config.root.length + 1);
  const long = LONG_FIRST.findIndex((prefix) => path.startsWith(prefix));
  return long === -1 ? LONG_FIRST.length + 1 : long + 1;
}

/** vitest's own order (its cache's durations when it has them), with the waiting and the long files moved first. */
export default class WaitingFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    // Array.prototype.sort is stable: within a rank, vitest's order stands.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
