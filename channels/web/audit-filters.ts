/**
 * @module channels/web/audit-filters
 * The audit page's filters, read from a query string. Empty fields mean "any"; times typed into a browser's
 * `datetime-local` field (which has no zone) are read as UTC, the zone every time on the page is shown in.
 */
import type { ChannelHost } from '../../src/channel/channel.js';
import type { RequestQuery } from '../../src/requests/store.js';
import { REQUEST_STATUSES, type RequestStatus } from '../../src/requests/types.js';

/** The filters as typed (strings, for refilling the form and building links). */
export interface AuditForm {
  status: string;
  tool: string;
  agent: string;
  approver: string;
  /** A person of the directory (any of their accounts), or an account. */
  person: string;
  group: string;
  since: string;
  until: string;
}

/** Parsed filters: the store query, the form as typed, and what could not be read. */
export interface AuditFilters {
  query: Omit<RequestQuery, 'limit' | 'cursor'>;
  form: AuditForm;
  cursor: string | undefined;
  errors: { field: keyof AuditForm | 'cursor'; message: string }[];
}

const FIELDS: (keyof AuditForm)[] = ['status', 'tool', 'agent', 'approver', 'person', 'group', 'since', 'until'];

function first(value: unknown): string {
  const v = Array.isArray(value) ? value[0] : value;
  return typeof v === 'string' ? v.trim().slice(0, 200) : '';
}

/** Reads `2025-06-01`, `2025-06-01T14:03`, or a full ISO time with a zone; zone-less times are UTC. */
export function parseTime(text: string): Date | null {
  let iso = text;
  if (/^\d{4}-\d{2}-\d{2}$/.test(iso)) iso += 'T00:00';
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(iso)) iso += 'Z';
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(iso)) return null;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? null : date;
}

/**
 * Reads the filters from an express query object. `decidedBy` turns the person and group fields into people (the
 * host's {@link ChannelHost.decidedBy}); an unknown group becomes an error on the `group` field.
 */
export function parseAuditFilters(raw: Record<string, unknown>, decidedBy?: ChannelHost['decidedBy']): AuditFilters {
  const form = Object.fromEntries(FIELDS.map((f) => [f, first(raw[f])])) as unknown as AuditForm;
  const errors: AuditFilters['errors'] = [];
  const query: AuditFilters['query'] = {};
  if (form.status) {
    if ((REQUEST_STATUSES as readonly string[]).includes(form.status)) query.status = form.status as RequestStatus;
    else errors.push({ field: 'status', message: `status must be one of ${REQUEST_STATUSES.join(', ')}` });
  }
  if (form.tool) query.toolName = form.tool;
  if (form.agent) query.agentId = form.agent;
  if (form.approver) query.respondedBy = form.approver;
  if ((form.person || form.group) && decidedBy) {
    try {
      query.respondedByPeople = decidedBy({ person: form.person || undefined, group: form.group || undefined });
      // What they settled and what they voted on without settling (a quorum's earlier approvals).
      query.includeVotes = true;
    } catch (error) {
      errors.push({ field: 'group', message: error instanceof Error ? error.message : String(error) });
    }
  }
  for (const field of ['since', 'until'] as const) {
    if (!form[field]) continue;
    const date = parseTime(form[field]);
    if (date) query[field] = date;
    else errors.push({ field, message: `${field}: not a time (use 2025-06-01T14:00, read as UTC)` });
  }
  const cursor = first(raw.cursor) || undefined;
  return { query, form, cursor, errors };
}

/** The query string for `form` (empty fields left out), plus `extra` parameters. */
export function filterQueryString(form: AuditForm, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const f of FIELDS) if (form[f]) params.set(f, form[f]);
  for (const [k, v] of Object.entries(extra)) params.set(k, v);
  const text = params.toString();
  return text ? `?${text}` : '';
}
