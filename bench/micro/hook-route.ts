/**
 * @module bench/micro/hook-route
 * `tsx bench/micro/hook-route.ts [N]`: CPU per `POST /v1/hooks/claude-code` on the gateway's side, without HTTP: the
 * route's `fileOrAttach` for a PreToolUse an allow rule answers (a fresh `tool_use_id` and file each call, as the
 * bench's `claude_hook_allow` sends), and the same-call lookup alone (`newestMatch`), on the embedded default (SQLite)
 * with the agent's newest requests all final, the hook's steady state.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { createServer } from '../../src/server.js';
import { loadConfig } from '../../src/config.js';
import { fileOrAttach, newestMatch, newRequestInput } from '../../src/integrations/attach.js';
import { claudeCodeRequest, parseClaudeHookInput } from '../../src/integrations/claude-code.js';
import { cpuMsPerCall } from './cpu.js';

const n = Number(process.argv[2] ?? 2000);
const dir = mkdtempSync(join(tmpdir(), 'tollgate-micro-hook-'));
const config = join(dir, 'policy.yaml');
writeFileSync(config, 'policies:\n  - name: claude-reads\n    match: { tool: [Read] }\n    decision: allow\n');
const server = await createServer({
  config: loadConfig({ port: 0, db: join(dir, 'micro.db'), config }),
  logger: pino({ level: 'silent' }),
});
const gateway = server.gateway;
await gateway.start();
try {
  const cpuMs = (fn: (i: number) => Promise<unknown>) => cpuMsPerCall(n, fn);
  const hook = (i: number) =>
    parseClaudeHookInput({
      hook_event_name: 'PreToolUse',
      session_id: 'bench',
      tool_use_id: `toolu_${i}`,
      tool_name: 'Read',
      tool_input: { file_path: `/srv/app/README-${i}.md` },
      cwd: '/srv/app',
    });
  const file = async (i: number) => {
    const request = await fileOrAttach(gateway, { ...newRequestInput(claudeCodeRequest(hook(i))), filedBy: 'bench' });
    if (request.status !== 'approved') throw new Error(`expected approved, got ${request.status}`);
  };
  for (let i = 0; i < 200; i++) await file(-1 - i); // warm up: JIT, statement caches, a full window of final rows
  const route = await cpuMs(file);
  const lookup = await cpuMs((i) =>
    newestMatch(gateway, {
      agentId: 'claude-code',
      sessionId: 'bench',
      toolName: 'Read',
      toolArgs: { file_path: `/srv/app/other-${i}.md` },
    }),
  );
  process.stdout.write(
    `${route.toFixed(3)} ms CPU per hook call (fileOrAttach), ${lookup.toFixed(3)} ms per newestMatch (no match), n=${n}\n`,
  );
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
