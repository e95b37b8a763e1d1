/**
 * @module summaries/mcp
 * The MCP summarizer: an upstream tool's annotations (`readOnlyHint`, `destructiveHint`, `idempotentHint`,
 * `openWorldHint`), as `tollgate mcp` read them from `tools/list`. They are the server's own hints, not proof: a
 * read-only hint lowers the risk only when nothing else in the call (a shell command, SQL, an edit) says otherwise.
 */
import { reason } from './reasons.js';
import type { Finding, Summarizer, ToolAnnotations } from './types.js';

/** The four hints of an annotations object, booleans only (anything else is dropped). */
export function cleanAnnotations(value: unknown): ToolAnnotations | null {
  if (!value || typeof value !== 'object') return null;
  const source = value as Record<string, unknown>;
  const out: ToolAnnotations = {};
  for (const key of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const)
    if (typeof source[key] === 'boolean') out[key] = source[key];
  return out;
}

/** What the annotations say, as reasons. MCP's defaults apply when a hint is absent (destructive, open world). */
export function annotationReasons(annotations: ToolAnnotations): Finding['reasons'] {
  if (annotations.readOnlyHint === true)
    return [reason('mcp_read_only'), ...(annotations.openWorldHint === true ? [reason('mcp_open_world')] : [])];
  if (!Object.keys(annotations).length) return [reason('mcp_unannotated')];
  const reasons: Finding['reasons'] = [];
  if (annotations.destructiveHint !== false) reasons.push(reason('mcp_destructive'));
  if (annotations.openWorldHint !== false) reasons.push(reason('mcp_open_world'));
  return reasons.length ? reasons : [reason('mcp_writes')];
}

/** The MCP summarizer: any call that carries annotations. */
export const mcpSummarizer: Summarizer = {
  kind: 'mcp',
  accepts: (_toolName, _args, context) => !!context.annotations,
  summarize(_toolName, _args, context): Finding {
    const annotations = cleanAnnotations(context.annotations) ?? {};
    return { kind: 'mcp', annotations, reasons: annotationReasons(annotations) };
  },
};
