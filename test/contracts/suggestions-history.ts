/**
 * A history for the suggestion tests: an agent's shell calls and a deploy, each shape approved, denied, edited or left
 * to expire a known number of times, written through the store's own interface. Which shapes must be suggested, and
 * which must not, follows from the counts here (the suite's `min` is 10).
 */
import type { ConfirmationStore } from '../../src/requests/store.js';
import type { ConfirmationRequest } from '../../src/requests/types.js';
import { file } from './store-fixtures.js';

export const S_SINCE = new Date('2026-04-01T00:00:00.000Z');
export const S_UNTIL = new Date('2026-04-08T00:00:00.000Z');

interface Call {
  agent: string;
  tool: string;
  args: Record<string, unknown>;
  outcome: 'approve' | 'deny' | 'edit' | 'expire';
  person: string;
}

const times = (n: number, make: (i: number) => Call) => Array.from({ length: n }, (_, i) => make(i));
const people = ['alice', 'bob'];

/** The seeded calls. */
export function suggestionCalls(): Call[] {
  return [
    // `npm test`, always the same command: approved 12 times → a fixed-value rule.
    ...times(12, (i) => ({
      agent: 'ops',
      tool: 'Bash',
      args: { command: 'npm test', description: `run the tests, take ${i}` },
      outcome: 'approve',
      person: people[i % 2]!,
    })),
    // `git status …` approved 11 times, but `git push` denied once: "git" alone is never suggested, "git status" is.
    ...times(11, (i) => ({
      agent: 'ops',
      tool: 'Bash',
      args: { command: i % 2 ? 'git status' : `git  status --short ${i}`, description: i % 2 ? 'look' : 'check' },
      outcome: 'approve',
      person: 'alice',
    })),
    {
      agent: 'ops',
      tool: 'Bash',
      args: { command: 'git push --force origin main', description: 'ship it' },
      outcome: 'deny',
      person: 'bob',
    },
    // `ls …` approved 10 times but edited once: no suggestion.
    ...times(10, (i) => ({
      agent: 'ops',
      tool: 'Bash',
      args: { command: `ls -la dir${i}`, description: 'list' },
      outcome: 'approve',
      person: 'bob',
    })),
    {
      agent: 'ops',
      tool: 'Bash',
      args: { command: 'ls -la /etc', description: 'list' },
      outcome: 'edit',
      person: 'bob',
    },
    // A staging deploy approved 10 times, but one left to expire: no suggestion.
    ...times(10, () => ({
      agent: 'ci',
      tool: 'deploy',
      args: { env: 'staging' },
      outcome: 'approve',
      person: 'alice',
    })),
    { agent: 'ci', tool: 'deploy', args: { env: 'staging' }, outcome: 'expire', person: 'alice' },
    // `cat` approved 3 times: under the minimum.
    ...times(3, (i) => ({
      agent: 'ops',
      tool: 'Bash',
      args: { command: `cat notes${i}.txt`, description: 'read' },
      outcome: 'approve',
      person: 'alice',
    })),
  ];
}

/** Writes the calls a minute apart from the window's start, each decided 4 s after filing (no card: timed from filing). */
export async function seedSuggestionHistory(store: ConfirmationStore): Promise<ConfirmationRequest[]> {
  const rows: ConfirmationRequest[] = [];
  for (const [i, c] of suggestionCalls().entries()) {
    const createdAt = new Date(S_SINCE.getTime() + 3_600_000 + i * 60_000);
    const row = await file(store, { toolName: c.tool, agentId: c.agent, toolArgs: c.args, timeoutS: 600 }, createdAt);
    rows.push(row);
    const at = new Date(createdAt.getTime() + 4000);
    if (c.outcome === 'expire') await store.finish(row.id, 'expired', { actor: null, channel: null, detail: {}, at });
    else {
      const approvedArgs = c.outcome === 'edit' ? { ...c.args, command: 'ls' } : null;
      await store.decide(row.id, {
        decision: c.outcome === 'deny' ? 'deny' : 'approve',
        actor: `web:${c.person}`,
        person: c.person,
        via: 'web',
        reason: c.outcome === 'deny' ? 'no force pushes' : null,
        option: null,
        approvedArgs,
        at,
      });
    }
  }
  return rows;
}
