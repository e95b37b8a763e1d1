/**
 * @module hooks/builtin/types
 * The shape of a name-addressable hook: a zod schema for its `config`, the points it may run at, and a
 * factory. The YAML loader and the programmatic factories share it.
 */
import type { z } from 'zod';
import type { Clock } from '../../utils/clock.js';
import type { HookHandler, HookLogger, HookPoint } from '../types.js';
import type { AuditSink } from './audit-sink.js';

/** What a factory may use besides its config. */
export interface BuiltinDeps {
  /** Time source (rate windows, audit timestamps). */
  clock: Clock;
  /** Where hooks report trouble they absorb. */
  logger: HookLogger;
  /** Workspace root for relative paths; default `process.cwd()` at call time. */
  cwd?: string;
  /** Sink for `audit_log` when its config names no file. */
  auditSink?: AuditSink;
  /**
   * Hosts and ranges a `webhook` may call although private (`TOLLGATE_OUTBOUND_ALLOW`, utils/outbound); the loader
   * reads them from its `env`. Absent: read from `process.env`.
   */
  outboundAllow?: readonly string[];
}

/** A built-in (or user-supplied) hook addressable by name from YAML. */
export interface BuiltinHookDefinition<S extends z.ZodType = z.ZodType> {
  /** The name used in `use:`. */
  name: string;
  /** One line for docs and errors. */
  summary: string;
  /** Validates `config:`. */
  schema: S;
  /** Points the hook may be listed at; absent = any. */
  points?: readonly HookPoint[];
  /** Points it also registers at, automatically, when listed at its first allowed point. */
  companions?: (config: z.output<S>) => HookPoint[];
  /** Default `failOpen` for registrations of this hook. */
  failOpen?: boolean;
  /** Builds the handler. */
  create(config: z.output<S>, deps: BuiltinDeps): HookHandler;
}

/** Declares a definition with its config type inferred from the schema. */
export function defineBuiltin<S extends z.ZodType>(definition: BuiltinHookDefinition<S>): BuiltinHookDefinition<S> {
  return definition;
}
