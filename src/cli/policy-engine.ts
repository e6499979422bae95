/** The compiled policy and its data a command runs the gate with (demo, agent-eval, mcp). */
import { existsSync } from "node:fs";
import { isPolicyLoadError, loadPolicyEngineFromFiles } from "../policy/index.js";
import type { CustomBuiltins } from "../policy/builtins/index.js";
import type { PolicyEngine } from "../policy/index.js";

export type PolicyEngineLoad = { readonly engine: PolicyEngine } | { readonly error: string };

/**
 * The engine for `paths.wasm` and `paths.data`, or the `<file>:1:1 <code>: ...` message
 * (with a hint) saying why not: a file that does not exist, or a policy that does not load.
 * `builtins` (tools.yaml's custom builtins) is read once both files are found.
 */
export async function loadCommandPolicy(
  paths: { readonly wasm: string; readonly data: string; readonly entrypoint: string },
  builtins: () => Promise<{ readonly builtins?: CustomBuiltins }> = () => Promise.resolve({}),
): Promise<PolicyEngineLoad> {
  for (const [file, hint] of [[paths.wasm, "run `toolgate build` first"], [paths.data, "pass --data with your policy data file"]] as const) {
    if (!existsSync(file)) return { error: `${file}:1:1 file_not_found: ${file} does not exist\n  hint: ${hint}` };
  }
  try {
    return { engine: await loadPolicyEngineFromFiles({ ...paths, ...(await builtins()) }) };
  } catch (err) {
    if (!isPolicyLoadError(err)) throw err;
    return { error: `${paths.wasm}:1:1 policy_load_error: ${err.message}\n  hint: rebuild it with \`toolgate build\`` };
  }
}
