// `node install-size.mjs <node_modules> <repo root> <max MB>`: the size of a runtime-only
// install and what it holds. Fails (exit 1) above the limit, or when it holds a package
// only the build needs: the build package, its own dependencies (binaryen, prettier,
// json-schema-to-typescript) and toolgate's development tools (devDependencies that are
// neither run-time dependencies nor peers), unless an installed run-time package depends
// on it (@types/pg brings @types/node).
// Size is the bytes of the installed files (what npm's unpacked size counts); the disk
// usage (allocated blocks, as `du` shows it) is printed beside it.
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const [nodeModules, root, maxMbText] = process.argv.slice(2);
if (nodeModules === undefined || root === undefined || maxMbText === undefined) {
  console.error("usage: node install-size.mjs <node_modules> <repo root> <max MB>");
  process.exit(2);
}
const maxMb = Number(maxMbText);
const readJson = (file) => JSON.parse(readFileSync(file, "utf8"));

let bytes = 0;
let blocks = 0;
// node-gyp hard-links its build output (build/Release beside obj.target): each file counts once, as in du.
const seenInodes = new Set();
const walk = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const stat = lstatSync(path);
    if (stat.nlink > 1 && !stat.isDirectory()) {
      const inode = `${stat.dev}:${stat.ino}`;
      if (seenInodes.has(inode)) continue;
      seenInodes.add(inode);
    }
    bytes += stat.size;
    blocks += stat.blocks;
    if (entry.isDirectory()) walk(path);
  }
};
walk(nodeModules);

// Every installed package, nested ones included: node_modules/<name> and node_modules/@scope/<name>.
const packages = new Map();
const collect = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    const names = entry.name.startsWith("@") ? readdirSync(join(dir, entry.name)).map((n) => `${entry.name}/${n}`) : [entry.name];
    for (const name of names) {
      const manifest = join(dir, name, "package.json");
      if (!packages.has(name)) packages.set(name, new Set());
      try {
        const pkg = readJson(manifest);
        packages.get(name).add(pkg);
      } catch {
        // A folder without a readable package.json: counted by size only.
      }
      const nested = join(dir, name, "node_modules");
      if (lstatSync(join(dir, name)).isDirectory() && readdirSync(join(dir, name)).includes("node_modules")) collect(nested);
    }
  }
};
collect(nodeModules);

const runtime = readJson(join(root, "package.json"));
const build = readJson(join(root, "packages/build/package.json"));
const runtimeNames = new Set([...Object.keys(runtime.dependencies ?? {}), ...Object.keys(runtime.peerDependencies ?? {})]);
const buildOnly = [...new Set([build.name, ...Object.keys(build.dependencies ?? {}), ...Object.keys(runtime.devDependencies ?? {}).filter((n) => !runtimeNames.has(n))])];
const buildOnlyNames = new Set(buildOnly);
const requiredByRuntime = new Set(
  [...packages].filter(([name]) => !buildOnlyNames.has(name)).flatMap(([, manifests]) => [...manifests].flatMap((m) => Object.keys(m.dependencies ?? {}))),
);
const found = buildOnly.filter((n) => packages.has(n) && !requiredByRuntime.has(n));

const mb = (n) => (n / 1024 / 1024).toFixed(1);
console.log(`install-size: ${mb(bytes)} MB in files (${mb(blocks * 512)} MB on disk), ${packages.size} packages; limit ${maxMb} MB`);
let failed = false;
if (bytes > maxMb * 1024 * 1024) {
  console.error(`install-size: FAILED: ${mb(bytes)} MB is above the ${maxMb} MB limit`);
  failed = true;
}
if (found.length > 0) {
  console.error(`install-size: FAILED: packages used only at build time are installed: ${found.join(", ")}`);
  failed = true;
}
process.exit(failed ? 1 : 0);
