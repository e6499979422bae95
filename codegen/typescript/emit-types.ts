import { compile } from "json-schema-to-typescript";
import { format } from "prettier";
import type { RawToolsFile } from "../toolsyaml/index.js";
import { GeneratedFile, pascalCase } from "./generated-file.js";

/** json-schema-to-typescript options of every declaration in generated/types.ts. */
const COMPILE_OPTIONS: NonNullable<Parameters<typeof compile>[2]> = {
  bannerComment: "",
  // Formatted once for the whole file below: prettier per schema costs ~5 ms each.
  format: false,
  unknownAny: true,
  strictIndexSignatures: true,
  additionalProperties: true,
  declareExternallyReferenced: true,
};

export const typeNames = (tool: string) => {
  const base = pascalCase(tool);
  return { input: `${base}Input`, output: `${base}Output`, failure: `${base}Failure`, context: `${base}Context`, limits: `${base}Limits` };
};

/** generated/types.ts: input/output interfaces and the failure union of every tool. */
export async function emitTypes(file: RawToolsFile, source: string): Promise<GeneratedFile> {
  const body: string[] = [];
  for (const name of Object.keys(file.tools).sort()) {
    const tool = file.tools[name];
    if (tool === undefined) continue;
    const names = typeNames(name);
    for (const part of ["input", "output"] as const) {
      const schema = {
        ...stripNestedTitles(tool[part]),
        title: names[part],
        description: `${part === "input" ? "Arguments" : "Result"} of ${name}: ${tool.description}\n\n@generated from tool: ${name} (${part})`,
      };
      const ts = await compile(schema as Parameters<typeof compile>[0], names[part], COMPILE_OPTIONS);
      body.push(ts.trim(), "");
    }
    const facts = Object.keys(tool.context ?? {}).sort();
    if (facts.length > 0) {
      // The facts as one object type: what input.context is for the policy and ctx.context for the handler.
      const schema = {
        type: "object",
        additionalProperties: false,
        required: facts,
        properties: Object.fromEntries(facts.map((f) => [f, stripNestedTitles((tool.context ?? {})[f])])),
        title: names.context,
        description: `Host facts of ${name}, resolved right before every decision.\n\n@generated from tool: ${name} (context)`,
      };
      const ts = await compile(schema as Parameters<typeof compile>[0], names.context, COMPILE_OPTIONS);
      body.push(ts.trim(), "");
    }
    const limits = limitNames(file, name);
    if (limits.length > 0) {
      // What input.limits is for the policy: {count, sum} of each limit covering the tool.
      body.push(
        `/** input.limits of ${name}: {count, sum} of each limit covering it, over its window before the call. @generated from tool: ${name} (limits) */`,
        `export interface ${names.limits} {`,
        ...limits.map((l) => `  readonly ${l}: { readonly count: number; readonly sum: number };`),
        "}",
        "",
      );
    }
    const failures = Object.keys(tool.failures ?? {}).sort();
    body.push(
      `/** Declared failures of ${name}. @generated from tool: ${name} (failures) */`,
      `export type ${names.failure} = ${failures.length === 0 ? "never" : failures.map((f) => JSON.stringify(f)).join(" | ")};`,
      "",
    );
  }
  const out = new GeneratedFile("types.ts", source);
  out.print((await format(body.join("\n"), { parser: "typescript", printWidth: 120 })).trimEnd());
  return out;
}

/** The limits covering `tool`: declared under it, or under another tool that names it in `tools:`. */
function limitNames(file: RawToolsFile, tool: string): string[] {
  const out = new Set<string>();
  for (const [declaring, t] of Object.entries(file.tools)) {
    for (const [name, limit] of Object.entries(t.limits ?? {})) if (declaring === tool || (limit.tools ?? []).includes(tool)) out.add(name);
  }
  return [...out].sort();
}

/** Nested titles would become separately named (and possibly colliding) declarations. */
function stripNestedTitles(schema: unknown): Record<string, unknown> {
  const walk = (node: unknown, top: boolean): unknown => {
    if (Array.isArray(node)) return node.map((n) => walk(n, false));
    if (node === null || typeof node !== "object") return node;
    const copy: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      if (!top && (k === "title" || k === "$id")) continue;
      copy[k] = walk(v, false);
    }
    return copy;
  };
  return walk(schema, true) as Record<string, unknown>;
}
