import { afterAll, describe, it } from "vitest";
import { carefulAgent, loadSuites, naiveAgent, runSuites } from "../../src/evals/index.js";
import { openPgStore } from "../../src/store/postgres/index.js";
import { createTestSchema, skipWithoutPg } from "../helpers/pg-env.js";
import type { TestSchema } from "../helpers/pg-env.js";
import { expectCareful, expectNaive } from "./discrimination.js";
import { shippedRunOptions } from "./env.js";

const skip = skipWithoutPg("agent-eval on postgres");
let schema: TestSchema | null = null;
afterAll(async () => {
  await schema?.drop();
});

describe.skipIf(skip)("agent-eval on the PostgreSQL store", () => {
  it("scores the careful agent 100% and the naive one down on exactly its rows, as on SQLite", async () => {
    schema = await createTestSchema();
    const store = await openPgStore({ pool: schema.pool });
    const o = await shippedRunOptions();
    const suites = loadSuites(["test/evals/"], { manifest: o.manifest });
    const r = await runSuites(suites, [carefulAgent(), naiveAgent()], { ...o, store });
    expectCareful(r.agents[0]!);
    expectNaive(r.agents[1]!);
  });
});
