/**
 * @module channel/card
 * The one place that decides what a card says. Channel adapters turn a {@link CardText} into Block Kit, Feishu card
 * JSON or HTML; none of them words anything on its own. Tool arguments are attacker-controlled: they are shown
 * pretty-printed, truncated, and with secret-looking values masked.
 */
import { MAX_JSON_DEPTH, jsonDepth } from '../utils/json-bounds.js';
import { boundedJson, maskSecretsInLine, maskSecretsShown } from '../utils/json-view.js';
import { agentSentence } from '../requests/agent-kinds.js';
import type { ConfirmationRequest } from '../requests/types.js';
import { standInText, type StandIn } from '../people/away.js';
import { utcText } from '../utils/utc-time.js';
import { summaryView, type SummaryLimits, type SummaryView, type SummaryWords } from './card-summary.js';

export { maskSecrets } from '../utils/json-view.js';

/** Everything a card shows, already worded. */
export interface CardText {
  /** `Approval needed: pay_invoice` / `Approved: pay_invoice`. */
  title: string;
  /** The runtime's question, or a sentence made from the tool name. */
  prompt: string;
  toolName: string;
  /** Pretty JSON of the arguments, secrets masked, at most `maxArgsChars` characters. */
  argsPreview: string;
  /** `agent ops-bot for user U0123`, or null when nobody is named. */
  requester: string | null;
  /** ISO time of expiry. */
  expiresAt: string;
  /** `Anyone who sees this card`, or the allowlist. */
  approvers: string;
  /** `Waiting for 1 of 2 approvals`, or the outcome sentence once final. */
  status: string;
  /** True while buttons should be shown. */
  actionable: boolean;
  /** `good` (approved), `bad` (denied/expired-deny/cancelled), `waiting`: adapters pick colours from it. */
  tone: 'good' | 'bad' | 'waiting';
  /** What the call will do and how risky it looks (the request's call summary); null for a row filed before them. */
  summary: SummaryView | null;
  /** The request's web page (the full diff, the raw arguments), when the gateway's public URL is known. */
  link: string | null;
}

/** Wording options. */
export interface CardTextOptions {
  maxArgsChars?: number;
  /** Approvals collected so far, for quorum requests. */
  approvals?: number;
  /** Who stands in for an approver who is away (default: what {@link attachStandIns} attached to the request). */
  standIns?: readonly StandIn[];
  /** How much of the call summary to show (items, diff lines, line length). */
  summaryLimits?: SummaryLimits;
  /** The words around the call summary (default English): a channel that speaks another language passes its own. */
  summaryWords?: SummaryWords;
  /** The gateway's public URL (`TOLLGATE_PUBLIC_URL`): cards link to the request's page under it. */
  publicUrl?: string | null;
}

/**
 * Stand-ins attached to request objects by the gateway as it hands them to a channel, kept beside the row (as verdict
 * tokens are, `requests/serialize.ts`), so every channel's card says who stands in for whom without a new parameter.
 */
const standIns = new WeakMap<ConfirmationRequest, readonly StandIn[]>();

/** Attaches the stand-ins of `request`'s approvers, for {@link cardText} to show; returns the request. */
export function attachStandIns<T extends ConfirmationRequest>(request: T, list: readonly StandIn[]): T {
  if (list.length) standIns.set(request, list);
  return request;
}

/** The stand-ins {@link attachStandIns} attached to `request` (empty when none). */
export function standInsOf(request: ConfirmationRequest): readonly StandIn[] {
  return standIns.get(request) ?? [];
}

/**
 * Pretty JSON of `args`, masked, cut at `max` characters with a note of how much was left out. Arguments nested deeper
 * than the API accepts (rows from before the bound) are written by the bounded walker instead, so a card never costs
 * more than it shows.
 */
export function previewArgs(args: Record<string, unknown>, max = 1500): string {
  if (jsonDepth(args) > MAX_JSON_DEPTH)
    return `${boundedJson(args, { maxDepth: 16, maxChars: max, indent: 2 }).text}\n… (nested deeper than ${MAX_JSON_DEPTH} levels: more characters)`;
  // Masked line by line too: a patch or script argument can hold a secret in one of its lines, as a diff can.
  const text = JSON.stringify(maskSecretsShown(args), null, 2);
  return text.length <= max ? text : `${text.slice(0, max)}\n… (${text.length - max} more characters)`;
}

/**
 * A coding agent's sentence about its call ("Codex wants to run `terraform apply`"), with secrets in the command or
 * path it quotes masked as the arguments are: the sentence sits on every card, above the arguments.
 */
export function agentPrompt(request: ConfirmationRequest): string {
  return maskSecretsInLine(
    agentSentence(request.agentKind ?? 'agent', request.context, request.toolName, request.toolArgs),
  );
}

/** The outcome sentence of a request: who decided, how, when, why. */
export function outcomeText(r: ConfirmationRequest): string {
  // Written as every page writes times, not as the API's ISO text: people read this sentence.
  const when = r.respondedAt ? ` at ${utcText(r.respondedAt)}` : '';
  const why = r.reason ? ` — "${r.reason}"` : '';
  switch (r.status) {
    case 'pending':
      return r.requiredApprovals > 1 ? `Waiting for ${r.requiredApprovals} approvals` : 'Waiting for a decision';
    case 'approved':
      return `Approved by ${r.respondedBy}${r.onBehalfOf ? ` for ${r.onBehalfOf}` : ''}${when}${r.approvedArgs ? ' (with edited arguments)' : ''}${why}`;
    case 'denied':
      return `Denied by ${r.respondedBy}${r.onBehalfOf ? ` for ${r.onBehalfOf}` : ''}${when}${why}`;
    case 'expired':
      return r.onTimeout === 'approve' ? `Expired${when} — approved by default` : `Expired${when} — denied by default`;
    case 'cancelled':
      return `Cancelled by ${r.respondedBy ?? 'the requester'}${when}${why}`;
  }
}

/**
 * Words a card for `request` in its current state.
 * @example const text = cardText(request); // text.title === 'Approval needed: pay_invoice'
 */
export function cardText(request: ConfirmationRequest, options: CardTextOptions = {}): CardText {
  const requester = [request.agentId && `agent ${request.agentId}`, request.userId && `user ${request.userId}`]
    .filter(Boolean)
    .join(' for ');
  const heading: Record<ConfirmationRequest['status'], string> = {
    pending: 'Approval needed',
    approved: 'Approved',
    denied: 'Denied',
    expired: 'Expired',
    cancelled: 'Cancelled',
  };
  let status = outcomeText(request);
  if (request.status === 'pending' && request.requiredApprovals > 1 && options.approvals !== undefined) {
    status = `Waiting for approvals: ${options.approvals} of ${request.requiredApprovals}`;
  }
  return {
    title: `${heading[request.status]}: ${request.toolName}`,
    prompt:
      request.prompt ?? (request.agentKind ? agentPrompt(request) : `The agent wants to run \`${request.toolName}\`.`),
    toolName: request.toolName,
    argsPreview: previewArgs(request.toolArgs, options.maxArgsChars),
    requester: requester || null,
    expiresAt: request.expiresAt.toISOString(),
    approvers: approversLine(request, options.standIns ?? standInsOf(request)),
    status,
    actionable: request.status === 'pending',
    tone: request.status === 'pending' ? 'waiting' : request.allowed ? 'good' : 'bad',
    summary: request.summary ? summaryView(request.summary, options.summaryLimits, options.summaryWords) : null,
    link: options.publicUrl ? requestPageUrl(options.publicUrl, request.id) : null,
  };
}

/** The web page of request `id` under the gateway's public URL. */
export function requestPageUrl(publicUrl: string, id: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/ui/requests/${encodeURIComponent(id)}`;
}

/** Who may decide, and who stands in for whom while pending: `person:alice, person:carol; bob for alice (away until 3 Dec)`. */
function approversLine(request: ConfirmationRequest, list: readonly StandIn[]): string {
  const listed = request.approvers.length ? request.approvers.join(', ') : 'Anyone who sees this card';
  if (request.status !== 'pending' || !list.length) return listed;
  return `${listed}; ${list.map((s) => standInText(s)).join('; ')}`;
}

/** The words of a reminder about a pending request (a policy's `remind_after_s`): what waits, who may decide, until when. */
export function reminderText(request: ConfirmationRequest): string {
  const text = cardText(request);
  return `Reminder: ${text.title} is still waiting. Who may decide: ${text.approvers}. Expires ${text.expiresAt}.`;
}

/** Argument names that usually say what a call does, shown first among a card's key arguments. */
const TELLING_ARGS =
  /^(command|cmd|script|code|query|sql|statement|amount|currency|payee|recipient|to|from|account|iban|path|file|filename|url|method|host|branch|repo|repository|target|action|name|id)$/i;

/**
 * The arguments worth reading at a glance, as `[name, text]` pairs: the telling ones first (a shell command, an amount
 * and its payee), then the others in order, at most `maxItems`, each value masked like a card's preview and cut at
 * `maxChars`. Only the first hundred names are looked at, so a huge argument object costs no more than a small one.
 * @example keyArguments({ command: 'rm -rf /tmp/x', api_key: 'sk-1' }) // [['command', 'rm -rf /tmp/x'], ['api_key', '••••']]
 */
export function keyArguments(args: Record<string, unknown>, maxItems = 4, maxChars = 120): [string, string][] {
  const names: string[] = [];
  for (const name in args) {
    if (names.push(name) >= 100) break;
  }
  const ordered = [...names.filter((n) => TELLING_ARGS.test(n)), ...names.filter((n) => !TELLING_ARGS.test(n))].slice(
    0,
    maxItems,
  );
  return ordered.map((name) => {
    const value = args[name];
    const text =
      typeof value === 'string'
        ? String(maskSecretsShown(value, name))
        : boundedJson(value, { maxDepth: 3, maxChars, indent: 0 }, name).text;
    // Cut before collapsing whitespace: a megabyte-long string costs no more than a short one.
    const oneLine = text.slice(0, maxChars * 4).replace(/\s+/g, ' ');
    return [name, oneLine.length > maxChars ? `${oneLine.slice(0, maxChars - 1)}…` : oneLine];
  });
}
