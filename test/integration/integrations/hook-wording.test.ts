/**
 * What an agent's hook tells its user when it cannot ask anyone: no token, no gateway where TOLLGATE_URL points, a
 * token the gateway does not know, a token that may not file requests. The refusal is shown in the agent, often to
 * someone who installed tollgate minutes ago: each names what is wrong and the command to run. Gemini CLI's hook
 * (its deny JSON) and Claude Code's (stderr, exit 2), in process, against a real gateway.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run as claudeHook } from '../../../src/cli/claude-hook.js';
import { runHook } from '../../contracts/agent-adapter.contract.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let auditor: string;
beforeAll(async () => {
  server = await startTestServer();
  const created = await server.api('/v1/tokens', { body: { name: 'auditor', scopes: ['audit:read'] } });
  auditor = ((await created.json()) as { secret: string }).secret;
});
afterAll(() => server?.close());

const gemini = JSON.stringify({
  session_id: 's',
  cwd: '/srv/app',
  hook_event_name: 'BeforeTool',
  tool_name: 'run_shell_command',
  tool_input: { command: 'terraform apply' },
});
const claude = JSON.stringify({
  session_id: 's',
  cwd: '/srv/app',
  hook_event_name: 'PreToolUse',
  tool_name: 'Bash',
  tool_use_id: 'toolu_wording',
  tool_input: { command: 'terraform apply' },
});

/** What each hook says with `env`: Gemini's deny reason, Claude's stderr. */
async function said(env: Record<string, string>): Promise<{ gemini: string; claude: string }> {
  const g = await runHook(['gemini', '--wait', '1'], gemini, env);
  expect(JSON.parse(g.stdout)).toMatchObject({ decision: 'deny' });
  let stderr = '';
  const code = await claudeHook(['--wait', '1'], {
    stdin: (async function* () {
      yield Buffer.from(claude);
    })(),
    stdout: { write: () => undefined },
    stderr: { write: (s: string) => void (stderr += s) },
    env,
  });
  expect(code).toBe(2);
  return { gemini: (JSON.parse(g.stdout) as { reason: string }).reason, claude: stderr };
}

const MAKE_TOKEN = 'tollgate token create my-agent --scope request:create';

describe("a hook's refusal says what to run", () => {
  it('without TOLLGATE_TOKEN: that it is not set in the agent, and how to make one (no GateClient)', async () => {
    for (const text of Object.values(await said({ TOLLGATE_URL: server.url }))) {
      expect(text).toContain("TOLLGATE_TOKEN is not set in the agent's environment, so nobody can be asked");
      expect(text).toContain(MAKE_TOKEN);
      expect(text).not.toContain('GateClient');
    }
  });

  it('with nothing listening at TOLLGATE_URL: to start tollgate or point TOLLGATE_URL at it', async () => {
    for (const text of Object.values(await said({ TOLLGATE_URL: 'http://127.0.0.1:9', TOLLGATE_TOKEN: 't' }))) {
      expect(text).toMatch(/cannot reach the gateway at http:\/\/127\.0\.0\.1:9: .*ECONNREFUSED/);
      expect(text).toContain('Is tollgate running? Start it with `tollgate serve`');
      expect(text).toContain('set TOLLGATE_URL to where it runs');
    }
  });

  it('with a token the gateway does not know (401), or one that may not file requests (403): which token to make', async () => {
    for (const text of Object.values(await said({ TOLLGATE_URL: server.url, TOLLGATE_TOKEN: 'wrong' }))) {
      expect(text).toContain(`the gateway at ${server.url} does not accept TOLLGATE_TOKEN (invalid bearer token`);
      expect(text).toContain(MAKE_TOKEN);
    }
    for (const text of Object.values(await said({ TOLLGATE_URL: server.url, TOLLGATE_TOKEN: auditor }))) {
      expect(text).toContain(`TOLLGATE_TOKEN may not file requests at ${server.url} (token "auditor" lacks`);
      expect(text).toContain(MAKE_TOKEN);
    }
  });
});
