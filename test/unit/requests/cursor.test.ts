import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/api/errors.js';
import { decodeCursor, encodeCursor, InvalidCursorError } from '../../../src/requests/cursor.js';

describe('audit cursor', () => {
  it('reads back the position it encodes', () => {
    const createdAt = new Date('2026-03-01T12:00:00.123Z');
    expect(decodeCursor(encodeCursor(createdAt, '019ca945-2558-7021-896a-c2c0d2fb7767'))).toEqual({
      createdAt: '2026-03-01T12:00:00.123Z',
      id: '019ca945-2558-7021-896a-c2c0d2fb7767',
    });
  });

  it.each([
    ['empty', ''],
    ['not base64 of a position', 'bm9wZQ'],
    ['no id', Buffer.from('2026-03-01T12:00:00.000Z|').toString('base64url')],
    ['a date that is not one', Buffer.from('yesterday|abc').toString('base64url')],
    ['an extra field', Buffer.from('2026-03-01T12:00:00.000Z|abc|x').toString('base64url')],
  ])('refuses %s as a 400 naming cursor', (_name, cursor) => {
    let error: unknown;
    try {
      decodeCursor(cursor);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidCursorError);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ status: 400, errors: [{ path: 'cursor', message: 'not one this server issued' }] });
  });
});
