import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  schema: './src/requests/sqlite/schema.ts',
  out: './migrations/sqlite',
});
