/**
 * Where a member is likely to be in an input object: a host that writes the input
 * as the compiler's input-path trees describe it (input-paths.ts; the fast engine's
 * input template writes every projected member, keys in the runtime's order) puts
 * the member named `k` of a projected object at the index of `k` among that
 * object's member names. The emitter reads the key cell at that index first and,
 * when it is the very static cell of the name, takes the value beside it; anything
 * else (another host, a member left out, a key cell of other provenance) goes
 * through `opa_value_get`, so a wrong guess costs a compare and never changes a
 * result.
 */
import { compareUtf8 } from "../../../src/policy/abi.js";
import type { InputPaths } from "../../../src/policy/abi.js";

/** The guessed index of member `key` in an object read from `input` itself (`fromInput`) or from a value inside it. */
export type MemberPosition = (key: string, fromInput: boolean) => number | undefined;

export function memberPositions(trees: Record<string, InputPaths>): MemberPosition {
  const root = new Map<string, Map<number, number>>();
  const nested = new Map<string, Map<number, number>>();
  const count = (into: Map<string, Map<number, number>>, k: string, i: number): void => {
    let m = into.get(k);
    if (m === undefined) into.set(k, (m = new Map()));
    m.set(i, (m.get(i) ?? 0) + 1);
  };
  const visit = (t: InputPaths, atRoot: boolean): void => {
    if (t === true) return;
    Object.keys(t)
      .sort(compareUtf8)
      .forEach((k, i) => {
        count(atRoot ? root : nested, k, i);
        visit(t[k]!, false);
      });
  };
  for (const t of Object.values(trees)) visit(t, true);
  const best = (m: Map<number, number> | undefined): number | undefined => {
    if (m === undefined) return undefined;
    let at: number | undefined;
    let n = 0;
    for (const [i, c] of m) if (c > n || (c === n && at !== undefined && i < at)) [at, n] = [i, c];
    return at;
  };
  return (key, fromInput) => (fromInput ? best(root.get(key)) ?? best(nested.get(key)) : best(nested.get(key)) ?? best(root.get(key)));
}
