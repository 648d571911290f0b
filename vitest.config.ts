import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // two cores; each server test file boots its own embedded PostgreSQL
    maxWorkers: 2,
    projects: ['packages/shared', 'packages/interop', 'packages/deid', 'packages/redact', 'packages/ocr', 'apps/server', 'apps/web'],
  },
});
