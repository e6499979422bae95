/**
 * tools.yaml `compensation_args:`: how the compensating call's arguments are built from what
 * landed. Each key must be an input property of the compensating tool, every required input
 * property of it must be mapped, `$args.<field>` must be an input property of this tool.
 */
import type { Diagnostic } from "../diagnostics.js";
import type { RawTool, RawToolsFile } from "./raw-types.js";

type Locate = (path: readonly (string | number)[], key?: boolean) => Diagnostic["location"];

const props = (t: RawTool | undefined): Set<string> => {
  const p = t?.input["properties"];
  return new Set(p !== null && typeof p === "object" && !Array.isArray(p) ? Object.keys(p) : []);
};

export function checkCompensationArgs(file: RawToolsFile, name: string, tool: RawTool, at: Locate): Diagnostic[] {
  const mapping = tool.compensation_args;
  if (mapping === undefined) return [];
  if (tool.compensation === undefined) {
    return [{ code: "compensation_args_without_compensation", message: `tool "${name}" declares compensation_args but no compensation`, location: at(["compensation_args"], true), hint: "name the compensating tool with compensation: <tool>" }];
  }
  const target = file.tools[tool.compensation];
  if (target === undefined) return []; // invalid_compensation already says so
  const out: Diagnostic[] = [];
  const targetFields = props(target);
  const ownFields = props(tool);
  for (const [key, value] of Object.entries(mapping)) {
    if (!targetFields.has(key)) {
      out.push({ code: "invalid_compensation_args", message: `compensation_args of tool "${name}" sets "${key}", which is not an input property of ${tool.compensation}`, location: at(["compensation_args", key], true), hint: `name input properties of ${tool.compensation}` });
    }
    if (typeof value === "string" && value.startsWith("$args.") && !ownFields.has(value.slice(6))) {
      out.push({ code: "invalid_compensation_args", message: `compensation_args of tool "${name}" reads "${value}", which is not an input property of ${name}`, location: at(["compensation_args", key]), hint: "use $resource_id, $args.<own input field>, $observed.<field> or a literal" });
    } else if (typeof value === "string" && value.startsWith("$") && value !== "$resource_id" && !value.startsWith("$observed.") && !value.startsWith("$args.")) {
      out.push({ code: "invalid_compensation_args", message: `compensation_args of tool "${name}" uses "${value}"`, location: at(["compensation_args", key]), hint: "use $resource_id, $args.<own input field>, $observed.<field> or a literal" });
    }
  }
  const required = Array.isArray(target.input["required"]) ? (target.input["required"] as unknown[]).filter((r): r is string => typeof r === "string") : [];
  const unmapped = required.filter((r) => !(r in mapping));
  if (unmapped.length > 0) {
    out.push({ code: "incomplete_compensation_args", message: `compensation_args of tool "${name}" leave required input ${unmapped.join(", ")} of ${tool.compensation} unset`, location: at(["compensation_args"], true), hint: "map every required input property of the compensating tool" });
  }
  return out;
}
