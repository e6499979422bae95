// npm run bench:codegen — codegen of a synthetic 500-tool catalog: wall time and peak memory,
// with the loader alone (parse + checks, no TypeScript output) as the same-run baseline.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { runCodegen } from "../codegen/codegen.js";
import { loadToolsFile } from "../codegen/toolsyaml/index.js";

const toolCount = Number(process.env["TOOLS"] ?? 500);
const effects = ["read", "reversible_write", "external_write", "destructive"] as const;

function syntheticCatalog(n: number): string {
  const lines = ["version: 1", "tools:"];
  for (let i = 0; i < n; i++) {
    const effect = effects[i % effects.length];
    lines.push(
      `  tool_${i}:`,
      `    description: Synthetic tool number ${i}.`,
      `    effect: ${effect}`,
      "    input:",
      "      type: object",
      "      additionalProperties: false",
      "      required: [resource_id, amount]",
      "      properties:",
      '        resource_id: { type: string, pattern: "^r_[a-z0-9]+$" }',
      "        amount: { type: integer, minimum: 1 }",
      "        labels: { type: array, items: { type: string, maxLength: 20 } }",
      "    output:",
      "      type: object",
      "      required: [resource_id, state]",
      "      properties:",
      "        resource_id: { type: string }",
      "        state: { type: string, enum: [ok, pending] }",
      "    failures: { not_found: permanent, busy: { class: retryable, retry_after_ms: 100 } }",
    );
    if (effect !== "read") lines.push("    idempotency: { fingerprint: [resource_id, amount] }");
  }
  return `${lines.join("\n")}\n`;
}

let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 5);
const dir = mkdtempSync(join(tmpdir(), "toolgate-bench-codegen-"));
try {
  const config = join(dir, "tools.yaml");
  writeFileSync(config, syntheticCatalog(toolCount));
  const t0 = performance.now();
  const loaded = loadToolsFile(config);
  const loaderMs = performance.now() - t0;
  if (loaded.errors.length > 0) throw new Error(`synthetic catalog rejected: ${loaded.errors[0]?.message}`);
  const rssBefore = process.memoryUsage().rss;
  const t1 = performance.now();
  const result = await runCodegen({ config, out: join(dir, "generated"), check: false });
  const codegenMs = performance.now() - t1;
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  if (result.kind !== "written") throw new Error(`codegen failed: ${result.kind}`);
  const mb = (b: number) => (b / 1024 / 1024).toFixed(1);
  console.log(`codegen of ${toolCount} tools (command: npm run bench:codegen)`);
  console.log(`  loader only (baseline):  ${loaderMs.toFixed(0)} ms`);
  console.log(`  full codegen:            ${codegenMs.toFixed(0)} ms  (${(codegenMs / toolCount).toFixed(2)} ms/tool, ${(codegenMs / loaderMs).toFixed(1)}x the loader)`);
  console.log(`  peak RSS:                ${mb(peakRss)} MiB (RSS before codegen ${mb(rssBefore)} MiB)`);
} finally {
  clearInterval(sampler);
  rmSync(dir, { recursive: true, force: true });
}
