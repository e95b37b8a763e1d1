/** docs/policy.md stays true: its example file loads as `serve` loads it, and its `policy test` output is what the CLI prints. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../../src/cli/policy.js';
import { loadConfig } from '../../../src/config.js';
import { matchPolicy } from '../../../src/policy/index.js';

const doc = readFileSync(new URL('../../../docs/policy.md', import.meta.url), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'tollgate-policy-doc-'));
const path = join(dir, 'tollgate.yaml');
writeFileSync(path, /```yaml\n([\s\S]*?)```/.exec(doc)![1]!);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('docs/policy.md', () => {
  it('the complete example loads through the same path as tollgate serve, and its rules do what the comments say', () => {
    const { policy } = loadConfig({ config: path }, {});
    expect(policy.rules.map((r) => r.name)).toEqual([
      'reads',
      'no-prod-shell-for-interns',
      'git-push',
      'big-payments',
      'staging-deploys',
    ]);
    const rule = (facts: Parameters<typeof matchPolicy>[1]) => matchPolicy(policy, facts).rule.name;
    expect(rule({ toolName: 'mcp__github__get_issue' })).toBe('reads');
    expect(
      rule({ toolName: 'Bash', agentId: 'intern-3', metadata: { env: 'prod' }, toolArgs: { command: 'ls' } }),
    ).toBe('no-prod-shell-for-interns');
    expect(rule({ toolName: 'Bash', toolArgs: { command: 'git push origin main' } })).toBe('git-push');
    expect(rule({ toolName: 'payments.send', toolArgs: { amount: 50001 } })).toBe('big-payments');
    expect(rule({ toolName: 'payments.send', toolArgs: {} })).toBe('default');
    expect(rule({ toolName: 'deploy', agentId: 'release-bot', toolArgs: { env: 'qa' } })).toBe('staging-deploys');
    expect(rule({ toolName: 'deploy', agentId: 'release-bot', toolArgs: { env: 'prod' } })).toBe('default');
  });

  it('prints the policy test output shown', async () => {
    const block = /```sh\n\$ tollgate policy test --config tollgate.yaml (.*)\n([\s\S]*?)```/.exec(doc)!;
    const argv = block[1]!.match(/'[^']*'|\S+/g)!.map((a) => a.replace(/^'|'$/g, ''));
    let text = '';
    await run(['test', '--config', path, ...argv], (t) => (text += t));
    expect(text).toBe(block[2]);
  });
});

describe('README.md', () => {
  it('the Policies example loads', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const example = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)]
      .map((m) => m[1]!)
      .find((y) => y.startsWith('policies:'))!;
    const file = join(dir, 'readme.yaml');
    writeFileSync(file, example);
    const { policy } = loadConfig({ config: file }, {});
    expect(matchPolicy(policy, { toolName: 'payments.send', toolArgs: { amount: 60000 } }).rule).toMatchObject({
      name: 'big-payments',
      required_approvals: 2,
    });
    expect(matchPolicy(policy, { toolName: 'deploy', toolArgs: { env: 'staging' } }).rule.name).toBe('staging-deploys');
  });
});
