import { defineConfig } from 'vitest/config';

export default defineConfig({
  // one OCR engine per test file; each recognition costs seconds of CPU on a shared 2-core machine
  test: { name: 'ocr', environment: 'node', include: ['src/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 120_000 },
});
