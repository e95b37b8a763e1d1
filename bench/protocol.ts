/**
 * @module bench/protocol
 * Messages between the orchestrator and the load-client process.
 */

/** Questions a client task may ask the orchestrator about the server under load. */
export type AskWhat = 'idle' | 'rss' | 'mark' | 'card' | 'mail' | 'event' | 'push';

/**
 * Asks the orchestrator; `idle` waits until the server process is idle (resolves true, or false on timeout), `rss`
 * returns its RSS in MB, `mark` records a named point (CPU time so far), `card` returns what the scenario needs to tap
 * a request's card (e.g. the fake Slack card, or a tap prepared from the card a channel's fake received), `mail` when
 * the SMTP server received a request's mail, `event` when the event stream's receiver got a request's `created` event,
 * `push` when the push service received the first message about a request.
 */
export type Ask = (what: AskWhat, payload?: unknown) => Promise<unknown>;

/** A scenario's client-side part: runs in the load-client process, returns JSON-able figures. */
export type ClientTask = (params: Record<string, unknown>, ask: Ask) => Promise<unknown>;

/** Orchestrator → load client. */
export type ParentMessage =
  | { kind: 'run'; id: number; scenario: string; task: string; params: Record<string, unknown> }
  | { kind: 'answer'; id: number; value: unknown }
  | { kind: 'exit' };

/** Load client → orchestrator. */
export type ChildMessage =
  | { kind: 'ready' }
  | { kind: 'result'; id: number; value: unknown }
  | { kind: 'error'; id: number; message: string }
  | { kind: 'ask'; id: number; what: AskWhat; payload?: unknown };
