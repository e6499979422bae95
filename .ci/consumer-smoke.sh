#!/usr/bin/env bash
# Consumer smoke test: pack toolgate, install the tarball into a new project outside the
# repository and use it the way README's "Use in your project" says. Any failing step
# fails the script. Run by .ci/run; also by hand: `.ci/consumer-smoke.sh`.
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

cd "$root"
step "npm pack"
tarball="$work/$(npm pack --silent --pack-destination "$work" | tail -n 1)"
mkdir "$work/app"
cd "$work/app"
run npm init -y --silent
run npm install --no-audit --no-fund "$tarball"
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
# Every public entry type-checks; the adapters' frameworks and vitest are optional peers.
peers=$(cd "$root" && node -p 'const d = require("./package.json").devDependencies; ["ai", "@openai/agents", "@langchain/core", "@langchain/langgraph", "langchain", "vitest"].map((n) => `${n}@${d[n]}`).join(" ")')
# shellcheck disable=SC2086
run npm install --no-audit --no-fund --no-save $peers
cp "$root/.ci/consumer/entries.ts" src/entries.ts
run npx tsc --noEmit
# Every entry of package.json "exports" (so a new entry is checked too) type-checks under the
# starter's tsconfig as written (skipLibCheck false), the adapters with their frameworks installed.
every_entry() {
  node -e '
    const pkg = require(process.argv[1]);
    const subpaths = Object.keys(pkg.exports).filter((k) => k !== "./package.json");
    subpaths.forEach((k, i) => console.log(`import * as entry${i} from "${k === "." ? "toolgate" : "toolgate" + k.slice(1)}";`));
    console.log(`export const entries = [${subpaths.map((_, i) => `entry${i}`).join(", ")}];`);
  ' "$root/package.json"
}
every_entry > src/every-entry.ts
cp "$root/.ci/consumer/framework-entries.ts" src/framework-entries.ts
run npx tsc --noEmit
trap - ERR
rm -rf "$work"
step "passed"
