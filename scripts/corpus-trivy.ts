/**
 * `npm run corpus:trivy` — trivy-checks (aquasecurity/trivy-checks) as an open corpus:
 * its Rego unit tests run as its `make test-rego` does (`opa test lib/ checks/
 * examples/ --ignore '*.yaml'`: every .rego file of those folders in one bundle),
 * with trivy's Go-only builtins supplied by bench/corpora/trivy-builtins.ts, and the
 * pass rate printed (bench/corpora/measure.ts). Nothing of trivy-checks is kept in
 * this repository.
 *
 *   npm run corpus:trivy                          fetch the pinned commit into a temp folder
 *   TOOLGATE_TRIVY_CHECKS=/path/to/trivy-checks npm run corpus:trivy   use a checkout (any commit)
 *
 * TOOLGATE_TRIVY_COMMIT overrides the pinned commit. Needs `git` and network access
 * when no checkout is given. Exit status 1 when the corpus could not be measured.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The commit the figures in the README were measured at. */
export const PINNED_COMMIT = "80e5382269707262f35cf893bdc0805cb72217e9";
const REPO = "https://github.com/aquasecurity/trivy-checks.git";
const FOLDERS = ["lib", "checks", "examples"];

function fetchPinned(commit: string, into: string): string {
  const dir = join(into, "trivy-checks");
  const git = (...args: string[]): void => {
    execFileSync("git", args, { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
  };
  execFileSync("git", ["init", "-q", dir], { stdio: ["ignore", "ignore", "inherit"] });
  git("remote", "add", "origin", REPO);
  git("fetch", "-q", "--depth", "1", "origin", commit);
  git("checkout", "-q", "FETCH_HEAD");
  return dir;
}

/** The Rego files of lib/, checks/ and examples/ (the .yaml files left out, as `--ignore '*.yaml'`). */
function copyRego(checkout: string, into: string): string {
  const dest = join(into, "corpus");
  for (const f of FOLDERS) {
    const from = join(checkout, f);
    if (!existsSync(from)) throw new Error(`${checkout} has no ${f}/ folder: is it a trivy-checks checkout?`);
    cpSync(from, join(dest, f), { recursive: true, filter: (p) => statSync(p).isDirectory() || p.endsWith(".rego") || p.endsWith(".json") });
  }
  return dest;
}

function main(): number {
  const work = mkdtempSync(join(tmpdir(), "toolgate-trivy-"));
  try {
    const given = process.env["TOOLGATE_TRIVY_CHECKS"];
    const checkout = given !== undefined && given !== "" ? given : fetchPinned(process.env["TOOLGATE_TRIVY_COMMIT"] ?? PINNED_COMMIT, work);
    const corpus = copyRego(checkout, work);
    const files = FOLDERS.flatMap((f) => readdirSync(join(corpus, f), { recursive: true }).filter((p) => String(p).endsWith(".rego")));
    console.log(`trivy-checks at ${checkout}: ${files.length} .rego files`);
    const root = fileURLToPath(new URL("..", import.meta.url));
    const r = spawnSync(process.execPath, ["--import", "tsx", join(root, "bench/corpora/measure.ts")], {
      cwd: root,
      stdio: "inherit",
      env: { ...process.env, TOOLGATE_CORPUS: corpus, TOOLGATE_CORPUS_LAYOUT: "bundle", TOOLGATE_CORPUS_BUILTINS: join(root, "bench/corpora/trivy-builtins.ts") },
    });
    return r.status ?? 1;
  } catch (e) {
    console.error(`corpus:trivy: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

process.exitCode = main();
