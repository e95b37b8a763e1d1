/**
 * @module channels/web/decision-form
 * Reads a posted decision form. Edited arguments must be a JSON object; the editor shows secret-looking values
 * masked (`••••`), and a mask left in place keeps the original value, so approvers can edit around secrets without
 * ever seeing them.
 */
import { jsonDepth, MAX_JSON_DEPTH, prototypeKeyPath } from '../../src/utils/json-bounds.js';
import { formatPath } from '../../src/api/validation.js';
import { maskSecrets } from '../../src/channel/card.js';
import type { Decision } from '../../src/requests/types.js';
import { describeError } from '../../src/api/errors.js';

const MASK = '••••';
/** Edited arguments longer than this are refused (the API's body limit is 256 kB). */
export const MAX_EDITED_ARGS_CHARS = 200_000;

/** A decision form, read. */
export type DecisionForm =
  | {
      ok: true;
      decision: Decision;
      nonce: string;
      argsSha256?: string;
      reason?: string;
      approvedArgs?: Record<string, unknown>;
      /** The label of the grant button pressed ("Approve for 1 hour"). */
      grant?: string;
    }
  | { ok: false; error: string; field: string; editText?: string };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Puts original values back where the edited tree still holds the mask the editor showed for them. */
export function restoreMasked(edited: unknown, original: unknown, masked: unknown = maskSecrets(original)): unknown {
  if (edited === MASK) return masked === MASK && original !== undefined ? original : edited;
  if (Array.isArray(edited)) {
    return edited.map((v, i) =>
      restoreMasked(
        v,
        Array.isArray(original) ? original[i] : undefined,
        Array.isArray(masked) ? masked[i] : undefined,
      ),
    );
  }
  if (isRecord(edited)) {
    return Object.fromEntries(
      Object.entries(edited).map(([k, v]) => [
        k,
        restoreMasked(v, isRecord(original) ? original[k] : undefined, isRecord(masked) ? masked[k] : undefined),
      ]),
    );
  }
  return edited;
}

/** Parses the text of the arguments editor against the request's original arguments. */
export function parseEditedArgs(
  text: string,
  original: Record<string, unknown>,
): { ok: true; args: Record<string, unknown> } | { ok: false; error: string } {
  if (text.length > MAX_EDITED_ARGS_CHARS)
    return { ok: false, error: `The arguments are longer than ${MAX_EDITED_ARGS_CHARS} characters.` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `The arguments are not valid JSON: ${describeError(error)}` };
  }
  if (!isRecord(parsed))
    return { ok: false, error: 'The arguments must be a JSON object ({ … }), like the ones proposed.' };
  if (jsonDepth(parsed) > MAX_JSON_DEPTH)
    return { ok: false, error: `The arguments are nested deeper than ${MAX_JSON_DEPTH} levels.` };
  const bad = prototypeKeyPath(parsed);
  if (bad)
    return {
      ok: false,
      error: `The arguments may not use the key "${String(bad.at(-1))}" (at ${formatPath('', bad)}).`,
    };
  return { ok: true, args: restoreMasked(parsed, original) as Record<string, unknown> };
}

/** Reads a posted decision form (urlencoded body). */
export function readDecisionForm(body: Record<string, unknown>, originalArgs: Record<string, unknown>): DecisionForm {
  const text = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : undefined);
  // A grant button sits in the one decision form beside Approve and Deny, and a button posts one name: its own.
  const decision = text('decision') ?? (text('grant') ? 'approve' : undefined);
  if (decision !== 'approve' && decision !== 'deny')
    return { ok: false, field: 'decision', error: 'decision must be approve or deny' };
  const nonce = text('nonce');
  if (!nonce) return { ok: false, field: 'nonce', error: 'the form has no nonce; reload the page' };
  const argsSha256 = text('args_sha256') || undefined;
  if (argsSha256 !== undefined && !/^[0-9a-f]{64}$/.test(argsSha256))
    return { ok: false, field: 'args_sha256', error: 'args_sha256 is not a SHA-256 hex digest' };
  const reason = text('reason')?.trim() || undefined;
  if (reason && reason.length > 2000)
    return { ok: false, field: 'reason', error: 'the reason is longer than 2000 characters' };
  const grant = text('grant') || undefined;
  if (grant !== undefined && decision !== 'approve')
    return { ok: false, field: 'grant', error: 'a grant goes with an approval only' };
  if (text('edit') !== '1') return { ok: true, decision, nonce, argsSha256, reason, grant };
  if (decision !== 'approve')
    return { ok: false, field: 'decision', error: 'edited arguments go with an approval only' };
  const editText = text('approved_args') ?? '';
  const edited = parseEditedArgs(editText, originalArgs);
  if (!edited.ok) return { ok: false, field: 'approved_args', error: edited.error, editText };
  return { ok: true, decision, nonce, argsSha256, reason, approvedArgs: edited.args };
}
