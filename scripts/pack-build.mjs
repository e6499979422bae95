// `npm run pack:build [-- --pack-destination DIR]`: packs the build package (@toolgate/build)
// from the same compiled dist/ as the runtime package. Its manifest is packages/build/package.json;
// the version, the peer dependency on the runtime package and the runtime dependencies its
// copy of the code imports are taken from the root package.json, so the two never drift.
// Prints the tarball's path. Run `npm run build` first (npm pack of the root does it).
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const destFlag = process.argv.indexOf("--pack-destination");
const dest = resolve(destFlag === -1 ? root : process.argv[destFlag + 1]);
const readJson = (file) => JSON.parse(readFileSync(file, "utf8"));

const runtime = readJson(join(root, "package.json"));
const manifest = readJson(join(root, "packages/build/package.json"));
if (!existsSync(join(root, "dist/src/cli/commands/build.js"))) {
  console.error("pack-build: dist/ is missing or incomplete: run `npm run build` first");
  process.exit(1);
}
const staged = {
  ...manifest,
  version: runtime.version,
  dependencies: { ...runtime.dependencies, ...manifest.dependencies },
  peerDependencies: { ...manifest.peerDependencies, [runtime.name]: runtime.version },
};

const stage = mkdtempSync(join(tmpdir(), "toolgate-build-pack-"));
try {
  cpSync(join(root, "dist"), join(stage, "dist"), { recursive: true, filter: (src) => !src.endsWith(".map") });
  cpSync(join(root, "templates"), join(stage, "templates"), { recursive: true });
  for (const file of ["policies/authz.rego", "policies/authz_test.rego"]) cpSync(join(root, file), join(stage, file));
  cpSync(join(root, "packages/build/README.md"), join(stage, "README.md"));
  writeFileSync(join(stage, "package.json"), `${JSON.stringify(staged, null, 2)}\n`);
  const out = execFileSync("npm", ["pack", "--silent", "--pack-destination", dest], { cwd: stage, encoding: "utf8" });
  console.log(join(dest, out.trim().split("\n").at(-1)));
} finally {
  rmSync(stage, { recursive: true, force: true });
}
