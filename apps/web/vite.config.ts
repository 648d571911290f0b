import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The app is served by the API server from apps/web/dist at '/', and can also be loaded as a micro-app by a
// host page (see src/micro-app.ts); the base path inside a host is given at mount time, not at build time.
export default defineConfig({
  // where the built assets are served from; a host on another origin builds with WEB_PUBLIC_PATH=https://…/
  base: process.env.WEB_PUBLIC_PATH ?? '/',
  plugins: [react()],
  define: {
    __APP_VERSION__: JSON.stringify(process.env.npm_package_version ?? '0.1.0'),
    __BUILD_TIME__: JSON.stringify(new Date().toISOString()),
  },
  server: {
    port: 5173,
    proxy: { '/api': { target: `http://localhost:${process.env.API_PORT ?? 8080}`, changeOrigin: true } },
  },
  build: {
    target: 'es2022',
    sourcemap: false,
    chunkSizeWarningLimit: 900,
    manifest: true,
    rollupOptions: {
      // @esource/shared is pure (constants, enums, rules, zod schemas): what the web does not use — the zod
      // schemas — must not end up in the bundle just because its modules are not marked side-effect free.
      treeshake: { moduleSideEffects: (id: string) => !/[\\/]packages[\\/]shared[\\/]/.test(id) },
    },
  },
});
