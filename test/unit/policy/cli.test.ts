import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/cli/args.js';
import { run } from '../../../src/cli/policy.js';

const dir = mkdtempSync(join(tmpdir(), 'tollgate-policy-cli-'));
const config = join(dir, 'tollgate.yaml');
writeFileSync(
  config,
  `policies:
  - name: reads
    match: { tool: "read_*" }
    decision: allow
  - name: big-payments
    match: { tool: "payments.*", when: "args.amount > 50000" }
    approvers: ["slack:U0CFO", "web:controller"]
    required_approvals: 2
    timeout_s: 3600
    grants:
      - { label: "Approve for 1 hour", ttl_s: 3600, scope: [tool_name, agent_id] }
`,
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function explain(...argv: string[]): Promise<string> {
  let text = '';
  expect(await run(['test', '--config', config, ...argv], (t) => (text += t))).toBe(0);
  return text;
}

describe('tollgate policy test', () => {
  it('names the matching rule, why the earlier ones did not match, and how it is asked', async () => {
    const text = await explain('--tool', 'payments.send', '--args', '{"amount": 60000}', '--agent', 'billing');
    expect(text).toContain('payments.send: rule "big-payments" → ask');
    expect(text).toContain('reads: no — tool "payments.send" is not read_*');
    expect(text).toContain('big-payments: matches (tool "payments.*", when "args.amount > 50000")');
    expect(text).toMatch(/approvers +slack:U0CFO, web:controller/);
    expect(text).toMatch(/required_approvals 2/);
    expect(text).toContain('"Approve for 1 hour" (3600 s, scope tool_name, agent_id)');
  });

  it('falls to default and says why each rule missed, including a when that cannot be evaluated', async () => {
    const text = await explain('--tool', 'payments.send', '--args', '{}');
    expect(text).toContain('rule "default" → ask (no rule matched)');
    expect(text).toMatch(
      /big-payments: no — when "args.amount > 50000" could not be evaluated \(.*No such key: amount\)/,
    );
  });

  it('--json for scripts', async () => {
    expect(JSON.parse(await explain('--tool', 'read_file', '--json'))).toMatchObject({
      rule: 'reads',
      decision: 'allow',
    });
  });

  it('usage errors name the flag', async () => {
    await expect(run(['test', '--config', config, '--tool', 'x', '--args', '[1]'])).rejects.toThrow(
      new UsageError('--args: expected a JSON object, like \'{"amount": 120}\''),
    );
    await expect(run(['test', '--config', config])).rejects.toThrow('--tool is required');
    await expect(run(['check'])).rejects.toBeInstanceOf(UsageError);
  });

  it('a bad rule fails as serve would: file, rule, position', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'policies:\n  - name: oops\n    match: { when: "args.x ==" }\n');
    await expect(run(['test', '--config', bad, '--tool', 'x'])).rejects.toThrow(
      `${bad}: policies[0] "oops".match.when: line 1, column 10`,
    );
  });
});
