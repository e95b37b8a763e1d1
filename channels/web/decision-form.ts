/**
 * @module channels/web/decision-form
 * Reads a posted decision form. Edited arguments must be a JSON object; the editor shows secret-looking values
 * masked (`••••`), whole values and secrets inside strings alike (a token in a shell command, a password in a URL).
 * A value left as the editor showed it keeps its original, so approvers can edit around secrets without ever seeing
 * them; a mask is never written back: an edited string that still holds one is refused, naming its field.
 */
import { jsonDepth, MAX_JSON_DEPTH, prototypeKeyPath } from '../../src/utils/json-bounds.js';
import { formatPath } from '../../src/api/validation.js';
import { boundedJson, maskSecretsShown, type JsonView, type JsonViewLimits } from '../../src/utils/json-view.js';
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

/** What the editor is prefilled with: pretty, masked line by line; arguments that do not fit cannot be edited (they would be cut). */
export const EDITABLE: JsonViewLimits = {
  maxDepth: MAX_JSON_DEPTH,
  maxChars: MAX_EDITED_ARGS_CHARS,
  indent: 2,
  maskLines: true,
};

/** The editor's text for `args` ({@link EDITABLE}). */
export function editorText(args: Record<string, unknown>): JsonView {
  return boundedJson(args, EDITABLE);
}

/** The value the editor showed for `args`: its text read back (the same masking, to the character). */
function editorValue(args: Record<string, unknown>): unknown {
  const view = editorText(args);
  return view.truncated ? maskSecretsShown(args) : JSON.parse(view.text);
}

/** Edited arguments with the originals put back, or the path of a value that still holds a mask. */
export type Restored = { ok: true; value: unknown } | { ok: false; path: (string | number)[] };

/**
 * Puts original values back where the edited tree still holds a value exactly as the editor showed it (`shown`, by
 * default what {@link editorText} shows of `original`): an untouched `••••`, or an untouched command whose token was
 * masked. Any other string that holds `••••` is refused: the approver changed a value around a hidden secret (or moved
 * a mask elsewhere), and the mask cannot be turned back into the secret, nor may it run as the argument.
 */
export function restoreMasked(edited: unknown, original: unknown, shown: unknown = maskedOf(original)): Restored {
  const path: (string | number)[] = [];
  const walk = (e: unknown, o: unknown, m: unknown): unknown => {
    if (typeof e === 'string') {
      if (o !== undefined && e === m) return o;
      if (e.includes(MASK)) throw new MaskLeft();
      return e;
    }
    if (Array.isArray(e))
      return e.map((v, i) => {
        path.push(i);
        const out = walk(v, Array.isArray(o) ? o[i] : undefined, Array.isArray(m) ? m[i] : undefined);
        path.pop();
        return out;
      });
    if (isRecord(e))
      return Object.fromEntries(
        Object.entries(e).map(([k, v]) => {
          path.push(k);
          const out = walk(v, isRecord(o) ? o[k] : undefined, isRecord(m) ? m[k] : undefined);
          path.pop();
          return [k, out];
        }),
      );
    return e;
  };
  try {
    return { ok: true, value: walk(edited, original, shown) };
  } catch (error) {
    if (error instanceof MaskLeft) return { ok: false, path: [...path] };
    throw error;
  }
}

class MaskLeft extends Error {}

const maskedOf = (original: unknown): unknown =>
  isRecord(original) ? editorValue(original) : maskSecretsShown(original);

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
  const restored = restoreMasked(parsed, original);
  if (!restored.ok)
    return {
      ok: false,
      error: `${formatPath('approved_args', restored.path)} still holds a masked secret (••••): leave that value exactly as shown to keep the original, or replace it whole.`,
    };
  return { ok: true, args: restored.value as Record<string, unknown> };
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
