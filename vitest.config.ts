import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (file: string): string => fileURLToPath(new URL(`./src/${file}`, import.meta.url));

/**
 * Suites that start child processes (the CLI as a server or over stdio, MCP servers, worker pools,
 * crash tests) or the TypeScript compiler, and long runs of CLI commands. A CLI command a suite
 * only runs goes through the in-process `runCli` (test/helpers/cli.ts), never a child process.
 */
const processSuites = [
  "test/adapters/openai-agents.test.ts",
  "test/adapters/starter-types.test.ts",
  "test/approvals/serve-handlers.test.ts",
  "test/codegen/readme-code.test.ts",
  "test/codegen/typed-client.test.ts",
  "test/conformance/fast-subset.test.ts",
  "test/evals/agent-eval.test.ts",
  "test/evals/scripted-agent.test.ts",
  "test/approvals/serve.test.ts",
  "test/approvals/cli.test.ts",
  "test/cli/**/*.test.ts",
  "test/codegen/check-drift.test.ts",
  "test/compiler/cli.test.ts",
  "test/declog/exit-flush.test.ts",
  "test/declog/replay-cli.test.ts",
  "test/explain/cli.test.ts",
  "test/lint/boundaries.test.ts",
  "test/mcp/cli.test.ts",
  "test/mcp/hostile-client.test.ts",
  "test/mcp/conformance*.test.ts",
  "test/mcp/inspector*.test.ts",
  "test/mcp/stdio.test.ts",
  "test/runtime/crash.test.ts",
  "test/runtime/guarantees.test.ts",
  "test/runtime/handler-deadlines.test.ts",
  "test/store/sqlite-checkpoint.test.ts",
  "test/store/sqlite-open-concurrently.test.ts",
  "test/workers/**/*.test.ts",
];
/** Suites that need PostgreSQL (TOOLGATE_PG_URL) for everything they test. */
const postgresSuites = ["test/store/postgres*.test.ts", "test/store/inbox-postgres.test.ts", "test/evals/postgres.test.ts"];
/**
 * In-process suites that need a fresh module graph: they mock a module away, rely on a
 * registry that another suite fills (the Rego parser behind rego.parse_module), or install
 * OpenTelemetry's global context manager. The rest of the unit project shares its workers'
 * module graphs (`isolate: false`), which saves most of its import time.
 */
const isolatedUnitSuites = [
  "test/approvals/webauthn-optional-peer.test.ts",
  "test/builtins/rego-parse-module-missing.test.ts",
  "test/declog/telemetry.test.ts",
  "test/mcp/traceparent.test.ts",
];
/** Suites that drive Chromium. */
const browserSuites = ["test/browser/**/*.test.ts"];

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
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // `npm run test:unit` (the `unit` and `unit-isolated` projects) is the edit-test loop:
    // in-process suites only. Both-stores suites inside it also run on PostgreSQL when
    // TOOLGATE_PG_URL is set.
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          exclude: [...processSuites, ...postgresSuites, ...browserSuites, ...isolatedUnitSuites],
          isolate: false,
        },
      },
      { extends: true, test: { name: "unit-isolated", include: isolatedUnitSuites } },
      { extends: true, test: { name: "process", include: processSuites } },
      { extends: true, test: { name: "postgres", include: postgresSuites } },
      { extends: true, test: { name: "browser", include: browserSuites } },
    ],
  },
});
