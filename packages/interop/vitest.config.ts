import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { name: 'interop', environment: 'node', include: ['src/**/*.test.ts'] },
});
