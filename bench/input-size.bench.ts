// npm run bench:input-size — the fast engine's decision time against the size of an
// input of many small fields (a policy that reads the whole `input.args`), next to
// JSON.stringify of the same input and the SDK path (opa-wasm evaluate), measured in
// the same process as interleaved batches (median of ROUNDS). CPU time per call.
// A last row gives the growth: time at the largest size over time at the smallest,
// for each contender and for V8's own enumeration of the members (Object.keys), which
// every reader of the input pays and which is itself not linear on large objects.
//
//   FIELDS=400,4000 ROUNDS=7 npm run bench:input-size
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compilePolicy } from "../codegen/compiler/index.js";
import type { PolicyInput } from "../src/policy/engine.js";
import { FastPolicy } from "../src/policy/fast-engine.js";
import { createHostBuiltins } from "../src/policy/host-builtins/index.js";
import type { BenchRow } from "./rows.js";

const SOURCE = `package big

decision := {"allow": count(input.args) > 0, "reason": "read_allowed", "requires_approval": false}
`;

/** `{tool, args}` with `fields` string members of about 28 bytes each (4,000 fields: about 110 KB of JSON). */
export function manyFields(fields: number): { tool: string; args: Record<string, string> } {
  const args: Record<string, string> = {};
  for (let i = 0; i < fields; i++) args[`field_${i}`] = `value ${i} xy`;
  return { tool: "bulk_import", args };
}

const perField = (us: number, n: number): string => ((us * 1000) / n).toFixed(1);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** CPU µs per call of each contender: interleaved batches, median of rounds. */
function measure(contenders: readonly (() => unknown)[], rounds: number, batch: number): number[] {
  const times = contenders.map(() => [] as number[]);
  for (const f of contenders) for (let i = 0; i < batch; i++) f();
  for (let r = 0; r < rounds; r++) {
    contenders.forEach((f, j) => {
      const t = process.cpuUsage();
      for (let i = 0; i < batch; i++) f();
      const d = process.cpuUsage(t);
      times[j]!.push((d.user + d.system) / batch);
    });
  }
  return times.map(median);
}

export async function inputSizeRows(opts: { fields?: readonly number[]; rounds?: number } = {}): Promise<BenchRow[]> {
  const out = compilePolicy({ modules: [{ file: "big.rego", source: SOURCE }], entrypoints: ["big/decision"] });
  if (out.wasm === null) throw new Error(JSON.stringify(out.errors));
  const fast = await FastPolicy.load(out.wasm);
  fast.setData({});
  const ep = fast.entrypoints["big/decision"]!;
  const host = createHostBuiltins();
  const sdk = await loadPolicy(out.wasm, undefined, host.builtins);
  sdk.setData({});
  const rows: BenchRow[] = [];
  const sizes = opts.fields ?? [400, 4000];
  const times: { n: number; fast: number; json: number; sdk: number; keys: number }[] = [];
  for (const n of sizes) {
    const input = manyFields(n);
    const bytes = JSON.stringify(input).length;
    // Both paths decide the same (allow, the policy's reason).
    const sdkResult = sdk.evaluate(input, "big/decision") as { result: { allow: boolean } }[];
    const d = fast.decide(input as unknown as PolicyInput, ep);
    if (sdkResult[0]?.result.allow !== true || !d.allow || d.reason !== "read_allowed") throw new Error(`fast engine decided ${JSON.stringify(d)}, SDK ${JSON.stringify(sdkResult)}`);
    const batch = Math.max(5, Math.floor(40_000 / n));
    const [tFast, tJson, tSdk, tKeys] = measure(
      [() => fast.decide(input as unknown as PolicyInput, ep), () => JSON.stringify(input), () => sdk.evaluate(input, "big/decision"), () => Object.keys(input.args)],
      opts.rounds ?? 7,
      batch,
    );
    times.push({ n, fast: tFast!, json: tJson!, sdk: tSdk!, keys: tKeys! });
    rows.push({
      what: `one decision over ${n} input fields (${Math.round(bytes / 1000)} KB), fast engine`,
      unit: "µs CPU/decision",
      better: "lower",
      toolgate: { label: "fast engine", value: tFast! },
      anchors: [
        { label: "JSON.stringify of the input", value: tJson! },
        { label: "SDK path (opa-wasm evaluate)", value: tSdk! },
      ],
      notes: [`fast / JSON.stringify = ${(tFast! / tJson!).toFixed(2)}x (target <= 2x)`, `fast / SDK = ${(tFast! / tSdk!).toFixed(2)}x (target <= 1x)`],
    });
  }
  const first = times[0];
  const last = times[times.length - 1];
  if (first !== undefined && last !== undefined && last.n > first.n) {
    const growth = (k: "fast" | "json" | "sdk" | "keys"): number => last[k] / first[k];
    const factor = last.n / first.n;
    rows.push({
      what: `growth of one decision from ${first.n} to ${last.n} input fields (${factor}x the fields), fast engine`,
      unit: `x (time at ${last.n} / time at ${first.n})`,
      better: "lower",
      toolgate: { label: "fast engine", value: growth("fast") },
      anchors: [
        { label: "JSON.stringify of the input", value: growth("json") },
        { label: "SDK path (opa-wasm evaluate)", value: growth("sdk") },
        { label: "Object.keys of input.args (V8's enumeration)", value: growth("keys") },
      ],
      notes: [
        `linear would be ${factor}x; fast growth / JSON.stringify growth = ${(growth("fast") / growth("json")).toFixed(2)} (target <= 1)`,
        `per field, fast engine: ${perField(first.fast, first.n)} ns at ${first.n}, ${perField(last.fast, last.n)} ns at ${last.n}; of which Object.keys: ${perField(first.keys, first.n)} ns, ${perField(last.keys, last.n)} ns`,
        `per field, fast engine without Object.keys (the writer and the module): ${perField(first.fast - first.keys, first.n)} ns at ${first.n}, ${perField(last.fast - last.keys, last.n)} ns at ${last.n}`,
      ],
    });
  }
  return rows;
}

const isMain = import.meta.url === `file://${process.argv[1]}`;
if (isMain) {
  const fields = (process.env["FIELDS"] ?? "400,4000").split(",").map(Number);
  const rows = await inputSizeRows({ fields, rounds: Number(process.env["ROUNDS"] ?? 7) });
  for (const r of rows) {
    console.log(r.what);
    console.log(`  ${r.toolgate.label}: ${r.toolgate.value.toFixed(1)} ${r.unit}`);
    for (const a of r.anchors) console.log(`  ${a.label}: ${a.value.toFixed(1)} ${r.unit}`);
    for (const n of r.notes ?? []) console.log(`  ${n}`);
  }
}
