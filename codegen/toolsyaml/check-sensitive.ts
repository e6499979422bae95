/** tools.yaml `sensitive:`: every field named must be a top-level property of the tool's input schema. */
import type { Diagnostic } from "../diagnostics.js";
import type { RawTool } from "./raw-types.js";

type Locate = (path: readonly (string | number)[], key?: boolean) => Diagnostic["location"];

export function checkSensitive(name: string, tool: RawTool, inputFields: ReadonlySet<string>, at: Locate): Diagnostic[] {
  const out: Diagnostic[] = [];
  tool.sensitive?.forEach((field, i) => {
    if (inputFields.has(field)) return;
    out.push({
      code: "unknown_sensitive_field",
      message: `sensitive of tool "${name}" names "${field}", which is not a property of its input schema`,
      location: at(["sensitive", i]),
      hint: "name a top-level property of the tool's input schema; its value is erased from the decision log",
    });
  });
  return out;
}
