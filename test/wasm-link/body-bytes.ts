import type { RuntimeBody } from "../../codegen/wasm/link/runtime-library.js";

/** The body with every call target's bytes cut out: what renumbering must leave unchanged. */
export function withoutCallTargets(b: RuntimeBody): number[] {
  const out: number[] = [];
  let from = 0;
  for (const c of b.calls) {
    out.push(...b.bytes.subarray(from, c.at));
    from = c.end;
  }
  out.push(...b.bytes.subarray(from));
  return out;
}
