/**
 * @module telemetry/request-spans
 * The spans of a request's life, one function per step, so the gateway and its jobs each wrap a step in one line:
 * filing (under the caller's `traceparent`), the policy's ruling, each card sent or updated, the decision, the
 * wake-up of waiters and the expiry. Later steps join the create span's trace through {@link RequestTraces}.
 */
import type { DecideOutcome, DecisionEvent } from '../channel/channel.js';
import type { ConfirmationRequest } from '../requests/types.js';
import { ATTR, markSpan, SPAN, traced, type RequestTraces } from './tracing.js';

/** Traces filing a request: `file` runs inside the create span (the caller's active span, if any, is its parent). */
export function traceCreate<T extends { request: ConfirmationRequest; created: boolean }>(
  input: { toolName: string; agentId?: string | null },
  file: () => Promise<T>,
): Promise<T> {
  const attributes = input.agentId
    ? { [ATTR.tool]: input.toolName, [ATTR.agent]: input.agentId }
    : { [ATTR.tool]: input.toolName };
  return traced(SPAN.create, attributes, {}, async (span) => {
    const result = await file();
    span.setAttributes({
      [ATTR.requestId]: result.request.id,
      [ATTR.status]: result.request.status,
      [ATTR.created]: result.created,
    });
    return result;
  });
}

/** What the policy span reads of a ruling (structural, so this file does not import the policy). */
interface RulingLike {
  rule: { name: string; decision?: string };
  settlement: { via?: string } | null;
}

/** Traces the policy's ruling on a filing: which rule matched and what it decided (`allow`, `deny`, `ask`, `grant`). */
export function tracePolicy<T extends RulingLike>(rule: () => Promise<T>): Promise<T> {
  return traced(SPAN.policy, {}, {}, async (span) => {
    const ruling = await rule();
    span.setAttributes({
      [ATTR.rule]: ruling.rule.name,
      [ATTR.ruling]: ruling.settlement?.via === 'grant' ? 'grant' : (ruling.rule.decision ?? 'ask'),
    });
    return ruling;
  });
}

/** Traces one card sent (`deliver`) or brought up to date (`update`) by a channel, under the request's create span. */
export function traceCard<T>(
  traces: RequestTraces,
  step: 'deliver' | 'update',
  card: { requestId: string; channel: string; target: string; attempt: number },
  send: () => Promise<T>,
): Promise<T> {
  const attributes = {
    [ATTR.requestId]: card.requestId,
    [ATTR.channel]: card.channel,
    [ATTR.target]: card.target,
    [ATTR.attempt]: card.attempt,
  };
  return traced(SPAN[step], attributes, traces.jobPlace(card.requestId), () => send());
}

/** Traces a decision from any channel, and says how it ended (`final`, `recorded`, or the rejection's code). */
export function traceDecision(
  traces: RequestTraces,
  event: DecisionEvent,
  decide: () => Promise<DecideOutcome>,
): Promise<DecideOutcome> {
  const attributes = {
    [ATTR.requestId]: event.requestId,
    [ATTR.decision]: event.decision,
    [ATTR.channel]: event.via ?? event.actor.channel,
  };
  return traced(SPAN.decide, attributes, traces.callerPlace(event.requestId), async (span) => {
    const outcome = await decide();
    span.setAttribute(ATTR.outcome, outcome.ok ? (outcome.final ? 'final' : 'recorded') : outcome.code);
    if (outcome.request) span.setAttribute(ATTR.status, outcome.request.status);
    return outcome;
  });
}

/** Traces the fan-out of a request the due-scan expired (waiters, cards, callback), under its create span. */
export function traceExpiry(
  traces: RequestTraces,
  request: ConfirmationRequest,
  fanOut: () => Promise<void>,
): Promise<void> {
  const attributes = {
    [ATTR.requestId]: request.id,
    [ATTR.status]: request.status,
    [ATTR.onTimeout]: request.onTimeout,
  };
  return traced(SPAN.expire, attributes, traces.jobPlace(request.id), fanOut);
}

/** Marks the moment `count` waiters of a request (long-polls, SSE streams in this process) were woken. */
export function traceWake(traces: RequestTraces, requestId: string, count: number): void {
  if (count > 0)
    markSpan(SPAN.wake, { [ATTR.requestId]: requestId, [ATTR.waiters]: count }, traces.callerPlace(requestId));
}
