/**
 * Regal's own builtins for measuring Regal's bundle (TOOLGATE_CORPUS_BUILTINS=bench/corpora/regal-builtins.ts),
 * supplied through the custom-builtin channel as a project would:
 *   regal.last(arr)                the last element, undefined for an empty array (as Regal's);
 *   regal.is_formatted(src, opts)  whether toolgate's formatter leaves the source unchanged
 *                                  (opts.rego_version "v0" parses pre-1.0 Rego);
 *   regal.parse_module(file, src)  an approximation of Regal's RoAST: OPA's AST JSON with
 *                                  "row:col:row:col" location strings (the parser records no end
 *                                  positions), null values as null, comments as location strings,
 *                                  and the `regal` context object (file name, lines, rego version).
 */
import { resolve, sep } from "node:path";
import { formatSource } from "../../codegen/rego/format/index.js";
import { parseModule, type ParseOptions } from "../../codegen/rego/parser.js";
import type { Location, Module } from "../../codegen/rego/ast.js";
import { moduleToOpaJson } from "../../codegen/rego-json/module-json.js";
import { defineBuiltins } from "../../src/policy/builtins/index.js";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const loc = (l: Location): string => `${l.row}:${l.col}:${l.row}:${l.col}`;

/** Adds location strings to the OPA JSON of terms, expressions and rules, walking both trees in step. */
function roast(module: Module, file: string, source: string, version: string): Json {
  const opa = JSON.parse(moduleToOpaJson(module)) as { [k: string]: Json };
  const pkg = opa["package"] as { [k: string]: Json };
  pkg["location"] = loc(module.package.location);
  (opa["imports"] as { [k: string]: Json }[] | undefined)?.forEach((imp, i) => (imp["location"] = loc(module.imports[i]!.location)));
  (opa["rules"] as { [k: string]: Json }[] | undefined)?.forEach((rule, i) => {
    const r = module.rules[i]!;
    rule["location"] = loc(r.location);
    (rule["head"] as { [k: string]: Json })["location"] = loc(r.head.location);
  });
  if (opa["comments"] !== undefined) opa["comments"] = module.comments.map((c) => loc(c.location));
  nullValues(opa);
  opa["regal"] = {
    file: { name: file, lines: source.split("\n"), abs: resolve(file), rego_version: version },
    environment: { path_separator: sep },
    operations: ["lint"],
  };
  return opa;
}

function nullValues(v: Json): void {
  if (Array.isArray(v)) v.forEach(nullValues);
  else if (v !== null && typeof v === "object") {
    if (v["type"] === "null") v["value"] = null;
    for (const x of Object.values(v)) nullValues(x);
  }
}

export default defineBuiltins({
  "regal.last": { args: ["array"], result: "any", impl: (xs) => (xs.length === 0 ? undefined : xs[xs.length - 1]) },
  "regal.is_formatted": {
    args: ["string", "object"],
    result: "boolean",
    impl: (src, opts) => {
      const options: ParseOptions = opts["rego_version"] === "v0" ? { regoVersion: "v0" } : {};
      const r = formatSource(src, "input.rego", options);
      if (!r.ok) throw new Error(r.errors.map((e) => e.message).join("; "));
      return !r.changed;
    },
  },
  "regal.parse_module": {
    args: ["string", "string"],
    result: "object",
    impl: (file, src) => {
      const v0 = file.endsWith("_v0.rego");
      const { module, errors } = parseModule(src, file, v0 ? { regoVersion: "v0" } : {});
      if (module === null || errors.length > 0) throw new Error(errors.map((e) => `${e.location.file}:${e.location.row}: ${e.code}: ${e.message}`).join("\n"));
      return roast(module, file, src, v0 ? "v0" : "v1");
    },
  },
});
