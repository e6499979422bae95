// Copies the files the built code reads at run time and tsc does not emit into dist/.
import { cpSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";

const assets = [
  "codegen/wasm/runtime.wasm",
  "generated/validators.js",
  "generated/validators.d.ts",
  ...readdirSync("src/store/postgres/migrations").filter((f) => f.endsWith(".sql")).map((f) => `src/store/postgres/migrations/${f}`),
];
for (const file of assets) {
  if (!existsSync(file)) throw new Error(`copy-assets: ${file} is missing`);
  const to = join("dist", file);
  mkdirSync(dirname(to), { recursive: true });
  cpSync(file, to);
}
console.log(`copied ${assets.length} assets into dist/`);
