import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { name: 'deid', environment: 'node', include: ['src/**/*.test.ts'] },
});
