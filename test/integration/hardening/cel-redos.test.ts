/**
 * A regex from configuration must not let one agent request stop the gateway (#58, finding 5). The rule's pattern
 * backtracks catastrophically under JavaScript's RegExp (each extra character doubles the time: 25 took 4.45 s);
 * under RE2 it runs in linear time. Proved by behaviour: a pathological input of thousands of characters, which no
 * backtracking engine finishes, is answered, while `/healthz` keeps answering; the same through the simulation. The
 * gateway is a child process, so a blocked gateway fails the test by its timeout instead of blocking the test itself.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChildGateway, type ChildGateway } from '../../helpers/child-gateway.js';

const POLICY = `
policies:
  - name: branch-names
    match: { tool: deploy, when: 'args.branch.matches("^([a-zA-Z0-9]+[-_]?)+$")' }
    decision: allow
default:
  decision: ask
`;
/** Far past anything a backtracking engine finishes (2^n steps); RE2 reads it once. */
const EVIL = `${'a'.repeat(20_000)}!`;

const dir = mkdtempSync(join(tmpdir(), 'tollgate-redos-'));
let t: ChildGateway;
beforeAll(async () => {
  writeFileSync(join(dir, 'tollgate.yaml'), POLICY);
  t = await startChildGateway(join(dir, 'tollgate.db'), { TOLLGATE_CONFIG: join(dir, 'tollgate.yaml') });
});
afterAll(async () => {
  await t?.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** POSTs a candidate policy to the simulation. */
function simulate(yaml: string): Promise<Response> {
  return fetch(`${t.url}/v1/policy/simulate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/yaml' },
    body: yaml,
  });
}

describe('CEL matches() runs in linear time (RE2)', () => {
  it('a pathological branch name is answered (the rule does not match) while /healthz answers', async () => {
    const filing = t.api('/v1/requests', { body: { tool_name: 'deploy', tool_args: { branch: EVIL } } });
    const health = await fetch(`${t.url}/healthz`);
    expect(health.status).toBe(200);
    const response = await filing;
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ status: 'pending' });
  });

  it('keeps the regex meaning: a valid branch name is allowed by the rule', async () => {
    const response = await t.api('/v1/requests', { body: { tool_name: 'deploy', tool_args: { branch: 'feat-x_1' } } });
    expect(await response.json()).toMatchObject({ status: 'approved', responded_by: 'policy:branch-names' });
  });

  it('the simulation replays the pathological request with the same rule and answers', async () => {
    const replay = async () => {
      const response = await simulate(POLICY);
      expect(response.status).toBe(200);
      const report = (await response.json()) as { replayed: number; by_rule: Record<string, number> };
      return { replayed: report.replayed, matched: report.by_rule['branch-names'] ?? 0 };
    };
    // The gateway is the file's: what the other tests filed (in whatever order they ran) is replayed too, so this
    // test counts what its own two requests add.
    const before = await replay();
    await t.api('/v1/requests', { body: { tool_name: 'deploy', tool_args: { branch: EVIL } } });
    await t.api('/v1/requests', { body: { tool_name: 'deploy', tool_args: { branch: 'feat-y_2' } } });
    const after = await replay();
    expect(after.replayed - before.replayed).toBe(2);
    expect(after.matched - before.matched).toBe(1);
  });
});

describe('the simulation body is bounded before it is parsed', () => {
  it('a deeply nested candidate is a 400 naming the candidate, and the gateway still answers', async () => {
    const nested = `policies: ${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const response = await simulate(nested);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ errors: [{ path: 'candidate' }] });
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
  });

  it('a deeply indented candidate is a 400 too', async () => {
    let nested = 'policies:\n';
    for (let depth = 0; depth < 200; depth++) nested += `${' '.repeat(depth * 2)}- a:\n`;
    const response = await simulate(nested);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ errors: [{ path: 'candidate' }] });
  });
});
