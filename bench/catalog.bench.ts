// npm run bench:catalog — decision time against the size of a tool catalog on the fast
// engine: a policy of RULES rules spread over TOOLS tools (RULES / TOOLS rule groups per
// tool, each testing input.tool and input.args.kind against constants) next to the same
// call against a policy of RULES / TOOLS rules over one tool, and the large policy built
// without rule indexing. Median of ROUNDS interleaved batches, same process.
//
//   TOOLS=1000 RULES=10000 ROUNDS=7 npm run bench:catalog
import { compilePolicy } from "../codegen/compiler/index.js";
import type { PolicyInput } from "../src/policy/engine.js";
import { FastPolicy } from "../src/policy/fast-engine.js";
import type { BenchRow } from "./rows.js";

/** A catalog policy: `perTool` deny rules for each of `tools` tools, and the decision over them. */
export function catalogPolicy(tools: number, perTool: number): string {
  const lines = [
    "package catalog",
    "",
    'default decision := {"allow": false, "reason": "no_rule_matched", "requires_approval": false}',
    "",
    'decision := {"allow": false, "reason": "catalog_denied", "requires_approval": false} if count(deny) > 0',
    'else := {"allow": true, "reason": "catalog_allowed", "requires_approval": false}',
    "",
  ];
  for (let t = 0; t < tools; t++) {
    for (let k = 0; k < perTool; k++) {
      lines.push(`deny contains "tool_${t}: kind k${k} needs a ticket" if {`, `\tinput.tool == "tool_${t}"`, `\tinput.args.kind == "k${k}"`, "\tnot input.args.ticket", "}", "");
    }
  }
  return lines.join("\n");
}

async function load(source: string, ruleIndex: boolean): Promise<(input: unknown) => unknown> {
  const out = compilePolicy({ modules: [{ file: "catalog.rego", source }], entrypoints: ["catalog/decision"], ruleIndex });
  if (out.wasm === null) throw new Error(`catalog policy does not compile: ${JSON.stringify(out.errors.slice(0, 3))}`);
  const p = await FastPolicy.load(out.wasm);
  p.setData({});
  const ep = p.entrypoints["catalog/decision"]!;
  return (input) => p.decide(input as PolicyInput, ep);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** CPU µs per call of each contender, interleaved batches (CPU time: the machine may be shared). */
function measure(contenders: readonly { run: () => unknown }[], rounds: number, batch: number): number[] {
  const times = contenders.map(() => [] as number[]);
  for (const c of contenders) for (let i = 0; i < batch; i++) c.run();
  for (let r = 0; r < rounds; r++) {
    contenders.forEach((c, j) => {
      const start = process.cpuUsage();
      for (let i = 0; i < batch; i++) c.run();
      const d = process.cpuUsage(start);
      times[j]!.push((d.user + d.system) / batch);
    });
  }
  return times.map(median);
}

export async function catalogRows(opts: { tools?: number; rules?: number; rounds?: number; log?: (s: string) => void } = {}): Promise<BenchRow[]> {
  const tools = opts.tools ?? 1000;
  const perTool = Math.max(1, Math.round((opts.rules ?? 10_000) / tools));
  const rounds = opts.rounds ?? 7;
  const log = opts.log ?? (() => {});
  log(`compiling ${tools * perTool} rules over ${tools} tools`);
  const large = await load(catalogPolicy(tools, perTool), true);
  const small = await load(catalogPolicy(1, perTool), true);
  // Without the index all rules sit in one function: beyond Wasm's local limit at this size.
  let largeUnindexed: ((input: unknown) => unknown) | null = null;
  let unindexedNote = "";
  try {
    largeUnindexed = await load(catalogPolicy(tools, perTool), false);
  } catch (e) {
    unindexedNote = `unindexed build: ${e instanceof Error ? e.message.slice(0, 160) : String(e)}`;
  }
  const mid = Math.floor(tools / 2);
  const kind = `k${perTool - 1}`;
  const callLarge = { tool: `tool_${mid}`, args: { kind } };
  const callSmall = { tool: "tool_0", args: { kind } };
  // Same answer shape on both, and the indexed build agrees with the unindexed one.
  if (largeUnindexed !== null && JSON.stringify(large(callLarge)) !== JSON.stringify(largeUnindexed(callLarge))) throw new Error("indexed and unindexed builds disagree");
  const want = JSON.stringify({ allow: false, reason: "catalog_denied", requires_approval: false });
  if (JSON.stringify(large(callLarge)) !== want || JSON.stringify(small(callSmall)) !== want) throw new Error(`unexpected decision ${JSON.stringify(large(callLarge))}`);
  const [tLarge, tSmall] = measure([{ run: () => large(callLarge) }, { run: () => small(callSmall) }], rounds, 20_000);
  const unindexed = largeUnindexed;
  const tUnindexed = unindexed === null ? null : measure([{ run: () => unindexed(callLarge) }], 3, 200)[0]!;
  const ratio = tLarge! / tSmall!;
  return [
    {
      what: `one decision against ${tools * perTool} rules over ${tools} tools, fast engine (rule index)`,
      unit: "µs CPU/decision",
      better: "lower",
      toolgate: { label: `${tools * perTool} rules, indexed`, value: tLarge! },
      anchors: [
        { label: `${perTool} rules (one tool)`, value: tSmall! },
        ...(tUnindexed === null ? [] : [{ label: `${tools * perTool} rules, unindexed`, value: tUnindexed }]),
      ],
      notes: [`large / small = ${ratio.toFixed(2)}x (target <= 2x)`, tUnindexed === null ? unindexedNote : `unindexed / indexed = ${(tUnindexed / tLarge!).toFixed(0)}x`],
    },
  ];
}

const isMain = import.meta.url === `file://${process.argv[1]}`;
if (isMain) {
  const env = process.env;
  const rows = await catalogRows({
    tools: Number(env["TOOLS"] ?? 1000),
    rules: Number(env["RULES"] ?? 10_000),
    rounds: Number(env["ROUNDS"] ?? 7),
    log: (s) => console.error(s),
  });
  for (const r of rows) {
    console.log(r.what);
    console.log(`  ${r.toolgate.label}: ${r.toolgate.value.toFixed(3)} ${r.unit}`);
    for (const a of r.anchors) console.log(`  ${a.label}: ${a.value.toFixed(3)} ${r.unit}`);
    for (const n of r.notes ?? []) console.log(`  ${n}`);
  }
}
