// Both engines' *FromFiles loaders read through one reader (readPolicyFiles): the same
// options from the same files, and a file problem is a PolicyLoadError naming the file.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isPolicyLoadError, loadOpaWasmEngineFromFiles, loadPolicyEngineFromFiles, readPolicyFiles } from "../../src/policy/index.js";

const ENTRY = "toolgate/authz/decision";
const dir = mkdtempSync(join(tmpdir(), "toolgate-read-policy-files-"));

async function loadError(load: () => Promise<unknown>): Promise<Error> {
  try {
    await load();
  } catch (err) {
    if (isPolicyLoadError(err)) return err;
    throw err;
  }
  throw new Error("expected a PolicyLoadError");
}

describe("readPolicyFiles", () => {
  it("reads the module bytes and the data document", async () => {
    const opts = await readPolicyFiles({ wasm: "generated/policy.wasm", data: "policies/data.json", entrypoint: ENTRY });
    expect(opts.entrypoint).toBe(ENTRY);
    expect(opts.wasm.byteLength).toBeGreaterThan(1000);
    expect(Object.keys(opts.data ?? {})).toEqual(["toolgate"]);
  });

  for (const [name, load] of [
    ["loadPolicyEngineFromFiles", loadPolicyEngineFromFiles],
    ["loadOpaWasmEngineFromFiles", loadOpaWasmEngineFromFiles],
  ] as const) {
    it(`${name}: a missing module is a PolicyLoadError naming the file`, async () => {
      const missing = join(dir, "absent.wasm");
      const err = await loadError(() => load({ wasm: missing, entrypoint: ENTRY }));
      expect(err.message).toContain(missing);
      expect(err.message).toContain("ENOENT");
    });

    it(`${name}: data that is not JSON is a PolicyLoadError naming the data file`, async () => {
      const bad = join(dir, "bad.json");
      writeFileSync(bad, "{ not json");
      const err = await loadError(() => load({ wasm: "generated/policy.wasm", data: bad, entrypoint: ENTRY }));
      expect(err.message).toContain(`${bad}: not JSON`);
    });

    it(`${name}: a data document that is not an object is a PolicyLoadError`, async () => {
      const arr = join(dir, "array.json");
      writeFileSync(arr, "[1]");
      const err = await loadError(() => load({ wasm: "generated/policy.wasm", data: arr, entrypoint: ENTRY }));
      expect(err.message).toContain(`${arr}: the data document must be a JSON object`);
    });

    it(`${name}: loads the shipped policy and decides`, async () => {
      const engine = await load({ wasm: "generated/policy.wasm", data: "policies/data.json", entrypoint: ENTRY });
      const d = await engine.evaluate({} as never);
      expect(d).toEqual({ allow: false, reason: "input_malformed", requires_approval: false });
    });
  }
});
