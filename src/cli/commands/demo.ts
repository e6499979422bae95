import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runDemo } from "../../demo/scenarios.js";
import type { DemoStep } from "../../demo/scenarios.js";
import { openSqliteStore } from "../../store/index.js";
import { loadCommandPolicy } from "../policy-engine.js";
import type { RegisterCommand } from "./index.js";

interface DemoOptions {
  policy: string;
  data: string;
  db?: string;
  entrypoint: string;
}

const print = (step: DemoStep): void => {
  console.log(`\n== ${step.title}`);
  if (step.envelope !== null) console.log(JSON.stringify(step.envelope, null, 2));
  if (step.note !== undefined) console.log(`   ${step.note}`);
};

export const registerDemo: RegisterCommand = (program, setExitCode) => {
  program
    .command("demo")
    .description("run the example escrow tools through the gate against a fresh SQLite file and print each envelope")
    .option("--policy <file>", "compiled policy (toolgate build)", "generated/policy.wasm")
    .option("--data <file>", "policy data (limits, roles)", "policies/data.json")
    .option("--db <file>", "SQLite file to use (default: a fresh one in a temp dir)")
    .option("--entrypoint <path>", "policy decision entrypoint", "toolgate/authz/decision")
    .action(async (opts: DemoOptions) => {
      const policyLoad = await loadCommandPolicy({ wasm: opts.policy, data: opts.data, entrypoint: opts.entrypoint });
      if ("error" in policyLoad) {
        console.error(policyLoad.error);
        setExitCode(1);
        return;
      }
      const policy = policyLoad.engine;
      const db = opts.db ?? join(mkdtempSync(join(tmpdir(), "toolgate-demo-")), "state.db");
      const store = openSqliteStore(db);
      console.log(`toolgate demo — store ${db}, policy ${opts.policy} (version ${policy.version})`);
      try {
        await runDemo(policy, store, print);
      } finally {
        await store.close();
      }
    });
};
