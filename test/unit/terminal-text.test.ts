/**
 * The one terminal-safe text function, character by character: every C0 control but tab and newline, DEL, every C1
 * control and the bidi controls go; everything printable stays; JSON keeps its meaning.
 */
import { describe, expect, it } from 'vitest';
import { terminalJson, terminalText } from '../../src/utils/terminal-text.js';

const BIDI = [0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069];
const removed = [
  ...Array.from({ length: 0xa0 }, (_, c) => c).filter((c) => (c < 0x20 && c !== 0x09 && c !== 0x0a) || c >= 0x7f),
  ...BIDI,
];

describe('terminalText', () => {
  it('removes every control character but tab and newline, and keeps the text around it', () => {
    for (const code of removed)
      expect(terminalText(`a${String.fromCharCode(code)}b`), `U+${code.toString(16)}`).toBe('ab');
    expect(terminalText('a\tb\nc')).toBe('a\tb\nc');
  });

  it('keeps every printable character, including non-Latin text and emoji', () => {
    const printable = `${Array.from({ length: 0x5f }, (_, i) => String.fromCharCode(0x20 + i)).join('')} é ß 日本 ✅ 👩‍💻 ¡\u00a0`;
    expect(terminalText(printable)).toBe(printable);
  });

  it("leaves an escape sequence's parameters visible, so nothing written inside one is hidden", () => {
    expect(terminalText('pay\x1b[2K\rread_docs')).toBe('pay[2Kread_docs');
    expect(terminalText('\x1b]0;wire 5000000\x07ok')).toBe(']0;wire 5000000ok');
    expect(terminalText('\u009b8mhidden')).toBe('8mhidden');
  });

  it('folds line breaks into one space for a value printed inside one line', () => {
    expect(terminalText('pay\n          fake row\r\n', { oneLine: true })).toBe('pay fake row ');
  });
});

describe('terminalJson', () => {
  it('escapes what JSON.stringify leaves raw, and parses back to the same value', () => {
    const value = { tool: 'pay\x1b[2K\rread_docs', 'to\u009b8m': 'x\x7f\u202e\u0085', n: 1 };
    const json = terminalJson(JSON.stringify(value));
    // eslint-disable-next-line no-control-regex -- the characters that must not be left raw
    expect(json).not.toMatch(/[\x00-\x1f\x7f-\x9f\u202e]/);
    expect(json).toContain('"to\\u009b8m":"x\\u007f\\u202e\\u0085"');
    expect(JSON.parse(json)).toEqual(value);
    const pretty = terminalJson(JSON.stringify(value, null, 2));
    expect(JSON.parse(pretty)).toEqual(value);
    expect(pretty.split('\n').length).toBe(5);
  });
});
