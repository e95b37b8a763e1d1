/**
 * @module hooks/builtin
 * The name-addressable hooks (`use: <name>` in YAML) and their programmatic factories.
 */
import { auditLogBuiltin } from './audit-log.js';
import { commandBuiltin } from './command.js';
import { guardDestructiveBuiltin } from './guard-destructive.js';
import { guardPathsBuiltin } from './guard-paths.js';
import { passthroughBuiltin } from './passthrough.js';
import { policyBuiltin } from './policy.js';
import { rateLimitBuiltin } from './rate-limit.js';
import { readOnlyBuiltin } from './read-only.js';
import { truncateResultBuiltin } from './truncate-result.js';
import type { BuiltinHookDefinition } from './types.js';
import { webhookBuiltin } from './webhook.js';

/** Every built-in hook by name. */
export const BUILTIN_HOOKS: Readonly<Record<string, BuiltinHookDefinition>> = Object.freeze(
  Object.fromEntries(
    [
      passthroughBuiltin,
      policyBuiltin,
      webhookBuiltin,
      guardDestructiveBuiltin,
      guardPathsBuiltin,
      truncateResultBuiltin,
      rateLimitBuiltin,
      readOnlyBuiltin,
      auditLogBuiltin,
      commandBuiltin,
    ].map((d) => [d.name, d as BuiltinHookDefinition]),
  ),
);

export { defineBuiltin } from './types.js';
export type { BuiltinDeps, BuiltinHookDefinition } from './types.js';
export { FileAuditSink, MemoryAuditSink } from './audit-sink.js';
export type { AuditEntry, AuditSink } from './audit-sink.js';
export { auditLogHook } from './audit-log.js';
export type { AuditLogConfig } from './audit-log.js';
export { commandHook, commandInput } from './command.js';
export type { CommandConfig } from './command.js';
export { guardDestructiveHook, findDestructive, DESTRUCTIVE_PATTERNS } from './guard-destructive.js';
export type { GuardDestructiveConfig } from './guard-destructive.js';
export { guardPathsHook } from './guard-paths.js';
export type { GuardPathsConfig } from './guard-paths.js';
export { passthroughHook } from './passthrough.js';
export { policyHook } from './policy.js';
export type { PolicyConfig } from './policy.js';
export { rateLimitHook } from './rate-limit.js';
export type { RateLimitConfig } from './rate-limit.js';
export { readOnlyHook, DEFAULT_WRITE_TOOLS } from './read-only.js';
export type { ReadOnlyConfig } from './read-only.js';
export { truncateResultHook } from './truncate-result.js';
export type { TruncateResultConfig } from './truncate-result.js';
export { webhookHook } from './webhook.js';
export type { WebhookConfig } from './webhook.js';
