/**
 * Suggested rules for awkward names and values: a tool or agent whose name holds glob characters is matched exactly
 * (not as a glob), a request without an agent only by a rule for no agent, values with quotes, backslashes and regex
 * characters exactly; and the shorter of two shapes wins.
 */
import { describe, expect, it } from 'vitest';
import { pickCandidates, suggestionOf } from '../../../src/insights/suggestions.js';
import type { SuggestionCandidate } from '../../../src/insights/types.js';
import { matchPolicy } from '../../../src/policy/index.js';

const base: SuggestionCandidate = {
  agentId: 'ops',
  toolName: 'Bash',
  key: 'command',
  words: 1,
  prefix: 'npm',
  value: 'npm test',
  approvals: 12,
  decisionMs: 48_000,
  approvers: ['alice'],
  sampleRequestId: 'r1',
};
const covers = (
  c: SuggestionCandidate,
  facts: { toolName: string; toolArgs: Record<string, unknown>; agentId?: string },
) => {
  const s = suggestionOf(c, [])!;
  return matchPolicy(s.policy, facts).rule.name !== 'default';
};

describe('suggested rules', () => {
  it('match a tool and an agent named with glob characters exactly', () => {
    const c = { ...base, toolName: 'mcp__fs__read*', agentId: 'bot?' };
    expect(covers(c, { toolName: 'mcp__fs__read*', agentId: 'bot?', toolArgs: { command: 'npm test' } })).toBe(true);
    expect(covers(c, { toolName: 'mcp__fs__read_all', agentId: 'bot?', toolArgs: { command: 'npm test' } })).toBe(
      false,
    );
    expect(covers(c, { toolName: 'mcp__fs__read*', agentId: 'bot1', toolArgs: { command: 'npm test' } })).toBe(false);
  });

  it('match calls without an agent only when the shape had none', () => {
    const c = { ...base, agentId: null };
    expect(covers(c, { toolName: 'Bash', toolArgs: { command: 'npm test' } })).toBe(true);
    expect(covers(c, { toolName: 'Bash', agentId: 'ops', toolArgs: { command: 'npm test' } })).toBe(false);
  });

  it('match values with quotes, backslashes and regex characters exactly, and prefixes of them literally', () => {
    const value = 'echo "a\\b" $(x) .* [y]';
    expect(covers({ ...base, value }, { toolName: 'Bash', agentId: 'ops', toolArgs: { command: value } })).toBe(true);
    expect(covers({ ...base, value }, { toolName: 'Bash', agentId: 'ops', toolArgs: { command: `${value} ` } })).toBe(
      false,
    );
    const prefix = { ...base, value: null, words: 2 as const, prefix: 'make .*' };
    expect(covers(prefix, { toolName: 'Bash', agentId: 'ops', toolArgs: { command: 'make .* -j4' } })).toBe(true);
    expect(covers(prefix, { toolName: 'Bash', agentId: 'ops', toolArgs: { command: 'make all' } })).toBe(false);
  });

  it('drop a two-word shape whose first word qualifies alone, and keep one argument per agent and tool', () => {
    const git = { ...base, value: null, prefix: 'git' };
    const gitStatus = { ...git, words: 2 as const, prefix: 'git status' };
    const described = { ...base, key: 'description', value: null, prefix: 'run', approvals: 5 };
    expect(pickCandidates([gitStatus, git, described]).map((c) => [c.key, c.prefix])).toEqual([['command', 'git']]);
  });
});
