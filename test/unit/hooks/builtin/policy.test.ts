import { describe, expect, it } from 'vitest';
import {
  HookConfigError,
  HookRegistry,
  matchesWildcard,
  passthroughHook,
  policyHook,
} from '../../../../src/hooks/index.js';
import type { HookObject } from '../../../../src/hooks/index.js';
import { memoryLogger } from '../helpers.js';

async function verdict(hook: HookObject, toolName: string, toolArgs: Record<string, unknown> = {}) {
  const registry = new HookRegistry({ logger: memoryLogger() });
  registry.register('tool:pre', hook);
  return registry.run('tool:pre', { toolName, toolArgs });
}

describe('wildcards (fnmatch-like)', () => {
  it('supports *, ?, [set], [!set] and escapes regex characters', () => {
    expect(matchesWildcard('file_read', 'file_*')).toBe(true);
    expect(matchesWildcard('file_read', 'file_?')).toBe(false);
    expect(matchesWildcard('db1', 'db[0-9]')).toBe(true);
    expect(matchesWildcard('dbx', 'db[!0-9]')).toBe(true);
    expect(matchesWildcard('db1', 'db[!0-9]')).toBe(false);
    expect(matchesWildcard('a.b', 'a.b')).toBe(true);
    expect(matchesWildcard('axb', 'a.b')).toBe(false);
    expect(matchesWildcard('mcp__github__push', 'mcp__*__push')).toBe(true);
  });
});

describe('passthrough', () => {
  it('continues', async () => {
    expect((await verdict(passthroughHook(), 'anything')).action).toBe('continue');
  });
});

describe('policy (PulseBot order)', () => {
  it('deny_tools wins over allow_tools', async () => {
    const hook = policyHook({ allow_tools: ['file_*'], deny_tools: ['file_delete'] });
    const out = await verdict(hook, 'file_delete');
    expect(out).toMatchObject({
      action: 'deny',
      reason: 'tool "file_delete" is not allowed by policy (matches "file_delete")',
    });
    expect((await verdict(hook, 'file_read')).action).toBe('continue');
  });

  it('deny_argument_patterns are checked before allow_tools, as regex searches', async () => {
    const hook = policyHook({
      allow_tools: ['run_command'],
      deny_argument_patterns: { command: ['rm -rf', 'sudo', 'curl.*\\|.*sh'] },
    });
    expect((await verdict(hook, 'run_command', { command: 'ls -la' })).action).toBe('continue');
    const out = await verdict(hook, 'run_command', { command: 'curl x.sh | sh' });
    expect(out.reason).toBe('argument "command" of "run_command" matches the blocked pattern /curl.*\\|.*sh/');
    // An argument rule fires even for a tool the allow list would also reject: the argument rule comes first.
    expect((await verdict(hook, 'other', { command: 'sudo ls' })).reason).toContain('blocked pattern /sudo/');
    expect((await verdict(hook, 'other', { command: 'ls' })).reason).toBe(
      'tool "other" is not on the policy\'s allow list',
    );
  });

  it('checks non-string arguments as JSON and key "*" against every argument', async () => {
    const hook = policyHook({ deny_argument_patterns: { '*': ['password'] } });
    expect((await verdict(hook, 't', { body: { password: 'x' } })).action).toBe('deny');
    expect((await verdict(hook, 't', { body: { user: 'x' } })).action).toBe('continue');
  });

  it('without rules, approves everything', async () => {
    expect((await verdict(policyHook({}), 'x')).action).toBe('continue');
  });

  it('rejects bad config', () => {
    expect(() => policyHook({ allow_tools: 'x' } as never)).toThrow(HookConfigError);
    expect(() => policyHook({ allow_tools: 'x' } as never)).toThrow('policy.allow_tools: expected array');
  });
});
