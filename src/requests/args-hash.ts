/**
 * @module requests/args-hash
 * `args_sha256`: a verdict is bound to the exact tool and arguments it was given for.
 */
import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every depth, so equal arguments hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/**
 * SHA-256 (hex) of the canonical JSON of `{tool_name, tool_args}`.
 * @example argsSha256('pay_invoice', { amount: 10 }) === argsSha256('pay_invoice', { amount: 10 })
 */
export function argsSha256(toolName: string, toolArgs: Record<string, unknown>): string {
  return createHash('sha256').update(canonicalJson({ tool_name: toolName, tool_args: toolArgs })).digest('hex');
}
