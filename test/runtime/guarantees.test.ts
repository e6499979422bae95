/**
 * The runtime guarantees, end to end with the REAL policy: policies/authz.rego compiled
 * by the project's compiler (codegen/compiler) and evaluated by @open-policy-agent/opa-wasm,
 * on every store (SQLite, and PostgreSQL when TOOLGATE_PG_URL is set).
 */
import { describeGuarantees } from "./guarantees.js";
import { loadShippedPolicy } from "./harness.js";

describeGuarantees("shipped policy compiled to wasm", loadShippedPolicy);
