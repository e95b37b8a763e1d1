/**
 * `tollgate audit --agent-kind --repo` (and `audit export` with them) reads the coding agents' requests as
 * `GET /v1/requests?agent_kind=&repo=` does: by the agent, and by the repository recorded in `context`.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let t: TestServer;
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestServer();
  const context = (repo: string) => ({ session_id: 's', cwd: `/srv/${repo}`, repo, branch: 'main', model: null });
  for (const [name, body] of Object.entries({
    codexBilling: {
      tool_name: 'Bash',
      tool_args: { command: 'ls' },
      agent_kind: 'codex',
      context: context('acme/billing'),
    },
    geminiBilling: {
      tool_name: 'run_shell_command',
      tool_args: { command: 'ls' },
      agent_kind: 'gemini',
      context: context('acme/billing'),
    },
    codexInfra: {
      tool_name: 'Bash',
      tool_args: { command: 'ls' },
      agent_kind: 'codex',
      context: context('acme/infra'),
    },
    plain: { tool_name: 'deploy', tool_args: {} },
  })) {
    ids[name] = ((await (await t.api('/v1/requests', { body })).json()) as { id: string }).id;
  }
});
afterAll(async () => {
  await t?.close();
});

const audit = (...argv: string[]) => {
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', 'audit', ...argv, '--db', t.dbPath],
    { encoding: 'utf8' },
  );
  expect(result.stderr).toBe('');
  return result.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { id: string }).id);
};

describe('tollgate audit by coding agent and repository', { timeout: 60_000 }, () => {
  it('filters by --agent-kind, --repo, and both, in the list and the export', () => {
    expect(audit('--format', 'ndjson', '--agent-kind', 'codex').sort()).toEqual(
      [ids.codexBilling, ids.codexInfra].sort(),
    );
    expect(audit('--format', 'ndjson', '--repo', 'acme/billing').sort()).toEqual(
      [ids.codexBilling, ids.geminiBilling].sort(),
    );
    expect(audit('export', '--agent-kind', 'codex', '--repo', 'acme/billing')).toEqual([ids.codexBilling]);
  });
});
