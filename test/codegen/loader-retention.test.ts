import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCodegen } from "../../codegen/codegen.js";
import { loadToolsSource } from "../../codegen/toolsyaml/index.js";

/** A valid write tool; `extra` adds lines to the tool, `idem` replaces its idempotency block. */
const writeTool = (extra = "", idem = "    idempotency: { fingerprint: [account_id] }\n") => `version: 1
tools:
  reserve_funds:
    description: Hold funds.
    effect: reversible_write
    input:
      type: object
      additionalProperties: false
      properties:
        account_id: { type: string }
    output: { type: object }
${idem}${extra}`;

const found = (source: string) => {
  const { loaded, errors, warnings } = loadToolsSource(source, "tools.yaml");
  return { loaded, errors: errors.map((e) => `${e.code}@${e.location.row}:${e.location.col}`), warnings, all: errors };
};

describe("retention is checked against approval TTL and the claim", () => {
  it("rejects retention shorter than approval.ttl, located at the retention", () => {
    const r = found(writeTool("    approval: { ttl: 15m }\n    timeout_ms: 100\n", "    idempotency: { fingerprint: [account_id], retention: 10m }\n"));
    expect(r.loaded).toBeNull();
    expect(r.errors).toEqual(["retention_shorter_than_approval_ttl@12:58"]);
    expect(r.all[0]?.hint).toContain("at least 15m");
  });

  it("rejects a 500ms retention beside a 15m approval: both the TTL and the lease are longer", () => {
    const r = found(writeTool("    approval: { ttl: 15m }\n", "    idempotency: { fingerprint: [account_id], retention: 500ms }\n"));
    expect(r.errors).toEqual(["retention_shorter_than_approval_ttl@12:58", "retention_shorter_than_lease@12:58"]);
  });

  it("rejects retention shorter than timeout_ms + the lease margin", () => {
    const r = found(writeTool("    approval: { ttl: 1s }\n    timeout_ms: 8000\n", "    idempotency: { fingerprint: [account_id], retention: 10s }\n"));
    expect(r.errors).toEqual(["retention_shorter_than_lease@12:58"]);
    expect(r.all[0]?.message).toContain("8000 + 5000 ms");
  });

  it("checks the default retention too, located at the idempotency block", () => {
    const r = found(writeTool("    approval: { ttl: 2d }\n"));
    expect(r.errors).toEqual(["retention_shorter_than_approval_ttl@12:18"]);
    expect(r.all[0]?.message).toContain("default retention 24h");
  });

  it("accepts retention that covers both", () => {
    const r = found(writeTool("    approval: { ttl: 15m }\n    timeout_ms: 8000\n", "    idempotency: { fingerprint: [account_id], retention: 15m }\n"));
    expect(r.errors).toEqual([]);
    expect(r.loaded?.manifest.tools["reserve_funds"]?.retention_ms).toBe(900_000);
  });
});

describe("retry budget defaults and warnings", () => {
  const retryable = "    failures: { ledger_down: { class: retryable, retry_after_ms: 30000 }, gone: permanent }\n";

  it("a tool with retryable failures gets 3 attempts by default; without them, 1", () => {
    expect(found(writeTool(retryable)).loaded?.manifest.tools["reserve_funds"]?.retry.max_attempts).toBe(3);
    expect(found(writeTool("    failures: { gone: permanent }\n")).loaded?.manifest.tools["reserve_funds"]?.retry.max_attempts).toBe(1);
  });

  it("warns, without failing, when a tool declares retryable failures with max_attempts: 1", () => {
    const r = found(writeTool(`${retryable}    retry: { max_attempts: 1 }\n`));
    expect(r.errors).toEqual([]);
    expect(r.loaded).not.toBeNull();
    expect(r.warnings.map((w) => `${w.code}@${w.location.row}:${w.location.col}`)).toEqual(["retryable_without_retry@14:28"]);
    expect(r.warnings[0]?.message).toContain("ledger_down");
    expect(found(writeTool(`${retryable}    retry: { max_attempts: 2 }\n`)).warnings).toEqual([]);
  });

  it("codegen writes its output and returns the warnings", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolgate-warn-"));
    try {
      writeFileSync(join(dir, "tools.yaml"), writeTool(`${retryable}    retry: { max_attempts: 1 }\n`));
      const result = await runCodegen({ config: join(dir, "tools.yaml"), out: join(dir, "generated"), check: false });
      expect(result.kind).toBe("written");
      expect(result.warnings.map((w) => w.code)).toEqual(["retryable_without_retry"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("argument size cap", () => {
  it("max_args_bytes reaches the manifest; absent, the runtime's default applies", () => {
    expect(found(writeTool("    max_args_bytes: 4096\n")).loaded?.manifest.tools["reserve_funds"]?.max_args_bytes).toBe(4096);
    expect(found(writeTool()).loaded?.manifest.tools["reserve_funds"]).not.toHaveProperty("max_args_bytes");
  });

  it("rejects a cap that no JSON object fits, located at the value", () => {
    expect(found(writeTool("    max_args_bytes: 1\n")).errors).toEqual(["schema_violation@13:21"]);
  });
});
