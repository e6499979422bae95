/**
 * Optional binaryen pass over the generated functions of a linked module
 * (`toolgate build --optimize`). binaryen.js is 14.8 MB of JavaScript that takes
 * about half a second and 100 MB to load, so it is loaded only on request:
 * `await loadOptimizer()` before compiling with `optimize: true`.
 */
import type BinaryenApi from "binaryen";
import { LinkError } from "./bytes.js";
import type { LinkedModule } from "./link.js";

type Binaryen = typeof BinaryenApi;

let binaryen: Binaryen | undefined;

export async function loadOptimizer(): Promise<void> {
  binaryen ??= (await import("binaryen")).default;
}

export function optimizerLoaded(): boolean {
  return binaryen !== undefined;
}

/** Runs binaryen's -O2 (shrink level 1) on the generated functions only; the runtime is already optimised by asc. */
export function optimizeGenerated(linked: LinkedModule): Uint8Array {
  const b = binaryen;
  if (b === undefined) throw new LinkError("optimize needs binaryen: await loadOptimizer() (codegen/wasm/link/optimize.ts) before compiling");
  const m = b.readBinary(linked.bytes);
  try {
    m.setFeatures(b.Features.MutableGlobals | b.Features.SignExt | b.Features.NontrappingFPToInt | b.Features.BulkMemory | b.Features.BulkMemoryOpt);
    b.setOptimizeLevel(2);
    b.setShrinkLevel(1);
    const end = linked.firstGenerated + linked.generatedCount;
    for (let i = linked.firstGenerated; i < end; i++) m.optimizeFunction(m.getFunctionByIndex(i));
    return m.emitBinary();
  } finally {
    m.dispose();
  }
}
