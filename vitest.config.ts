import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (file: string): string => fileURLToPath(new URL(`./src/${file}`, import.meta.url));

export default defineConfig({
  // The package's own entries resolve to the sources, never to a possibly stale dist/.
  resolve: {
    alias: [
      { find: /^toolgate$/, replacement: src("index.ts") },
      { find: /^toolgate\/testing$/, replacement: src("testing/index.ts") },
      { find: /^toolgate\/vitest$/, replacement: src("testing/vitest.ts") },
      { find: /^toolgate\/generated-runtime$/, replacement: src("generated-runtime.ts") },
    ],
  },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
