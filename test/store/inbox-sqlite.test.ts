import { openSqliteStore } from "../../src/store/index.js";
import { runInboxStoreContract } from "./inbox-contract.js";

runInboxStoreContract("sqlite :memory:", async () => ({ store: openSqliteStore(":memory:") }));
