/**
 * The fast engine's string cache (short strings' cells reused from call to call) may
 * fill up in the middle of writing one input. The cells that input already points at
 * must survive until its evaluation ends: before the fix the region started over at
 * once and later strings of the same input overwrote earlier ones, so after ~500 calls
 * with fresh operation and approval ids an approved write was denied with
 * `approval_fingerprint_mismatch`.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { policyInputs } from "../helpers/policy-inputs.js";
import type { JsonObject } from "../../src/manifest.js";
import type { PolicyInput } from "../../src/policy/engine.js";
import { loadFastEngine } from "../../src/policy/fast-engine.js";
import { ValueWriter } from "../../src/policy/fast-input.js";
import { loadOpaWasmEngine } from "../../src/policy/opa-wasm-engine.js";

const ENTRY = "toolgate/authz/decision";
const data = JSON.parse(readFileSync("policies/data.json", "utf8")) as JsonObject;
const wasm = new Uint8Array(readFileSync("generated/policy.wasm"));

describe("fast engine string cache", () => {
  it("string cache overflow mid-input keeps the input's earlier strings (decisions stay the SDK's)", async () => {
    const fast = await loadFastEngine({ wasm, entrypoint: ENTRY, data });
    const sdk = await loadOpaWasmEngine({ wasm, entrypoint: ENTRY, data });
    // One approved write, as a stream of calls of one tool with one approval each.
    let base: PolicyInput | undefined;
    for (const i of policyInputs(512, 7)) {
      if (i.approval !== null && i.effect !== "read" && (await sdk.evaluate(i)).allow) {
        base = i;
        break;
      }
    }
    expect(base).toBeDefined();
    let allowed = 0;
    for (let i = 0; i < 3000; i++) {
      // Fresh short ids every call fill the cache region, as a stream of real calls does.
      const op = `op_${i}_${"x".repeat(40)}`;
      const input: PolicyInput = { ...base!, operation_id: op, approval: { ...base!.approval!, id: `apr_${i}_${"y".repeat(40)}`, operation_id: op } };
      const got = await fast.evaluate(input);
      expect([i, got]).toEqual([i, await sdk.evaluate(input)]);
      if (got.allow) allowed++;
    }
    expect(allowed).toBe(3000);
  });

  it("an input of many distinct strings adds a bounded number of them to the string cache (no refill of the region per call)", () => {
    const memory = new WebAssembly.Memory({ initial: 8 });
    const w = new ValueWriter(memory, { nullCell: 8, trueCell: 16, falseCell: 24 });
    const region = 64 * 1024;
    w.cacheStrings(region, region + 64 * 1024);
    const strings = Array.from({ length: 3000 }, (_, i) => `value ${i} xy`);
    for (let call = 0; call < 3; call++) {
      const cells = w.write(strings, 4 * 64 * 1024);
      expect(cells).not.toBeNull();
      const u32 = new Uint32Array(memory.buffer);
      const data = u32[(cells!.addr >>> 2) + 3]! >>> 2;
      const cached = strings.filter((_, i) => w.inStringCache(u32[data + i]!)).length;
      // Each call adds at most 64 (the earlier calls' are reused). Before: the region filled
      // with the first ~1,800 strings on every call and started over on the next.
      expect(cached).toBeGreaterThan(0);
      expect(cached).toBeLessThanOrEqual(64 * (call + 1));
    }
  });

  it("a wide input that comes again settles: the string cache stops refilling and each call writes the same cells", () => {
    const memory = new WebAssembly.Memory({ initial: 8 });
    const w = new ValueWriter(memory, { nullCell: 8, trueCell: 16, falseCell: 24 });
    const region = 64 * 1024;
    w.cacheStrings(region, region + 64 * 1024);
    const strings = Array.from({ length: 4000 }, (_, i) => `value ${i} xy`);
    const heap = 4 * 64 * 1024;
    const calls = Array.from({ length: 100 }, () => {
      const cells = w.write(strings, heap);
      expect(cells).not.toBeNull();
      const u32 = new Uint32Array(memory.buffer);
      const data = u32[(cells!.addr >>> 2) + 3]! >>> 2;
      return { heapBytes: cells!.end - heap, cached: strings.filter((_, i) => w.inStringCache(u32[data + i]!)).length };
    });
    // Before: each call added 64 more strings, the region filled after ~30 calls and started over.
    const settled = calls.slice(20);
    expect(new Set(settled.map((c) => c.heapBytes)).size).toBe(1);
    expect(settled.every((c) => c.cached === 512)).toBe(true);
  });
});
