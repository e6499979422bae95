/**
 * Key cells of a wide object that comes again: the writer asks for key room the
 * fixed key region lacks, the engine grants it above the data, and from then on the
 * object's keys are written once, not on every call. setData reclaims that room (the
 * new data is written over it), so the shapes whose cells lay there must be forgotten:
 * otherwise later inputs point at keys the data overwrote.
 */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { FastPolicy } from "../../src/policy/fast-engine.js";
import { ValueWriter } from "../../src/policy/fast-input.js";

function wide(fields: number, tag: string): Record<string, string> {
  const o: Record<string, string> = {};
  for (let i = 0; i < fields; i++) o[`field_${i}`] = `${tag} ${i}`;
  return o;
}

async function echoPolicy(): Promise<FastPolicy> {
  const r = compilePolicy({ modules: [{ file: "t.rego", source: "package t\nx := input\n" }], entrypoints: ["t/x"] });
  expect(r.errors).toEqual([]);
  return FastPolicy.load(r.wasm!);
}

describe("granted key room", () => {
  it("a wide object seen again asks for key room and, once granted, its keys are not written per object", () => {
    const input = wide(2000, "v");
    const memory = new WebAssembly.Memory({ initial: 16 });
    const w = new ValueWriter(memory, { nullCell: 8, trueCell: 16, falseCell: 24 });
    w.cacheKeys(1024, 1024 + 4096);
    const heap = 65536;
    const bytes = (): number => w.write(input, heap)!.end - heap;
    const perCall = bytes();
    expect(w.keyRoomWanted).toBe(0);
    expect(bytes()).toBe(perCall);
    // field_<i>: 16-byte cell and 8 bytes of text (7 to 10 characters are 8 or 16).
    const keyBytes = Object.keys(input).reduce((n, k) => n + 16 + ((k.length + 7) & ~7), 0);
    expect(w.keyRoomWanted).toBe(keyBytes);
    w.grantKeyRoom(8 * 65536, 8 * 65536 + keyBytes);
    expect(w.keyRoomWanted).toBe(0);
    expect(bytes()).toBe(perCall - keyBytes);
    expect(w.keyRoomWanted).toBe(0);
  });

  it("setData reclaims granted key room: a wide input written after new data still reads back its own keys", async () => {
    const policy = await echoPolicy();
    const ep = policy.entrypoints["t/x"]!;
    policy.setData({});
    const input = { args: wide(3000, "v") };
    // Three calls: the shape is made, seen again (asks), then written with granted key cells.
    for (let i = 0; i < 4; i++) expect(policy.evaluate(input, ep)).toEqual([{ result: input }]);
    // New data lands where the granted key cells were.
    policy.setData({ filler: wide(3000, "data value that is longer than the keys it overwrites") });
    for (let i = 0; i < 4; i++) expect(policy.evaluate(input, ep)).toEqual([{ result: input }]);
  });

  it("granted key room is bounded: wide shapes past the budget keep writing their keys per object and still read back", async () => {
    const policy = await echoPolicy();
    const ep = policy.entrypoints["t/x"]!;
    policy.setData({});
    // 80 shapes of 4,000 keys want about 10 MB of key cells; the engine grants at most 4 MB.
    for (let s = 0; s < 80; s++) {
      const args: Record<string, number> = {};
      for (let i = 0; i < 4000; i++) args[`s${s}_key_${i}`] = i;
      for (let call = 0; call < 3; call++) expect(policy.evaluate({ args }, ep)).toEqual([{ result: { args } }]);
    }
    expect(policy.memoryBytes).toBeLessThan(6 * 1024 * 1024);
  });
});

