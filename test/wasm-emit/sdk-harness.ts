/** Compiles Rego with the public API and evaluates it through the unmodified opa-wasm SDK. */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compilePolicy } from "../../codegen/compiler/index.js";
import { hostBuiltins } from "../../src/policy/host-builtins/index.js";

export interface EvalCase {
  readonly modules: readonly string[];
  /** A query body (results are binding objects) ... */
  readonly query?: string;
  /** ... or an entrypoint path (results are `{result}` objects). */
  readonly entrypoint?: string;
  readonly data?: unknown;
  readonly input?: unknown;
  readonly strict?: boolean;
}

export async function evaluate(c: EvalCase): Promise<unknown> {
  const out = compilePolicy({
    modules: c.modules.map((source, i) => ({ file: `m${i}.rego`, source })),
    entrypoints: c.entrypoint === undefined ? [] : [c.entrypoint],
    queries: c.query === undefined ? [] : [{ name: "q", body: c.query }],
    strictBuiltinErrors: c.strict === true,
  });
  if (out.wasm === null) throw new Error(`compile errors: ${out.errors.map((e) => `${e.location.row}:${e.location.col} ${e.code}: ${e.message}`).join("; ")}`);
  const policy = await loadPolicy(out.wasm, undefined, hostBuiltins);
  if (c.data !== undefined) policy.setData(c.data as object);
  return policy.evaluate(c.input, c.entrypoint ?? "q");
}
