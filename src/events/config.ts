/**
 * @module events/config
 * The `events:` section of the config file: webhook sinks receiving the event stream. Errors name the file, the
 * entry and what is wrong; a URL the SSRF rules of `callback_url` refuse is refused here too.
 */
import { z } from 'zod';
import { callbackUrlProblem } from '../utils/outbound.js';
import { ValidationError, type FieldProblem } from '../api/errors.js';
import { fieldProblems } from '../api/validation.js';
import { AWAY_CHANGED_TYPE, STREAM_TYPES } from './cloud.js';

const TYPES: [string, ...string[]] = [
  'dev.tollgate.request.approval_counted',
  'dev.tollgate.audit.head',
  AWAY_CHANGED_TYPE,
  ...Object.values(STREAM_TYPES),
];

/** One sink as written in the YAML. */
export const sinkSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  /** The HMAC key of `tollgate-signature` (at least 16 characters), or `env:NAME` to read it from the environment. */
  secret: z.string().min(1),
  /** CloudEvents types to send (default: all). */
  types: z.array(z.enum(TYPES)).min(1).optional(),
  /** Tool names (or `prefix*`) whose requests' events are sent (default: all). */
  tools: z.array(z.string().min(1).max(200)).min(1).optional(),
  /** How many events a sink that stays down may fall behind before the oldest are skipped (default 100 000). */
  max_backlog: z.int().min(1).max(10_000_000).optional(),
  /** Several events per POST as a CloudEvents batch (default), or `false`: one structured event per POST. */
  batch: z.boolean().optional(),
});

/** A sink, validated. */
export interface SinkConfig {
  /** `events[<i>]` plus the host: how logs, metrics and `/readyz` name it. */
  name: string;
  url: string;
  secret: string;
  types: ReadonlySet<string> | null;
  tools: readonly string[] | null;
  maxBacklog: number;
  /** POST CloudEvents batches (`application/cloudevents-batch+json`, a JSON array); false: one event per POST. */
  batch: boolean;
}

/**
 * The sinks of `section` (the YAML's `events:`), checked.
 * @throws ValidationError naming `<file>: events[i].<field>`.
 */
export function loadSinks(
  section: unknown,
  source: string,
  callbackAllow: readonly string[],
  env: Record<string, string | undefined> = {},
): SinkConfig[] {
  if (section === undefined) return [];
  const parsed = z.array(z.unknown()).safeParse(section);
  if (!parsed.success) throw new ValidationError(`${source}: events: expected a list of sinks`);
  const problems: FieldProblem[] = [];
  const sinks: SinkConfig[] = [];
  parsed.data.forEach((raw, i) => {
    const where = `${source}: events[${i}]`;
    const sink = sinkSchema.safeParse(raw);
    if (!sink.success) return void problems.push(...fieldProblems(sink.error.issues, where, where));
    const refused = callbackUrlProblem(sink.data.url, callbackAllow);
    if (refused) return void problems.push({ path: `${where}.url`, message: refused });
    // Secrets belong in the environment: `env:NAME` keeps the key out of the file.
    const secret = sink.data.secret.startsWith('env:') ? env[sink.data.secret.slice(4)] : sink.data.secret;
    if (!secret || secret.length < 16) {
      const message =
        sink.data.secret.startsWith('env:') && !secret
          ? `${sink.data.secret.slice(4)} is not set in the environment`
          : 'the secret must be at least 16 characters';
      return void problems.push({ path: `${where}.secret`, message });
    }
    sinks.push({
      name: `events[${i}] ${new URL(sink.data.url).host}`,
      url: sink.data.url,
      secret,
      types: sink.data.types ? new Set(sink.data.types) : null,
      tools: sink.data.tools ?? null,
      maxBacklog: sink.data.max_backlog ?? 100_000,
      batch: sink.data.batch ?? true,
    });
  });
  if (problems.length) throw new ValidationError(problems.map((p) => `${p.path}: ${p.message}`).join('; '), problems);
  return sinks;
}

/** `TOLLGATE_AUDIT_ANCHOR_EVERY_S` in ms (default 3600 s): how often the signed audit head is sent to the sinks. */
export function anchorIntervalMs(env: Record<string, string | undefined>): number {
  const raw = env.TOLLGATE_AUDIT_ANCHOR_EVERY_S?.trim();
  if (!raw) return 3600_000;
  const seconds = Number(raw);
  if (!Number.isInteger(seconds) || seconds < 10)
    throw new ValidationError(`TOLLGATE_AUDIT_ANCHOR_EVERY_S: expected whole seconds, at least 10: ${raw}`);
  return seconds * 1000;
}

/** Whether a sink's `tools` filter admits `toolName`. */
export function toolAdmitted(tools: readonly string[] | null, toolName: string): boolean {
  return !tools || tools.some((t) => (t.endsWith('*') ? toolName.startsWith(t.slice(0, -1)) : t === toolName));
}
