/**
 * @module utils/terminal-text
 * The one terminal-safe text function: what an agent wrote (a tool name, a prompt, arguments, a reason) reaches a
 * terminal only without the characters a terminal obeys instead of printing. `"pay\x1b[2K\rread_docs"` would erase the
 * line and show `read_docs`; `\x1b[8m` would hide what follows; U+009B is a one-character `ESC [` on terminals that
 * take C1 controls; a bidi override reverses what follows on terminals that do bidi.
 *
 * @remarks Only the control characters are removed, never the printable text around them: a sequence loses its
 * introducer (ESC, or a C1 character) and its parameters stay visible (`pay[2Kread_docs`), so nothing an agent wrote
 * is hidden from the reader, and the odd characters show that something was tried. Removing whole sequences instead
 * would hide text an attacker put inside one (an OSC title runs to its terminator). Newline and tab are kept.
 * Import-free, so the one-file hook bundle can use it.
 */

/** C0 controls but tab and newline, DEL, C1 controls, and the bidi controls (marks, embeddings, overrides, isolates). */
// eslint-disable-next-line no-control-regex -- matching control characters is what this is for
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Options of {@link terminalText}. */
export interface TerminalTextOptions {
  /** Also fold newlines, tabs and runs of whitespace into one space, for a value printed inside one line. */
  oneLine?: boolean;
}

/**
 * `text` without the characters a terminal would act on (see the module notes); newline and tab kept unless
 * `oneLine`.
 * @example terminalText('pay\x1b[2K\rread_docs') // 'pay[2Kread_docs'
 */
export function terminalText(text: string, options: TerminalTextOptions = {}): string {
  const safe = text.replace(CONTROL, '');
  return options.oneLine ? safe.replace(/\s+/g, ' ') : safe;
}

/**
 * JSON text made terminal-safe without changing what it says: the characters {@link terminalText} removes are written
 * as `\uXXXX` escapes instead (JSON.stringify already escapes C0, but leaves DEL, C1 and bidi controls raw). For
 * `--json` output, NDJSON and argument previews, where the value must parse back exactly. The characters only occur
 * inside JSON strings, so the result is the same JSON.
 * @example terminalJson(JSON.stringify({ to: 'x\u009b8m' })) // '{"to":"x\\u009b8m"}'
 */
export function terminalJson(json: string): string {
  return json.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
