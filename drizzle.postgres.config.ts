import { defineConfig } from 'drizzle-kit';

// PostgreSQL: `npx drizzle-kit generate --config drizzle.postgres.config.ts` (SQLite's is drizzle.config.ts).
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/stores/postgres/schema.ts',
  out: './migrations/postgres',
});
