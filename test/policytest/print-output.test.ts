/** `toolgate test --format json`: print() output never mixes into the JSON document. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { formatJson, runPolicyTests } from "../../codegen/policytest/index.js";

describe("print() in policy tests", () => {
  it("print output is kept in the test's result, never written to stdout, so the JSON report is one document", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tg-print-"));
    const file = join(dir, "p_test.rego");
    writeFileSync(file, 'package p\ntest_x if {\n  print("hello", 1)\n  print("second")\n}\ntest_quiet if true\n');
    const spy = vi.spyOn(console, "log");
    const report = await runPolicyTests({ files: [file] });
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
    // OPA's shape: the printed text, base64.
    const doc = JSON.parse(formatJson(report)) as { name: string; output?: string }[];
    expect(Buffer.from(doc.find((r) => r.name === "test_x")?.output ?? "", "base64").toString("utf8")).toBe("hello 1\nsecond\n");
    expect(doc.find((r) => r.name === "test_quiet")).not.toHaveProperty("output");
  });
});
