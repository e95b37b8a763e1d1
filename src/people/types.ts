/**
 * @module people/types
 * The `Directory` contract: who the people behind channel accounts are, and which groups they form. Four eyes and
 * self-approval are counted by person, so the gateway resolves an account to its person once, where a decision
 * enters `gateway.decide()`, and where a request is filed; the checks downstream compare person ids only.
 *
 * @remarks Deliberately left out: I/O on the hot path. Every method here answers from memory in O(1) (or O(size of
 * the answer)); email look-ups against Slack or Feishu run in the background ({@link EmailResolver}) and land in the
 * directory when they finish. Nor does the directory decide who may approve a request: it only names people.
 */
import type { Away } from './away.js';

/** A person of the directory. */
export interface Person {
  /** `[a-z0-9._-]+`, unique. */
  id: string;
  name: string | null;
  email: string | null;
  /**
   * The person's accounts by channel name (`{ slack: 'U0ALICE', web: 'alice' }`), as configured or resolved from the
   * email. Any channel name is allowed, so a new adapter needs no change here.
   */
  accounts: Record<string, string>;
  /** Channels whose account was looked up by email and not found (channel → why), shown by `tollgate people show`. */
  unresolved?: Record<string, string>;
  /** The away window the config file gives (`people[].away`); the database's, when one was set, overrides it. */
  away?: Away;
}

/** A group: its id and its members, flattened to people ids (nested groups expanded, each person once). */
export interface Group {
  id: string;
  /** Direct members as written: people ids and `group:<id>`. */
  members: string[];
  /** Every person in the group, nested groups included. */
  people: string[];
}

/** What an approver reference (`person:alice`, `group:leads`, `email:a@x`, `slack:U1`) stands for. */
export type ApproverReference =
  | { kind: 'person'; id: string }
  | { kind: 'group'; id: string }
  | { kind: 'account'; account: string }
  | { kind: 'wildcard'; channel: string };

/** People and groups, answered from memory. */
export interface Directory {
  /** Every configured person, in configuration order. */
  people(): readonly Person[];
  /** Every group, in configuration order. */
  groups(): readonly Group[];
  person(id: string): Person | null;
  group(id: string): Group | null;
  /**
   * The person id behind an account (`slack:U0ALICE` → `alice`; `email:alice@example.com` → `alice`). An account the
   * directory does not know is a person of its own: its id is the account itself, so configurations written before
   * the directory keep their meaning.
   */
  personOf(account: string): string;
  /** The groups a person belongs to, directly or through nested groups. */
  groupsOf(personId: string): readonly string[];
  /**
   * The people one of whose accounts is `id` on some channel, written without the channel (`U0ALICE` → `['alice']`):
   * how a bare `user_id` is matched to a person. More than one: the id is ambiguous (one person's Slack id is
   * another's Discord id).
   */
  holdersOf(id: string): readonly string[];
  /**
   * Whether `reference` names something that exists: `person:`/`group:` ids must be configured; accounts, emails and
   * wildcards (`slack:*`) always exist. Returns the parsed reference, or null when the id is unknown.
   */
  reference(reference: string): ApproverReference | null;
}
