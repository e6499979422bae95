#!/usr/bin/env node
// In a checkout of toolgate (src/ beside bin/) the TypeScript sources run through tsx,
// so a stale dist/ never runs there; the installed package ships only the built dist/
// and runs it on plain node.
import { existsSync } from "node:fs";

if (existsSync(new URL("../src/cli/bin.ts", import.meta.url))) {
  const { register } = await import("tsx/esm/api");
  register();
  await import("../src/cli/bin.ts");
} else {
  await import("../dist/src/cli/bin.js");
}
