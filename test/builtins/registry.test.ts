/**
 * The builtin registry is the one table: the runtime library's exports, the host
 * implementations, the type checker's declarations and the emitter's table all agree with it.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import binaryen from "binaryen";
import { describe, expect, it } from "vitest";
import { lookupBuiltin as typeCheckerLookup } from "../../codegen/rego/builtins.js";
import { builtinTable } from "../../codegen/wasm/emit/builtins.js";
import { readRuntime } from "../../codegen/wasm/runtime-link.js";
import { BUILTINS, isUnsupportedOpaBuiltin, sig } from "../../src/policy/builtins/index.js";
import { hostBuiltinName, hostBuiltins, implementations } from "../../src/policy/host-builtins/index.js";

const entries = [...BUILTINS.values()];

/** Function exports of runtime.wasm -> [parameter count, result count]. */
function runtimeExports(): Map<string, [number, number]> {
  const m = readRuntime();
  try {
    const out = new Map<string, [number, number]>();
    for (let i = 0; i < m.getNumExports(); i++) {
      const info = binaryen.getExportInfo(m.getExportByIndex(i));
      if (info.kind !== binaryen.ExternalFunction) continue;
      const fn = binaryen.getFunctionInfo(m.getFunction(info.value));
      out.set(info.name, [binaryen.expandType(fn.params).length, binaryen.expandType(fn.results).length]);
    }
    return out;
  } finally {
    m.dispose();
  }
}

describe("builtin registry: runtime library", () => {
  const exported = runtimeExports();
  const natives = entries.filter((e) => e.native !== undefined);

  it.each(natives.map((e) => [e.name, e.native!, e.variadic === true ? 1 : e.args.length] as const))(
    "%s is exported as %s taking %i value addresses and returning one",
    (_name, exportName, arity) => {
      expect(exported.get(exportName)).toEqual([arity, 1]);
    },
  );

  it.each(entries.filter((e) => e.retiredNative !== undefined).map((e) => [e.name, e.retiredNative!, e.args.length] as const))(
    "%s's retired native %s is still exported taking %i value addresses (modules built before keep loading)",
    (_name, exportName, arity) => {
      expect(exported.get(exportName)).toEqual([arity, 1]);
    },
  );

  it("every builtin-shaped export of the runtime is in the registry", () => {
    const listed = new Set([...natives.map((e) => e.native), ...entries.map((e) => e.retiredNative)]);
    const builtinLike = [...exported.keys()].filter((n) =>
      /^(opa_(arith|cmp|agg|strings|sets?_(union|intersection)|types|numbers|array_(concat|slice)|base64|json_(marshal|unmarshal)|to_number)|tg_(object_(get|keys|remove|union|union_n|filter)$|strings_|units_|member_|array_reverse|json_|base64|net_|opa_|walk$|print_format$))/.test(n));
    expect(builtinLike.filter((n) => !listed.has(n))).toEqual([]);
  });
});

describe("builtin registry: host implementations", () => {
  const hosted = entries.filter((e) => e.host !== undefined);

  it("each implementation takes the declared number of operands (the load-time probe relies on it)", () => {
    expect(hosted.filter((e) => e.host!.length !== e.args.length).map((e) => [e.name, e.host!.length, e.args.length])).toEqual([]);
  });

  it("the host object serves exactly the registry's host builtins, lenient and strict", () => {
    expect(Object.keys(implementations).sort()).toEqual(hosted.map((e) => e.name).sort());
    // Builtins the build tools provide are served too (looked up when called).
    const served = [...hosted, ...entries.filter((e) => e.provided === true)];
    const expected = served.flatMap((e) => [hostBuiltinName(e.name, false), hostBuiltinName(e.name, true)]).sort();
    expect(Object.keys(hostBuiltins).sort()).toEqual(expected);
  });

  it("every implementation exported by src/policy/host-builtins is registered under its name", async () => {
    const dir = join(import.meta.dirname, "../../src/policy/host-builtins");
    const unregistered: string[] = [];
    let groups = 0;
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
      const mod = (await import(pathToFileURL(join(dir, file)).href)) as Record<string, unknown>;
      for (const [exportName, group] of Object.entries(mod)) {
        if (!exportName.endsWith("Builtins") || typeof group !== "object" || group === null || exportName === "hostBuiltins") continue;
        groups++;
        for (const [name, fn] of Object.entries(group)) if (BUILTINS.get(name)?.host !== fn) unregistered.push(`${file}: ${name}`);
      }
    }
    expect(groups).toBeGreaterThan(10);
    expect(unregistered).toEqual([]);
  });
});

describe("builtin registry: compiler views", () => {
  it("the type checker reads the registry's declarations", () => {
    for (const e of entries) expect(typeCheckerLookup(e.name)).toBe(e);
    expect(typeCheckerLookup("no.such.builtin")).toBeUndefined();
  });

  it("the emitter can call every implemented builtin with its declared arity, natives first", () => {
    const table = builtinTable();
    for (const e of entries) {
      const impl = table.get(e.name);
      if (e.native === undefined && e.host === undefined && e.sdk !== true && e.provided !== true) expect(impl).toBeUndefined();
      else if (e.name === "print") expect(impl).toEqual({ kind: "print", exportName: e.native, arity: 1 });
      else if (e.native !== undefined) expect(impl).toEqual({ kind: "native", exportName: e.native, arity: e.args.length });
      else expect(impl).toEqual({ kind: e.host !== undefined || e.provided === true ? "host" : "sdk", exportName: "", arity: e.args.length, ...(e.exact === true ? { exact: true } : {}) });
    }
  });

  it("a declared builtin is never reported as an unsupported OPA builtin", () => {
    expect(entries.filter((e) => isUnsupportedOpaBuiltin(e.name)).map((e) => e.name)).toEqual([]);
    expect(isUnsupportedOpaBuiltin("crypto.x509.parse_certificates") || BUILTINS.has("crypto.x509.parse_certificates")).toBe(true);
  });
});

describe("sig", () => {
  it("rejects an unknown type name and a host group without the builtin", () => {
    expect(() => sig("x.y", "strin", "any")).toThrow('unknown builtin type "strin" in "strin"');
    expect(() => sig("x.y", "string", "any", { host: { "x.z": (s: never) => s } })).toThrow("builtin x.y: the host group given has no implementation of that name");
  });
});
