/** A deliberately naive policy: it allows any call whose presented approval says "approve". */
import { compilePolicy } from "../../codegen/compiler/index.js";
import { formatDiagnostic } from "../../codegen/diagnostics.js";
import type { PolicyEngine } from "../../src/policy/engine.js";
import { loadOpaWasmEngine } from "../../src/policy/opa-wasm-engine.js";

export const naiveRego = `package naive

decision := {"allow": true, "reason": "read", "requires_approval": false} if {
	input.effect == "read"
} else := {"allow": true, "reason": "approved", "requires_approval": false} if {
	input.approval.decision == "approve"
} else := {"allow": false, "reason": "approval_required", "requires_approval": true}
`;

/** Compiled with the project's own compiler and loaded through the opa-wasm SDK, like the shipped policy. */
export async function loadNaivePolicy(): Promise<PolicyEngine> {
  const result = compilePolicy({ modules: [{ file: "naive.rego", source: naiveRego }], entrypoints: ["naive/decision"] });
  if (result.wasm === null) throw new Error(result.errors.map(formatDiagnostic).join("\n"));
  return loadOpaWasmEngine({ wasm: result.wasm, entrypoint: "naive/decision" });
}
