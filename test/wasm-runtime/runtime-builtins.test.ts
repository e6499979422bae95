import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { NATIVE_BUILTINS } from "../../codegen/wasm/runtime-builtins.js";
import { RUNTIME_WASM_FILE } from "../../codegen/wasm/runtime-link.js";

describe("runtime-builtins.ts", () => {
  const mod = new WebAssembly.Module(readFileSync(RUNTIME_WASM_FILE));
  const exported = new Set(WebAssembly.Module.exports(mod).filter((e) => e.kind === "function").map((e) => e.name));

  it.each(Object.entries(NATIVE_BUILTINS))("%s is exported as %s", (_name, exportName) => {
    expect(exported.has(exportName)).toBe(true);
  });

  it("lists every builtin-shaped export of the runtime", () => {
    const listed = new Set(Object.values(NATIVE_BUILTINS));
    const builtinLike = [...exported].filter((n) =>
      /^(opa_(arith|cmp|agg|strings|sets?_(union|intersection)|types|numbers|array_(concat|slice)|base64|json_(marshal|unmarshal)|to_number)|tg_(object_(get|keys|remove|union|union_n|filter)$|strings_|units_|member_|array_reverse|json_|base64|net_|opa_))/.test(n));
    expect(builtinLike.filter((n) => !listed.has(n))).toEqual([]);
  });
});
