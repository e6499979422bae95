/**
 * Where the SDK path's time goes: one decision through the opa-wasm SDK's evaluate()
 * split into the pieces the SDK runs one after the other (JSON.stringify of the input,
 * its UTF-8 encoding, the module's JSON parse, the evaluation, the dump of the result set
 * and its decoding back to JS). Each piece is timed as the difference of two cumulative
 * stages run on the SDK's own instance (stage k does what stage k-1 does plus one piece),
 * so per-call timer overhead never enters; the remainder is the SDK's evaluate() minus the
 * last stage (its own bookkeeping). The stages repeat the SDK's steps exactly, including a
 * fresh TextEncoder and TextDecoder per call as it makes them.
 */
import type { LoadedPolicy } from "@open-policy-agent/opa-wasm";
import type { PolicyInput } from "../../src/policy/engine.js";
import { interleaved } from "../rows.js";

interface SdkExports {
  readonly opa_heap_ptr_set: (p: number) => void;
  readonly opa_json_parse: (addr: number, len: number) => number;
  readonly opa_json_dump: (value: number) => number;
  readonly opa_eval_ctx_new: () => number;
  readonly opa_eval_ctx_set_input: (ctx: number, v: number) => void;
  readonly opa_eval_ctx_set_data: (ctx: number, v: number) => void;
  readonly opa_eval_ctx_set_entrypoint: (ctx: number, ep: number) => void;
  readonly opa_eval_ctx_get_result: (ctx: number) => number;
  readonly eval: (ctx: number) => number;
}

/** The fields of the SDK's LoadedPolicy the stages use (public in its JavaScript, untyped in its .d.ts). */
interface SdkInternals {
  readonly wasmInstance: { readonly exports: SdkExports };
  readonly mem: { readonly buffer: ArrayBuffer };
  readonly dataAddr: number;
  readonly dataHeapPtr: number;
}

export const SDK_PIECES = ["JSON.stringify", "encode", "in-module JSON parse", "evaluation", "result dump + decode", "SDK remainder"] as const;
export type SdkPiece = (typeof SDK_PIECES)[number];

export interface SdkPiecesMeasurement {
  /** µs per decision of the SDK's evaluate(). */
  readonly totalUs: number;
  /** µs per decision of each piece (a difference of medians: may be slightly negative when a piece is tiny). */
  readonly pieces: ReadonlyMap<SdkPiece, number>;
}

export function measureSdkPieces(sdk: LoadedPolicy, entrypoint: number, inputs: readonly PolicyInput[], rounds: number, batch: number): SdkPiecesMeasurement {
  const p = sdk as unknown as SdkInternals;
  const ex = p.wasmInstance.exports;
  let n = 0;
  const next = (): PolicyInput => inputs[n++ % inputs.length]!;
  const stringify = (input: PolicyInput): string => JSON.stringify(input);
  const encode = (input: PolicyInput): Uint8Array => new TextEncoder().encode(stringify(input));
  const parse = (input: PolicyInput): number => {
    const bytes = encode(input);
    new Uint8Array(p.mem.buffer).set(bytes, p.dataHeapPtr);
    ex.opa_heap_ptr_set(p.dataHeapPtr + bytes.byteLength);
    const addr = ex.opa_json_parse(p.dataHeapPtr, bytes.byteLength);
    if (addr === 0) throw new Error("the module does not parse a benchmark input");
    return addr;
  };
  const evaluate = (input: PolicyInput): number => {
    const addr = parse(input);
    const ctx = ex.opa_eval_ctx_new();
    ex.opa_eval_ctx_set_input(ctx, addr);
    ex.opa_eval_ctx_set_data(ctx, p.dataAddr);
    ex.opa_eval_ctx_set_entrypoint(ctx, entrypoint);
    ex.eval(ctx);
    return ex.opa_eval_ctx_get_result(ctx);
  };
  // As the SDK's _dumpJSONRaw: a byte loop to the NUL, a fresh TextDecoder, JSON.parse.
  const dumpDecode = (input: PolicyInput): unknown => {
    const raw = ex.opa_json_dump(evaluate(input));
    const buf = new Uint8Array(p.mem.buffer);
    let end = raw;
    while (buf[end] !== 0) end++;
    return JSON.parse(new TextDecoder().decode(new Uint8Array(p.mem.buffer, raw, end - raw)));
  };
  const whole = (input: PolicyInput): unknown => sdk.evaluate(input, entrypoint);
  const check = JSON.stringify(dumpDecode(inputs[0]!));
  if (check !== JSON.stringify(whole(inputs[0]!))) throw new Error(`the staged SDK path disagrees with evaluate(): ${check}`);
  const stages = [stringify, encode, parse, evaluate, dumpDecode, whole];
  const us = interleaved(stages.map((f) => () => f(next())), rounds, batch);
  const pieces = new Map<SdkPiece, number>(SDK_PIECES.map((name, i) => [name, us[i]! - (i === 0 ? 0 : us[i - 1]!)]));
  return { totalUs: us[stages.length - 1]!, pieces };
}

/** "JSON.stringify 1.9 µs (21%), encode ..." for a row's notes. */
export function sdkPiecesText(m: SdkPiecesMeasurement): string {
  return [...m.pieces].map(([name, v]) => `${name} ${v.toFixed(2)} µs (${Math.round((100 * v) / m.totalUs)}%)`).join(", ");
}
