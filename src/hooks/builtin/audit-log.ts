/**
 * @module hooks/builtin/audit-log
 * `audit_log`: records every tool call — the attempt (`tool:pre`), its result (`tool:post`), its failure
 * (`tool:error`) and its denial (`tool:blocked`) — to an {@link AuditSink}: a JSON-lines file when `file`
 * is set, else the sink handed to the loader, else an in-memory sink.
 */
import { z } from 'zod';
import { systemClock } from '../../utils/clock.js';
import type { Clock } from '../../utils/clock.js';
import { parseOrThrow } from '../config-errors.js';
import type { HookContext, HookObject } from '../types.js';
import { FileAuditSink, MemoryAuditSink } from './audit-sink.js';
import type { AuditEntry, AuditSink } from './audit-sink.js';
import { defineBuiltin } from './types.js';

/** Config of `audit_log`. */
export const auditLogConfigSchema = z.strictObject({
  /** JSON-lines file to append to. */
  file: z.string().min(1).optional(),
  /** Record the arguments (default true; turn off when they hold secrets). */
  include_args: z.boolean().default(true),
  /** Record results of successful calls (default false: they can be large). */
  include_result: z.boolean().default(false),
});

/** Config of `audit_log`. */
export type AuditLogConfig = z.input<typeof auditLogConfigSchema>;

const EVENTS: Record<string, AuditEntry['event']> = {
  'tool:pre': 'call',
  'tool:post': 'result',
  'tool:error': 'error',
  'tool:blocked': 'blocked',
};

/** The `audit_log` hook; listed at `tool:pre` it also records at `tool:post`, `tool:error` and `tool:blocked`. */
export const auditLogBuiltin = defineBuiltin({
  name: 'audit_log',
  summary: 'records every tool call to a file or in-memory sink',
  schema: auditLogConfigSchema,
  points: ['tool:pre', 'tool:post', 'tool:error', 'tool:blocked'],
  companions: () => ['tool:post', 'tool:error', 'tool:blocked'],
  create: (config, deps) =>
    buildAuditLog(
      config,
      config.file ? new FileAuditSink(config.file) : (deps.auditSink ?? new MemoryAuditSink()),
      deps.clock,
    ),
});

/** Builds an `audit_log` hook writing to `sink`; register it at each tool point you want recorded. */
export function auditLogHook(
  sink: AuditSink,
  config: Omit<AuditLogConfig, 'file'> = {},
  clock: Clock = systemClock,
): HookObject {
  return buildAuditLog(parseOrThrow(auditLogConfigSchema, config, undefined, 'audit_log'), sink, clock);
}

function buildAuditLog(config: z.output<typeof auditLogConfigSchema>, sink: AuditSink, clock: Clock): HookObject {
  return {
    name: 'audit_log',
    async execute(context: HookContext) {
      const event = EVENTS[context.point];
      if (!event) return undefined;
      const entry: AuditEntry = {
        at: new Date(clock.now()).toISOString(),
        event,
        tool_name: context.toolName ?? null,
        tool_call_id: context.toolCallId ?? null,
        session_id: context.sessionId ?? null,
        agent_id: context.agentId ?? null,
        user_id: context.userId ?? null,
      };
      if (config.include_args) entry.args = context.toolArgs ?? {};
      if (event === 'result' && config.include_result) entry.result = context.result;
      if (event === 'error')
        entry.error = context.error instanceof Error ? context.error.message : String(context.error);
      if (event === 'blocked') entry.reason = (context.data as { reason?: string } | undefined)?.reason;
      await sink.write(entry);
      return undefined;
    },
  };
}
