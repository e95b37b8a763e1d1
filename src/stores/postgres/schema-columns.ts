/**
 * @module stores/postgres/schema-columns
 * The column builder the PostgreSQL schema's files share, so every time column has one type.
 */
import { timestamp } from 'drizzle-orm/pg-core';

/** A `timestamptz(3)` read and written as a JS `Date`. */
export const at = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });
