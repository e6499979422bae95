#!/usr/bin/env bash
# Consumer smoke test: pack toolgate (the runtime package) and @toolgate/build, install the
# tarballs into new projects outside the repository and use them the way README's "Use in
# your project" says. Any failing step fails the script. Run by .ci/run; also by hand:
# `.ci/consumer-smoke.sh` (`RUNTIME_MAX_MB` overrides the runtime install's size limit).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/toolgate-consumer.XXXXXX")"
step() { echo "consumer-smoke: $*"; }
fail() { echo "consumer-smoke: FAILED at: $current (project left in $work/app)" >&2; }
current="npm pack"
trap fail ERR

run() {
  current="$*"
  step "$*"
  "$@"
}

# Runs a command that must exit 1 (a problem the user fixes, not a bug) with `text` in its output.
expect_failure() {
  local text="$1" out code=0
  shift
  current="$* (exits 1 naming: $text)"
  step "$current"
  out="$("$@" 2>&1)" || code=$?
  echo "$out"
  if [ "$code" != 1 ] || ! grep -qF -- "$text" <<<"$out"; then
    echo "consumer-smoke: expected exit 1 and \"$text\", got exit $code" >&2
    false
  fi
}

cd "$root"
step "npm pack"
tarball="$work/$(npm pack --silent --pack-destination "$work" | tail -n 1)"

# --- Packages: the runtime package alone (size, no build tools, build commands point to
# --- @toolgate/build); the SQLite-only load trace runs below, once the app has built code.
current="pack the build package"
build_tarball="$(node scripts/pack-build.mjs --pack-destination "$work" | tail -n 1)"
mkdir "$work/runtime"
cd "$work/runtime"
run npm init -y --silent
run npm pkg set type=module
run npm install --no-audit --no-fund --omit=dev "$tarball"
run node "$root/.ci/consumer/install-size.mjs" node_modules "$root" "${RUNTIME_MAX_MB:-45}"
expect_failure "npm install -D @toolgate/build" npx toolgate codegen
expect_failure "fix: npm install hono" npx toolgate serve --help
# --- end of the runtime-only block

mkdir "$work/app"
cd "$work/app"
run npm init -y --silent
run npm install --no-audit --no-fund "$tarball"
run npm install --no-audit --no-fund --save-dev "$build_tarball"
run npx toolgate --version
run npx toolgate init
run npm install --no-audit --no-fund
run npx toolgate codegen
run npx toolgate build
run npx toolgate test
# src/main.ts picks its store from the environment: SQLite here, PostgreSQL below.
run env -u TOOLGATE_PG_URL npm start
# The same project on PostgreSQL: TOOLGATE_PG_URL (and a schema of its own) is all it takes.
if [ -n "${TOOLGATE_PG_URL:-}" ]; then
  pg_schema="toolgate_consumer_$$"
  run env TOOLGATE_PG_SCHEMA="$pg_schema" npm start
  node -e 'const pg = require("pg"); const c = new pg.Client({ connectionString: process.env.TOOLGATE_PG_URL }); c.connect().then(() => c.query(`DROP SCHEMA IF EXISTS ${process.argv[1]} CASCADE`)).finally(() => c.end());' "$pg_schema"
fi
run npx tsc
cp "$root/.ci/consumer/gated-call.mjs" .
run env -u TOOLGATE_PG_URL node dist/src/main.js
run node gated-call.mjs
run npx tsc --noEmit

# --- Packages: a SQLite-only program (gated calls through the app's compiled code) in the
# --- runtime-only project, with every module it loads traced: no pg, no hono.
mkdir -p "$work/runtime/dist" "$work/runtime/generated" "$work/runtime/policies"
cp -r dist/generated "$work/runtime/dist/"
cp generated/policy.wasm "$work/runtime/generated/"
cp policies/data.json "$work/runtime/policies/"
cp "$root/.ci/consumer/gated-call.mjs" "$work/runtime/"
(
  cd "$work/runtime"
  run env -u TOOLGATE_PG_URL TOOLGATE_TRACE_LOADS="$work/loads.txt" node --import "$root/test/helpers/trace-loads.mjs" gated-call.mjs
  run node "$root/.ci/consumer/loaded-modules.mjs" "$work/loads.txt"
)
# --- end of the SQLite-only block
# Every public entry type-checks; MCP, the inbox server, the adapters' frameworks and vitest are optional peers.
peers=$(cd "$root" && node -p 'const p = require("./package.json"); Object.entries(p.peerDependenciesMeta).filter(([, m]) => m.optional).map(([n]) => `${n}@${p.devDependencies[n]}`).join(" ")')
# shellcheck disable=SC2086
run npm install --no-audit --no-fund --no-save $peers
cp "$root/.ci/consumer/entries.ts" src/entries.ts
run npx tsc --noEmit
# Every entry of package.json "exports" (so a new entry is checked too) type-checks under the
# starter's tsconfig as written (skipLibCheck false). The adapters, with their frameworks
# installed, are a program of their own: @langchain/core's testing declarations augment
# vitest's Assertion with other type parameters than vitest's own (TS2428 beside toolgate/vitest).
framework='["./ai-sdk", "./openai-agents", "./langchain", "./evals/ai-sdk"]'
every_entry() {
  node -e '
    const [pkg, framework, pick] = [require(process.argv[1]), JSON.parse(process.argv[2]), process.argv[3]];
    const subpaths = Object.keys(pkg.exports).filter((k) => k !== "./package.json" && framework.includes(k) === (pick === "framework"));
    subpaths.forEach((k, i) => console.log(`import * as entry${i} from "${k === "." ? "toolgate" : "toolgate" + k.slice(1)}";`));
    console.log(`export const entries = [${subpaths.map((_, i) => `entry${i}`).join(", ")}];`);
  ' "$root/package.json" "$framework" "$1"
}
every_entry core > src/every-entry.ts
run npx tsc --noEmit
rm src/entries.ts src/every-entry.ts
every_entry framework > src/every-framework-entry.ts
cp "$root/.ci/consumer/framework-entries.ts" src/framework-entries.ts
run npx tsc --noEmit
trap - ERR
rm -rf "$work"
step "passed"
