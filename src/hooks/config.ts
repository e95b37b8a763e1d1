/**
 * @module hooks/config
 * Declarative hooks: a YAML `hooks:` section (per point, a list of `{ use, priority, config }`) loaded into
 * a {@link HookRegistry}. Profiles follow lionagi's override rule: a profile's list for a point replaces the
 * default list there, an empty list disables it, and points the profile does not mention keep the defaults.
 * Everything is validated before anything is registered, so a bad file registers nothing.
 * @example
 * // tollgate.yaml
 * // hooks:
 * //   tool:pre:
 * //     - use: policy
 * //       config: { deny_tools: ["shell"] }
 * const { registry } = await loadHookConfigFile('tollgate.yaml');
 */
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { BUILTIN_HOOKS } from './builtin/index.js';
import type { BuiltinDeps, BuiltinHookDefinition } from './builtin/types.js';
import type { AuditSink } from './builtin/audit-sink.js';
import { HookConfigError, formatPath, parseOrThrow } from './config-errors.js';
import { interpolateEnv } from './interpolate.js';
import { isValidPointName } from './points.js';
import { parseOutboundAllow } from '../utils/outbound.js';
import { HookRegistry } from './registry.js';
import type { HookHandler } from './types.js';

const entrySchema = z.strictObject({
  use: z.string().min(1),
  name: z.string().min(1).optional(),
  priority: z.number().optional(),
  fail_open: z.boolean().optional(),
  timeout_ms: z.number().int().nonnegative().optional(),
  config: z.unknown().optional(),
});

const pointsSchema = z.record(z.string(), z.array(entrySchema).nullable());

const documentSchema = z.looseObject({
  hooks: pointsSchema.nullish(),
  profiles: z.record(z.string(), z.strictObject({ hooks: pointsSchema.nullish() })).nullish(),
});

/** One `{ use, priority, config }` item of the YAML. */
export type HookConfigEntry = z.output<typeof entrySchema>;

/** Options of {@link loadHookConfig} and {@link loadHookConfigFile}. */
export interface LoadHookConfigOptions {
  /** Registry to add to; default a new one. */
  registry?: HookRegistry;
  /** Profile whose lists override the defaults. */
  profile?: string;
  /** Variables for `${NAME}`; default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Extra name-addressable hooks (they may shadow built-ins). */
  hooks?: Record<string, BuiltinHookDefinition>;
  /** Sink for `audit_log` entries without `file`. */
  auditSink?: AuditSink;
  /** Workspace root for `guard_paths`; default the process cwd at call time. */
  cwd?: string;
  /** Name of the source used in error messages. */
  file?: string;
}

/** What was loaded. */
export interface LoadedHooks {
  /** The registry the hooks were added to. */
  registry: HookRegistry;
  /** Each registration made, in order. */
  registered: { point: string; name: string; use: string }[];
  /** Removes every registration this load made. */
  unregister(): void;
}

interface Planned {
  point: string;
  entry: HookConfigEntry;
  definition: BuiltinHookDefinition;
  config: unknown;
  where: string;
}

/** Reads a YAML file and loads its hooks. Errors name the file and the path inside it. */
export async function loadHookConfigFile(
  file: string,
  options: Omit<LoadHookConfigOptions, 'file'> = {},
): Promise<LoadedHooks> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new HookConfigError(`cannot read: ${(err as Error).message}`, file);
  }
  return loadHookConfig(text, { ...options, file });
}

/** Loads hooks from YAML text or an already-parsed document. */
export function loadHookConfig(
  source: string | Record<string, unknown>,
  options: LoadHookConfigOptions = {},
): LoadedHooks {
  const { file } = options;
  let raw: unknown = source;
  if (typeof source === 'string') {
    try {
      raw = parseYaml(source) ?? {};
    } catch (err) {
      throw new HookConfigError(`invalid YAML: ${(err as Error).message.split('\n')[0]}`, file);
    }
  }
  const doc = parseOrThrow(documentSchema, raw, file, '');
  const env = options.env ?? process.env;
  const catalogue = { ...BUILTIN_HOOKS, ...options.hooks };

  const lists = new Map<string, { base: PropertyKey[]; entries: HookConfigEntry[] }>();
  for (const [point, entries] of Object.entries(doc.hooks ?? {}))
    lists.set(point, { base: ['hooks', point], entries: entries ?? [] });
  if (options.profile !== undefined) {
    const profile = doc.profiles?.[options.profile];
    if (!profile) {
      const known = Object.keys(doc.profiles ?? {});
      throw new HookConfigError(
        `unknown profile (known: ${known.length ? known.join(', ') : 'none'})`,
        file,
        `profiles.${options.profile}`,
      );
    }
    // lionagi's rule: a mentioned point is replaced wholesale; an empty list switches the defaults off.
    for (const [point, entries] of Object.entries(profile.hooks ?? {})) {
      lists.set(point, { base: ['profiles', options.profile, 'hooks', point], entries: entries ?? [] });
    }
  }

  const plan: Planned[] = [];
  for (const [point, { base, entries }] of lists) {
    if (!isValidPointName(point))
      throw new HookConfigError('invalid hook point name (use "namespace:event")', file, formatPath('', base));
    entries.forEach((entry, i) => {
      const at = [...base, i];
      const where = formatPath('', at);
      const definition = catalogue[entry.use];
      if (!definition) {
        throw new HookConfigError(
          `unknown hook "${entry.use}" (known: ${Object.keys(catalogue).sort().join(', ')})`,
          file,
          `${where}.use`,
        );
      }
      if (definition.points && !definition.points.includes(point)) {
        throw new HookConfigError(
          `"${entry.use}" cannot run at ${point} (it runs at ${definition.points.join(', ')})`,
          file,
          `${where}.use`,
        );
      }
      const interpolated = interpolateEnv(entry.config ?? {}, env, file, [...at, 'config']);
      const config = parseOrThrow(definition.schema, interpolated, file, `${where}.config`);
      plan.push({ point, entry, definition, config, where });
    });
  }

  const registry = options.registry ?? new HookRegistry();
  const deps: BuiltinDeps = {
    clock: registry.clock,
    logger: registry.logger,
    cwd: options.cwd,
    auditSink: options.auditSink,
    outboundAllow: parseOutboundAllow(env.TOLLGATE_OUTBOUND_ALLOW, env.TOLLGATE_CALLBACK_ALLOW),
  };
  const handlers = plan.map((p) => createHandler(p, deps, file));
  const removers: (() => void)[] = [];
  const registered: LoadedHooks['registered'] = [];
  plan.forEach((p, i) => {
    const handler = handlers[i] as HookHandler;
    const name = p.entry.name ?? p.definition.name;
    const opts = {
      priority: p.entry.priority,
      name,
      failOpen: p.entry.fail_open ?? p.definition.failOpen,
      timeoutMs: p.entry.timeout_ms,
    };
    const primary = p.definition.points?.[0];
    const companions = primary === p.point ? (p.definition.companions?.(p.config) ?? []) : [];
    for (const point of [p.point, ...companions]) {
      removers.push(registry.register(point, handler, opts));
      registered.push({ point, name, use: p.entry.use });
    }
  });
  return { registry, registered, unregister: () => removers.forEach((off) => off()) };
}

function createHandler(p: Planned, deps: BuiltinDeps, file: string | undefined): HookHandler {
  try {
    return p.definition.create(p.config, deps);
  } catch (err) {
    throw new HookConfigError((err as Error).message, file, `${p.where}.config`);
  }
}
