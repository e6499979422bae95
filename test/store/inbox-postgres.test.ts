import { afterAll, describe } from "vitest";
import { openPgStore } from "../../src/store/postgres/index.js";
import { createTestSchema, skipWithoutPg, type TestSchema } from "../helpers/pg-env.js";
import { runInboxStoreContract } from "./inbox-contract.js";

const skip = skipWithoutPg("postgres inbox store");

let shared: TestSchema | null = null;
afterAll(async () => {
  await shared?.drop();
});

describe.skipIf(skip)("postgres inbox", () => {
  runInboxStoreContract("postgres", async () => {
    shared ??= await createTestSchema();
    await shared.pool.query("TRUNCATE pending_calls, approval_events, approvals RESTART IDENTITY CASCADE");
    return { store: await openPgStore({ pool: shared.pool }) };
  });
});
