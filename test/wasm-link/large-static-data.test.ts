/**
 * A policy whose static data does not fit the runtime's memory minimum loads into
 * the memory the host gives (the opa-wasm SDK's default 5 pages, the fast engine's,
 * or a larger one): the data is copied in by the start function after growing the
 * memory, so the memory import asks for no more than the runtime's minimum.
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { loadFastEngine } from "../../src/policy/fast-engine.js";

const PAGE = 65536;

/** Rules with distinct long string constants: `total` bytes of static strings. */
function bigPolicy(total: number): string {
  const per = 4000;
  const rules: string[] = [];
  for (let i = 0; i * per < total; i++) rules.push(`s${i} := "${String(i).padStart(6, "0")}${"x".repeat(per - 6)}"`);
  const last = rules.length - 1;
  return [
    "package big",
    ...rules,
    `all := [${rules.map((_, i) => `s${i}`).join(", ")}]`,
    `result := {"first": substring(all[0], 0, 6), "last": substring(all[${last}], 0, 6), "n": count(all[${last}]), "total": count(concat("", all))}`,
    `decision := {"allow": count(s${last}) == ${per}, "reason": concat("-", [result.first, result.last]), "requires_approval": false}`,
    "",
  ].join("\n");
}

/** The minimum (pages) of the module's memory import, read from its import section. */
function memoryMinimum(wasm: Uint8Array): number {
  let p = 8;
  const u32 = (): number => {
    let r = 0;
    let shift = 0;
    let b: number;
    do {
      b = wasm[p++]!;
      r |= (b & 0x7f) << shift;
      shift += 7;
    } while (b & 0x80);
    return r >>> 0;
  };
  while (p < wasm.length) {
    const id = wasm[p++]!;
    const end = u32() + p;
    if (id === 2) {
      for (let n = u32(); n > 0; n--) {
        for (let name = 0; name < 2; name++) {
          const length = u32();
          p += length;
        }
        const kind = wasm[p++]!;
        if (kind === 2) {
          const hasMax = wasm[p++]!;
          const min = u32();
          if (hasMax) u32();
          return min;
        }
        if (kind === 0) u32();
        else throw new Error(`unexpected import kind ${kind}`);
      }
    }
    p = end;
  }
  throw new Error("no memory import");
}

describe("static data beyond the memory import's minimum", () => {
  const source = bigPolicy(12 * PAGE);
  const r = compilePolicy({ modules: [{ file: "big.rego", source }], entrypoints: ["big/result"] });
  // 12 pages of strings: beyond the runtime's minimum and the SDK's default memory.
  const want = { first: "000000", n: 4000, total: 12 * PAGE + (4000 - ((12 * PAGE) % 4000)) % 4000 };

  it("compiles to a module whose memory import keeps the runtime's minimum", () => {
    expect(r.errors).toEqual([]);
    expect(memoryMinimum(r.wasm!)).toBeLessThanOrEqual(5);
  });

  it("loads in the opa-wasm SDK with its default memory and reads the data", async () => {
    const policy = await loadPolicy(r.wasm!);
    const [res] = policy.evaluate({}, "big/result") as { result: { first: string; last: string; n: number } }[];
    expect(res!.result).toMatchObject(want);
    expect(Number(res!.result.last)).toBeGreaterThan(190);
  });

  it("loads in the SDK with a memory larger than it needs", async () => {
    const policy = await loadPolicy(r.wasm!, { initial: 40 });
    const [res] = policy.evaluate({}, "big/result") as { result: { first: string } }[];
    expect(res!.result).toMatchObject(want);
  });

  it("loads in the fast engine, which decides with the data", async () => {
    const d = compilePolicy({ modules: [{ file: "big.rego", source }], entrypoints: ["big/decision"] });
    expect(d.errors).toEqual([]);
    const engine = await loadFastEngine({ wasm: d.wasm!, entrypoint: "big/decision" });
    const decision = await engine.evaluate({} as Parameters<typeof engine.evaluate>[0]);
    expect(decision.allow).toBe(true);
    expect(decision.reason).toMatch(/^000000-0\d{5}$/);
  });
});
