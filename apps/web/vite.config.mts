import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  resolve: {
    alias: {
      // The catalogue's TypeScript source, which the bundler reads as ESM; contracts' build is CommonJS.
      '@teapot/contracts/catalogue': fileURLToPath(
        new URL('../../packages/contracts/src/catalogue.ts', import.meta.url),
      ),
    },
  },
  // bundles under /static: /assets is the API's (uploaded datasets), served from the same origin
  build: {
    outDir: 'dist',
    assetsDir: 'static',
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 200,
  },
});
