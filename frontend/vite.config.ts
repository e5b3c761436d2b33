import { defineConfig } from 'vitest/config';
import { loadEnv } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

export default defineConfig(({ mode }) => {
  // `npm run dev` proxies /api to a running `clawboo serve` (CLAWBOO_URL,
  // else the default port). The backend refuses state-changing requests
  // whose Origin is not its own, so the proxy presents the backend's origin.
  const backend = loadEnv(mode, '.', 'CLAWBOO_').CLAWBOO_URL ?? 'http://127.0.0.1:18790';
  return {
    plugins: [svelte()],
    // Absolute asset URLs: the SPA fallback serves index.html at any path.
    base: '/',
    build: {
      outDir: 'dist',
      // Keep dist/.gitkeep (go:embed needs the folder); scripts/clean-dist.mjs
      // empties the rest before each build.
      emptyOutDir: false,
      target: 'es2022',
      sourcemap: false,
    },
    server: {
      proxy: {
        '/api': { target: backend, changeOrigin: true, headers: { origin: backend } },
      },
    },
    test: {
      include: ['src/**/*.test.ts'],
      environment: 'node',
    },
  };
});
