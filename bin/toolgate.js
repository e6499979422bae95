#!/usr/bin/env node
// In a checkout of toolgate (src/ beside bin/) the TypeScript sources run through tsx,
// so a stale dist/ never runs there; the installed package ships only the built dist/
// and runs it on plain node.
import { existsSync } from "node:fs";

// The compiler links generated code without binaryen; only `--optimize` loads binaryen
// (14.8 MB of JavaScript).
const args = process.argv.slice(2);
const optimizes = args.includes("--optimize") && !args.includes("--help") && !args.includes("-h");

if (existsSync(new URL("../src/cli/bin.ts", import.meta.url))) {
  // Loaded natively before tsx hooks in: later imports of it hit the module cache, so tsx
  // never transforms it (through tsx it takes ~15x the time and ~10x the memory).
  if (optimizes) await import("binaryen");
  const { register } = await import("tsx/esm/api");
  register();
  await import("../src/cli/bin.ts");
} else {
  await import("../dist/src/cli/bin.js");
}
