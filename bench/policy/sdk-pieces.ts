/**
 * Where the SDK path's time goes: one decision through the opa-wasm SDK's evaluate()
 * split into the pieces the SDK runs one after the other (JSON.stringify of the input,
 * its UTF-8 encoding, the module's `opa_eval`, which parses the parts of the input the
 * entrypoint can read, evaluates and dumps the result set, then the decoding of that
 * text back to JS). Each piece is timed as the difference of two cumulative stages run on
 * the SDK's own instance (stage k does what stage k-1 does plus one piece), so per-call
 * timer overhead never enters; the remainder is the SDK's evaluate() minus the last stage
 * (its own bookkeeping). The stages repeat the SDK's steps exactly, including a fresh
 * TextEncoder and TextDecoder per call as it makes them.
 *
 * `opa_eval` is one call, so its parse, evaluation and dump are split on the side with
 * the legacy exports of the same instance (`opa_json_parse` parses the whole input, as
 * `setData` does; then `eval` and `opa_json_dump`): `measureModulePieces`.
 */
import type { LoadedPolicy } from "@open-policy-agent/opa-wasm";
import type { PolicyInput } from "../../src/policy/engine.js";
import { interleaved } from "../rows.js";
import type { SdkExports, SdkInternals } from "../../test/helpers/sdk-internals.js";

export type { SdkExports, SdkInternals };

export const SDK_PIECES = ["JSON.stringify", "encode", "opa_eval (parse + evaluation + dump)", "decode", "SDK remainder"] as const;
export type SdkPiece = (typeof SDK_PIECES)[number];

export const MODULE_PIECES = ["whole-input parse (opa_json_parse)", "evaluation (eval)", "dump (opa_json_dump)"] as const;
export type ModulePiece = (typeof MODULE_PIECES)[number];

export interface SdkPiecesMeasurement {
  /** µs per decision of the SDK's evaluate(). */
  readonly totalUs: number;
  /** µs per decision of each piece (a difference of medians: may be slightly negative when a piece is tiny). */
  readonly pieces: ReadonlyMap<SdkPiece, number>;
}

export interface ModulePiecesMeasurement {
  /** µs per decision of copying the encoded input into memory and `opa_eval` (the module's share of the SDK path). */
  readonly opaEvalUs: number;
  /** µs per decision of the legacy route's pieces on the same encoded inputs. */
  readonly pieces: ReadonlyMap<ModulePiece, number>;
}

function stages(sdk: LoadedPolicy, entrypoint: number) {
  const p = sdk as unknown as SdkInternals;
  const ex = p.wasmInstance.exports;
  const stringify = (input: PolicyInput): string => JSON.stringify(input);
  const encode = (input: PolicyInput): Uint8Array => new TextEncoder().encode(stringify(input));
  // As the SDK's _dumpJSONRaw: a byte loop to the NUL, a fresh TextDecoder, JSON.parse.
  const decode = (addr: number): unknown => {
    const buf = new Uint8Array(p.mem.buffer);
    let end = addr;
    while (buf[end] !== 0) end++;
    return JSON.parse(new TextDecoder().decode(new Uint8Array(p.mem.buffer, addr, end - addr)));
  };
  // As the SDK's ABI 1.2 route: the input at the saved heap pointer, the heap after it.
  const opaEvalBytes = (bytes: Uint8Array): number => {
    new Uint8Array(p.mem.buffer).set(bytes, p.dataHeapPtr);
    return ex.opa_eval(0, entrypoint, p.dataAddr, p.dataHeapPtr, bytes.byteLength, p.dataHeapPtr + bytes.byteLength, 0);
  };
  const parseBytes = (bytes: Uint8Array): number => {
    new Uint8Array(p.mem.buffer).set(bytes, p.dataHeapPtr);
    ex.opa_heap_ptr_set(p.dataHeapPtr + bytes.byteLength);
    const addr = ex.opa_json_parse(p.dataHeapPtr, bytes.byteLength);
    if (addr === 0) throw new Error("the module does not parse a benchmark input");
    return addr;
  };
  const evalBytes = (bytes: Uint8Array): number => {
    const input = parseBytes(bytes); // resets the heap: the ctx comes after it
    const ctx = ex.opa_eval_ctx_new();
    ex.opa_eval_ctx_set_input(ctx, input);
    ex.opa_eval_ctx_set_data(ctx, p.dataAddr);
    ex.opa_eval_ctx_set_entrypoint(ctx, entrypoint);
    ex.eval(ctx);
    return ex.opa_eval_ctx_get_result(ctx);
  };
  return { stringify, encode, decode, opaEvalBytes, parseBytes, evalBytes, dumpBytes: (bytes: Uint8Array): number => ex.opa_json_dump(evalBytes(bytes)) };
}

/** Median µs per call of each contender over interleaved rounds (rows.ts's `interleaved`, or a CPU-time variant). */
export type Interleave = (contenders: readonly (() => unknown)[], rounds: number, batch: number) => number[];

/** `interleaved` timed in this process's CPU time (process.cpuUsage): time the machine gives other processes does not count. */
export const interleavedCpu: Interleave = (contenders, rounds, batch) => {
  const times = contenders.map(() => [] as number[]);
  for (const c of contenders) for (let i = 0; i < batch; i++) c();
  for (let r = 0; r < rounds; r++) {
    const order = contenders.map((_, k) => k);
    if (r % 2 === 1) order.reverse();
    for (const k of order) {
      const c = contenders[k]!;
      const t = process.cpuUsage();
      for (let i = 0; i < batch; i++) c();
      const d = process.cpuUsage(t);
      times[k]!.push((d.user + d.system) / batch);
    }
  }
  return times.map((xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!);
};

export function measureSdkPieces(sdk: LoadedPolicy, entrypoint: number, inputs: readonly PolicyInput[], rounds: number, batch: number, run: Interleave = interleaved): SdkPiecesMeasurement {
  const s = stages(sdk, entrypoint);
  let n = 0;
  const next = (): PolicyInput => inputs[n++ % inputs.length]!;
  const opaEval = (input: PolicyInput): number => s.opaEvalBytes(s.encode(input));
  const decoded = (input: PolicyInput): unknown => s.decode(opaEval(input));
  const whole = (input: PolicyInput): unknown => sdk.evaluate(input, entrypoint);
  for (const input of inputs) {
    const got = JSON.stringify(decoded(input));
    if (got !== JSON.stringify(whole(input))) throw new Error(`the staged SDK path disagrees with evaluate(): ${got}`);
  }
  const fs = [s.stringify, s.encode, opaEval, decoded, whole];
  const us = run(fs.map((f) => () => f(next())), rounds, batch);
  const pieces = new Map<SdkPiece, number>(SDK_PIECES.map((name, i) => [name, us[i]! - (i === 0 ? 0 : us[i - 1]!)]));
  return { totalUs: us[fs.length - 1]!, pieces };
}

/** The module's share of the SDK path, and the legacy route's parse, evaluation and dump on the same inputs. */
export function measureModulePieces(sdk: LoadedPolicy, entrypoint: number, inputs: readonly PolicyInput[], rounds: number, batch: number, run: Interleave = interleaved): ModulePiecesMeasurement {
  const s = stages(sdk, entrypoint);
  const encoded = inputs.map((i) => new TextEncoder().encode(JSON.stringify(i)));
  let n = 0;
  const next = (): Uint8Array => encoded[n++ % encoded.length]!;
  const fs = [s.opaEvalBytes, s.parseBytes, s.evalBytes, s.dumpBytes];
  const us = run(fs.map((f) => () => f(next())), rounds, batch);
  const pieces = new Map<ModulePiece, number>(MODULE_PIECES.map((name, i) => [name, us[i + 1]! - (i === 0 ? 0 : us[i]!)]));
  return { opaEvalUs: us[0]!, pieces };
}

/** "JSON.stringify 1.9 µs (21%), encode ..." for a row's notes. */
export function sdkPiecesText(m: SdkPiecesMeasurement): string {
  const text = [...m.pieces].map(([name, v]) => `${name} ${v.toFixed(2)} µs (${Math.round((100 * v) / m.totalUs)}%)`).join(", ");
  // A piece is a difference of two medians, so a small one can come out below zero.
  return [...m.pieces].some(([, v]) => v < 0) ? `${text}; a negative piece is smaller than the noise of the two stages it is the difference of` : text;
}

/** "opa_eval 2.1 µs; legacy route: whole-input parse ..." for a row's notes. */
export function modulePiecesText(m: ModulePiecesMeasurement): string {
  return `copy + opa_eval ${m.opaEvalUs.toFixed(2)} µs; legacy route on the same inputs: ${[...m.pieces].map(([name, v]) => `${name} ${v.toFixed(2)} µs`).join(", ")}`;
}

// npx tsx bench/policy/sdk-pieces.ts [base-authz.wasm [base-floor.wasm]]   (ROUNDS=9 BATCH=10000; CPU time)
// The SDK path of policies/authz.rego and the SDK floor (a constant rule), built by this
// tree's compiler and, when given, modules built elsewhere: evaluate() and the module's
// share (copy + opa_eval) in interleaved rounds, then the pieces of this tree's modules.
if (process.argv[1] !== undefined && (await import("node:url")).fileURLToPath(import.meta.url) === process.argv[1]) {
  const { readFileSync } = await import("node:fs");
  const { loadPolicy } = await import("@open-policy-agent/opa-wasm");
  const { compilePolicy } = await import("../../codegen/compiler/index.js");
  const { hostBuiltins } = await import("../../src/policy/host-builtins/index.js");
  const { policyInputs } = await import("../../test/helpers/policy-inputs.js");
  const rounds = Number(process.env["ROUNDS"] ?? 9), batch = Number(process.env["BATCH"] ?? 10_000);
  const data = JSON.parse(readFileSync("policies/data.json", "utf8")) as Record<string, unknown>;
  const compile = (file: string, source: string, ep: string): Uint8Array => {
    const r = compilePolicy({ modules: [{ file, source }], entrypoints: [ep] });
    if (r.wasm === null) throw new Error(`${file} does not compile: ${JSON.stringify(r.errors)}`);
    return r.wasm;
  };
  const floorSrc = 'package floor\n\ndecision := {"allow": true, "reason": "constant", "requires_approval": false}\n';
  const modules: [string, Uint8Array][] = [
    ["authz", compile("policies/authz.rego", readFileSync("policies/authz.rego", "utf8"), "toolgate/authz/decision")],
    ["floor", compile("floor.rego", floorSrc, "floor/decision")],
  ];
  if (process.argv[2] !== undefined) modules.push(["authz (base)", new Uint8Array(readFileSync(process.argv[2]))]);
  if (process.argv[3] !== undefined) modules.push(["floor (base)", new Uint8Array(readFileSync(process.argv[3]))]);
  const inputs = policyInputs(512, 42);
  const encoded = inputs.map((i) => new TextEncoder().encode(JSON.stringify(i)));
  const loaded = await Promise.all(modules.map(async ([, wasm]) => {
    const p = await loadPolicy(wasm, undefined, hostBuiltins);
    p.setData(data);
    return p;
  }));
  let n = 0;
  const contenders = loaded.flatMap((p) => {
    const s = stages(p, 0);
    return [() => p.evaluate(inputs[n++ & 511]!, 0), () => s.opaEvalBytes(encoded[n++ & 511]!)];
  });
  const us = interleavedCpu(contenders, rounds, batch);
  console.log(`${inputs.length} inputs, ${rounds} interleaved rounds of ${batch}, median µs of CPU time per decision\n`);
  console.log(`${"module".padEnd(14)}${"evaluate()".padStart(12)}${"copy+opa_eval".padStart(15)}${"vs authz".padStart(10)}`);
  modules.forEach(([name], k) => {
    console.log(`${name.padEnd(14)}${us[2 * k]!.toFixed(2).padStart(12)}${us[2 * k + 1]!.toFixed(2).padStart(15)}${(us[2 * k]! / us[0]!).toFixed(2).padStart(10)}`);
  });
  for (const k of [0, 1]) {
    let sdkPieces;
    try { sdkPieces = measureSdkPieces(loaded[k]!, 0, inputs, rounds, batch); } catch (e) { console.log((e as Error).stack!.split("\n").filter((l) => !l.includes("wasm-function")).join("\n")); throw e; }
    const modPieces = measureModulePieces(loaded[k]!, 0, inputs, rounds, batch);
    console.log(`\n${modules[k]![0]} pieces: ${sdkPiecesText(sdkPieces)}\n  ${modulePiecesText(modPieces)}`);
  }
}
