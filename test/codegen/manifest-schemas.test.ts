import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { manifest } from "../../generated/index.js";

const toolsYaml = parse(readFileSync(new URL("../../tools.yaml", import.meta.url), "utf8")) as {
  tools: Record<string, { description: string; input: unknown; output: unknown }>;
};

describe("the generated manifest carries each tool's schemas as data", () => {
  it("has every tool's description and input/output JSON Schema exactly as tools.yaml declares them", () => {
    const names = Object.keys(toolsYaml.tools).sort();
    expect(Object.keys(manifest.tools)).toEqual(names);
    for (const name of names) {
      const source = toolsYaml.tools[name];
      const entry = manifest.tools[name];
      expect(entry?.description, name).toBe(source?.description);
      expect(entry?.input_schema, name).toEqual(source?.input);
      expect(entry?.output_schema, name).toEqual(source?.output);
    }
  });
});
