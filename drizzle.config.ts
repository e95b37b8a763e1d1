import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  schema: './src/stores/sqlite/schema.ts',
  out: './migrations/sqlite',
});
