/**
 * The real Gemini CLI (`@google/gemini-cli`, pinned, installed into a cache on first use) behind `tollgate hook
 * gemini`: headless (`gemini -p … --yolo`), against a fake Gemini API on 127.0.0.1 that asks for one shell call,
 * with its BeforeTool hook configured as docs/coding-agents.md says. Approve → the command runs; deny → it does
 * not, and the model receives the approver's reason; deferred → the first attempt is refused with the link, a human
 * approves, the retry runs.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApiRequest } from '../../src/requests/serialize.js';
import { startFakeGemini, type FakeGemini } from '../fakes/model-api/gemini.js';
import { eventually } from '../helpers/eventually.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { installedCli } from './install.js';

const VERSION = '0.61.0';
const BIN = resolve(import.meta.dirname, '../../bin/tollgate.js');
// An install on first use, then a real CLI (3–6 s a run) and the hook through tsx, on two shared cores.
const SLOW = 240_000;

let gemini: string;
let server: TestServer;
let model: FakeGemini;
let dir: string;

beforeAll(async () => {
  gemini = await installedCli('@google/gemini-cli', VERSION, 'gemini');
}, SLOW);

beforeEach(async () => {
  server = await startTestServer();
  dir = mkdtempSync(join(tmpdir(), 'tollgate-gemini-'));
});
afterEach(async () => {
  await model?.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A Gemini CLI home whose user settings wire the hook (`wait`: the hook's --wait), and a project directory. */
function setUp(wait: number): { home: string; project: string } {
  const home = join(dir, 'home');
  const project = join(dir, 'project');
  mkdirSync(join(home, '.gemini'), { recursive: true });
  mkdirSync(project, { recursive: true });
  const settings = {
    security: { auth: { selectedType: 'gemini-api-key' } },
    privacy: { usageStatisticsEnabled: false },
    hooks: {
      BeforeTool: [{ matcher: 'run_shell_command', hooks: [{ name: 'tollgate', type: 'command', command: `"${process.execPath}" "${BIN}" hook gemini --wait ${wait}`, timeout: (wait + 10) * 1000 }] }],
    },
  };
  writeFileSync(join(home, '.gemini/settings.json'), JSON.stringify(settings, null, 2));
  return { home, project };
}

/** One headless run of the real CLI; resolves with its exit code and output. */
function runGemini(home: string, project: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    GEMINI_API_KEY: 'dummy',
    GOOGLE_GEMINI_BASE_URL: model.url,
    GEMINI_CLI_HOME: home,
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    GEMINI_CLI_NO_RELAUNCH: 'true',
    TOLLGATE_URL: server.url,
    TOLLGATE_TOKEN: server.token,
  };
  const child = spawn(gemini, ['-p', 'Run the scripted command.', '--yolo', '-m', 'gemini-2.5-flash'], { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((done) => child.once('close', (code) => done({ code, stdout, stderr })));
}

const pending = () =>
  eventually(async () => {
    const { items } = (await (await server.api('/v1/requests?status=pending&agent_kind=gemini')).json()) as { items: ApiRequest[] };
    if (!items[0]) throw new Error('no pending request yet');
    return items[0];
  }, 60_000, 100);
const decide = async (id: string, body: Record<string, unknown>) => expect((await server.api(`/v1/requests/${id}/decision`, { body: { approver: 'web:alice', ...body } })).status).toBe(200);

describe(`Gemini CLI ${VERSION} behind tollgate hook gemini`, { timeout: SLOW }, () => {
  it('runs the command once a human approves it', async () => {
    const { home, project } = setUp(30);
    model = await startFakeGemini('echo approved > ran.txt');
    const run = runGemini(home, project);
    const request = await pending();
    expect(request).toMatchObject({ tool_name: 'run_shell_command', tool_args: { command: 'echo approved > ran.txt' }, context: { cwd: project } });
    await decide(request.id, { decision: 'approve' });
    const result = await run;
    expect({ code: result.code, unknown: model.unknown }).toEqual({ code: 0, unknown: [] });
    expect(readFileSync(join(project, 'ran.txt'), 'utf8').trim()).toBe('approved');
  });

  it('does not run a denied command, and the model reads the approver\'s reason', async () => {
    const { home, project } = setUp(30);
    model = await startFakeGemini('echo denied > ran.txt');
    const run = runGemini(home, project);
    await decide((await pending()).id, { decision: 'deny', approver: 'web:bob', reason: 'not on the release branch' });
    await run;
    expect(existsSync(join(project, 'ran.txt'))).toBe(false);
    expect(model.toolResults.join('\n')).toContain('Denied by web:bob: not on the release branch');
  });

  it('defers: the first attempt is refused with the link, a human approves, the retry runs', async () => {
    const { home, project } = setUp(1);
    model = await startFakeGemini('echo later > ran.txt');
    await runGemini(home, project);
    expect(existsSync(join(project, 'ran.txt'))).toBe(false);
    const request = await pending();
    expect(model.toolResults.join('\n')).toContain(`/ui/requests/${request.id}`);
    await decide(request.id, { decision: 'approve' });
    await runGemini(home, project);
    expect(readFileSync(join(project, 'ran.txt'), 'utf8').trim()).toBe('later');
  });
});
