import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

export default defineConfig({
  plugins: [react()],
  define: {
    __APP_VERSION__: JSON.stringify('0.0.0-test'),
    __BUILD_TIME__: JSON.stringify('2026-01-01T00:00:00.000Z'),
  },
  // the OpenTelemetry exporter picks its transport by the package.json "browser" field: test the browser one
  resolve: { mainFields: ['browser', 'module', 'jsnext:main', 'jsnext'] },
  test: {
    name: 'web',
    server: { deps: { inline: [/@opentelemetry/] } },
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}', 'test/**/*.test.{ts,tsx}'],
    setupFiles: ['./test/setup.ts'],
    testTimeout: 20_000,
  },
});
