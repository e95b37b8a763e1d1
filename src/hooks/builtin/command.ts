/**
 * @module hooks/builtin/command
 * `command`: runs the user's shell command the way Claude Code runs its hooks. The context goes in as JSON
 * on stdin; the command answers with JSON on stdout (empty = continue). Exit code 2 denies, with stderr as
 * the reason. Any other non-zero exit, a timeout or unreadable output is a hook failure, so on `tool:pre`
 * the call is denied unless the hook is registered fail-open.
 */
import { spawn } from 'node:child_process';
import { z } from 'zod';
import { parseOrThrow } from '../config-errors.js';
import type { HookContext, HookObject, HookResult } from '../types.js';
import { defineBuiltin } from './types.js';

/** Config of `command`. */
export const commandConfigSchema = z.strictObject({
  /** The shell command line. */
  command: z.string().min(1),
  /** The shell that runs it (`<shell> -c <command>`). */
  shell: z.string().min(1).default('/bin/sh'),
  /** Seconds before the command is killed. */
  timeout_s: z.number().positive().default(30),
  /** Working directory; default the process cwd. */
  cwd: z.string().min(1).optional(),
  /** Extra environment variables (the process environment is inherited). */
  env: z.record(z.string(), z.string()).default({}),
});

/** Config of `command`. */
export type CommandConfig = z.input<typeof commandConfigSchema>;

/** The JSON a command may print: a HookResult in snake_case, or Claude Code's `decision: "block"`. */
const answerSchema = z.object({
  action: z.enum(['continue', 'deny', 'modify', 'inject_context', 'ask_user']).optional(),
  decision: z.enum(['block', 'deny', 'approve', 'allow']).optional(),
  reason: z.string().optional(),
  data: z.unknown().optional(),
  context_injection: z.string().optional(),
  context_injection_role: z.enum(['system', 'user', 'assistant']).optional(),
  ephemeral: z.boolean().optional(),
  approval: z
    .object({
      prompt: z.string().optional(),
      options: z.array(z.string()).optional(),
      timeout_s: z.number().positive().optional(),
      default: z.enum(['allow', 'deny']).optional(),
    })
    .optional(),
  user_message: z.string().optional(),
  user_message_level: z.enum(['info', 'warning', 'error']).optional(),
  side_effects: z.array(z.string()).optional(),
  stop: z.boolean().optional(),
});

/** The `command` hook. */
export const commandBuiltin = defineBuiltin({
  name: 'command',
  summary: 'runs a shell command: context JSON on stdin, JSON answer on stdout, exit 2 = deny',
  schema: commandConfigSchema,
  create: (config) => buildCommand(config),
});

/** Builds a `command` hook; throws a HookConfigError for bad config. */
export function commandHook(config: CommandConfig): HookObject {
  return buildCommand(parseOrThrow(commandConfigSchema, config, undefined, 'command'));
}

/** The JSON a command receives on stdin. */
export function commandInput(context: HookContext): Record<string, unknown> {
  return {
    hook_point: context.point,
    tool_name: context.toolName ?? null,
    tool_args: context.toolArgs ?? null,
    result: context.result ?? null,
    error:
      context.error === undefined
        ? null
        : context.error instanceof Error
          ? context.error.message
          : String(context.error),
    tool_call_id: context.toolCallId ?? null,
    session_id: context.sessionId ?? null,
    agent_id: context.agentId ?? null,
    user_id: context.userId ?? null,
    text: context.text ?? null,
    messages: context.messages ?? null,
    data: context.data ?? null,
    metadata: context.metadata,
  };
}

function buildCommand(config: z.output<typeof commandConfigSchema>): HookObject {
  return {
    name: 'command',
    // The command's own timeout speaks first, with a clearer message than the engine's.
    timeoutMs: config.timeout_s * 1000 + 1000,
    async execute(context: HookContext): Promise<HookResult> {
      const run = await runCommand(config, JSON.stringify(commandInput(context)));
      if (run.code === 2)
        return {
          action: 'deny',
          reason: run.stderr.trim() || 'denied by a command hook (exit code 2)',
          sideEffects: ['command: exit 2 (deny)'],
        };
      if (run.code !== 0)
        throw new Error(
          `command exited with code ${run.code ?? run.signal}${run.stderr.trim() ? `: ${run.stderr.trim().slice(0, 500)}` : ''}`,
        );
      return toResult(run.stdout);
    },
  };
}

function toResult(stdout: string): HookResult {
  const text = stdout.trim();
  if (!text) return { action: 'continue' };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Error(`command printed something that is not JSON: ${text.slice(0, 200)}`);
  }
  const parsed = answerSchema.safeParse(raw);
  if (!parsed.success)
    throw new Error(`command answer is not a hook result: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  const a = parsed.data;
  const action = a.action ?? (a.decision === 'block' || a.decision === 'deny' ? 'deny' : 'continue');
  const result: HookResult = {
    action,
    reason: a.reason,
    data: a.data,
    contextInjection: a.context_injection,
    contextInjectionRole: a.context_injection_role,
  };
  result.ephemeral = a.ephemeral;
  result.userMessage = a.user_message;
  result.userMessageLevel = a.user_message_level;
  result.sideEffects = a.side_effects;
  result.stop = a.stop;
  if (a.approval)
    result.approval = {
      prompt: a.approval.prompt,
      options: a.approval.options,
      timeoutS: a.approval.timeout_s,
      default: a.approval.default,
    };
  return result;
}

interface CommandRun {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

function runCommand(config: z.output<typeof commandConfigSchema>, input: string): Promise<CommandRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(config.shell, ['-c', config.command], {
      cwd: config.cwd,
      env: { ...process.env, ...config.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group, so a timeout kills the shell's children too (they would hold the pipes open).
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
      reject(new Error(`command timed out after ${config.timeout_s} s`));
    }, config.timeout_s * 1000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`command could not start: ${err.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (!timedOut) resolve({ code, signal, stdout, stderr });
    });
    // A command that never reads stdin closes the pipe early; that is its right, not an error.
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
