// npx tsx bench/regex.bench.ts — regex.match on common (benign) patterns, side by side in
// one run: (a) the builtin as shipped (re2js, linear time, patterns in an LRU cache) and
// (b) the engine it replaced, a cached JavaScript RegExp with the `u` flag (the old RE2
// translation emitted one; for these patterns, written in the syntax both share, it is the
// same expression). Both are checked to answer alike first; rounds are interleaved and the
// median is reported, because the machine is shared. Also: one decision of a policy that
// calls regex.match twice, through the fast engine, with each contender as the host's
// regex.match, and the hostile memo that froze the old engine.
import { performance } from "node:perf_hooks";
import { compilePolicy } from "../codegen/compiler/index.js";
import type { PolicyInput } from "../src/policy/engine.js";
import { FastPolicy } from "../src/policy/fast-engine.js";
import { createHostBuiltins, HOST_PREFIX } from "../src/policy/host-builtins/index.js";
import type { HostBuiltinSet } from "../src/policy/host-builtins/index.js";
import { regexMatch } from "../src/policy/host-builtins/regex.js";

const CASES: readonly (readonly [string, string])[] = [
  ["^acc_[a-z0-9]+$", "acc_alice42"],
  ["^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}$", "john.doe@example.com"],
  ["^(\\w+\\s?)*$", "pay the rent for march"],
  ["^[A-Z]{3}$", "EUR"],
  ["invoice|refund|chargeback", "monthly statement of account 42, no refund was issued this period"],
];

const oldCache = new Map<string, RegExp>();
const oldMatch = (p: string, v: string): boolean => {
  let re = oldCache.get(p);
  if (re === undefined) oldCache.set(p, (re = new RegExp(p, "u")));
  return re.test(v);
};

function rate(fn: (p: string, v: string) => boolean, n: number): number {
  let hits = 0;
  const t = performance.now();
  for (let i = 0; i < n; i++) {
    const [p, v] = CASES[i % CASES.length]!;
    if (fn(p, v)) hits++;
  }
  const ms = performance.now() - t;
  if (hits < 0) throw new Error("unreachable");
  return (n / ms) * 1000;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

for (const [p, v] of CASES) if (regexMatch(p, v) !== oldMatch(p, v)) throw new Error(`engines disagree on ${p}`);

const ROUNDS = 15;
const N = 50_000;
const re2: number[] = [];
const old: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  re2.push(rate(regexMatch, N));
  old.push(rate(oldMatch, N));
}
const a = median(re2);
const b = median(old);
console.log(`regex.match, ${CASES.length} common patterns, median of ${ROUNDS} rounds of ${N} calls`);
console.log(`  (a) re2js (shipped)        ${(a / 1e6).toFixed(2)} M calls/s  ${(1e9 / a).toFixed(0)} ns/call`);
console.log(`  (b) JavaScript RegExp (old) ${(b / 1e6).toFixed(2)} M calls/s  ${(1e9 / b).toFixed(0)} ns/call`);
console.log(`  (a)/(b) time ratio: ${(b / a).toFixed(2)}x`);

const source = `package toolgate.authz
import rego.v1
default decision := {"allow": true, "reason": "ok", "requires_approval": false}
decision := {"allow": false, "reason": "memo_not_words", "requires_approval": false} if {
	not regex.match(\`^(\\w+\\s?)*$\`, input.args.memo)
}
decision := {"allow": false, "reason": "bad_account", "requires_approval": false} if {
	not regex.match(\`^acc_[a-z0-9]+$\`, input.args.account_id)
}
`;
const ENTRY = "toolgate/authz/decision";
const out = compilePolicy({ modules: [{ file: "p.rego", source }], entrypoints: [ENTRY] });
if (out.wasm === null) throw new Error(JSON.stringify(out.errors));
// The same module and engine, the host's regex.match answered by each contender.
const shipped = createHostBuiltins();
const withOldRegex: HostBuiltinSet = {
  ...shipped,
  builtins: { ...shipped.builtins, [`${HOST_PREFIX}regex.match`]: (p: unknown, v: unknown) => oldMatch(p as string, v as string) },
};
const engines = {
  re2: await FastPolicy.load(out.wasm, { host: shipped }),
  old: await FastPolicy.load(out.wasm, { host: withOldRegex }),
};
const input = (memo: string): PolicyInput => ({
  tool: "t", effect: "read", args: { memo, account_id: "acc_alice42" }, fingerprint: "f", args_hash: "h", operation_id: null,
  principal: { tenant: "t", user: "u", roles: [] }, context: {}, approval: null, now_ms: 0,
  policy_version: "v", policy_code_version: "c", policy_data_version: "d",
});
const benign = input("pay the rent for march");
for (const e of Object.values(engines)) if (e.decide(benign, e.entrypoints[ENTRY]!).reason !== "ok") throw new Error("the benign memo is denied");
const decisionUs = (policy: FastPolicy, inp: PolicyInput, n: number): number => {
  const ep = policy.entrypoints[ENTRY]!;
  const t = performance.now();
  for (let i = 0; i < n; i++) policy.decide(inp, ep);
  return ((performance.now() - t) * 1000) / n;
};
const dRe2: number[] = [];
const dOld: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  dRe2.push(decisionUs(engines.re2, benign, 5000));
  dOld.push(decisionUs(engines.old, benign, 5000));
}
const x = median(dRe2);
const y = median(dOld);
console.log(`one decision calling regex.match twice (fast engine), median of ${ROUNDS} rounds of 5000`);
console.log(`  (a) re2js (shipped)         ${x.toFixed(2)} µs`);
console.log(`  (b) JavaScript RegExp (old) ${y.toFixed(2)} µs`);
console.log(`  (a)/(b) time ratio: ${(x / y).toFixed(2)}x`);
const hostile = input(`${"a".repeat(140)}!`);
const h = engines.re2;
console.log(`  hostile 140-character memo, (a): ${median(Array.from({ length: ROUNDS }, () => decisionUs(h, hostile, 200))).toFixed(1)} µs (${h.decide(hostile, h.entrypoints[ENTRY]!).reason}); (b) does not finish`);
