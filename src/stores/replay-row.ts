/**
 * @module stores/replay-row
 * A policy replay's row (`InsightsStore.replay`) as both stores read it: an array of the columns in
 * {@link REPLAY_COLUMN_NAMES}' order, the JSON ones still text, decoded only when read (a candidate whose rules never
 * look at a request's arguments never pays for decoding them), times as ISO text.
 */
import type { ReplayRow } from '../insights/types.js';
import type { AgentContext, RequestStatus } from '../requests/types.js';

/** The columns a replay reads, in the order {@link ReplayRowRaw} holds them. */
export const REPLAY_COLUMN_NAMES = [
  'id',
  'tool_name',
  'tool_args',
  'agent_id',
  'user_id',
  'session_id',
  'agent_kind',
  'context',
  'metadata',
  'approvers',
  'required_approvals',
  'status',
  'responded_via',
  'responded_by_person',
  'reason',
  'created_at',
] as const;

/** One row as read: JSON columns as text, `created_at` as ISO 8601 text. */
export type ReplayRowRaw = [
  string,
  string,
  string,
  string | null,
  string | null,
  string | null,
  string | null,
  string | null,
  string,
  string,
  number,
  RequestStatus,
  string | null,
  string | null,
  string | null,
  string,
];

/** Index of `created_at` and `id` in {@link ReplayRowRaw} (a page's last row is the next page's cursor). */
export const RAW_CREATED_AT = 15;
export const RAW_ID = 0;

/** A stored row as a {@link ReplayRow}: its JSON columns decoded on first read. */
export class RawReplayRow implements ReplayRow {
  readonly id: string;
  readonly toolName: string;
  readonly agentId: string | null;
  readonly userId: string | null;
  readonly sessionId: string | null;
  readonly agentKind: string | null;
  readonly requiredApprovals: number;
  readonly status: RequestStatus;
  readonly respondedVia: string | null;
  readonly respondedByPerson: string | null;
  readonly reason: string | null;
  readonly createdAt: string;
  private readonly raw: ReplayRowRaw;

  constructor(raw: ReplayRowRaw) {
    this.raw = raw;
    [
      this.id,
      this.toolName,
      ,
      this.agentId,
      this.userId,
      this.sessionId,
      this.agentKind,
      ,
      ,
      ,
      this.requiredApprovals,
      this.status,
      this.respondedVia,
      this.respondedByPerson,
      this.reason,
      this.createdAt,
    ] = raw;
  }

  get toolArgs(): Record<string, unknown> {
    return JSON.parse(this.raw[2]) as Record<string, unknown>;
  }

  get context(): AgentContext | null {
    return this.raw[7] === null ? null : (JSON.parse(this.raw[7]) as AgentContext);
  }

  get metadata(): Record<string, unknown> {
    return JSON.parse(this.raw[8]) as Record<string, unknown>;
  }

  get approvers(): string[] {
    return JSON.parse(this.raw[9]) as string[];
  }
}
