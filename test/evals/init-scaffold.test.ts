/**
 * The evals/ scaffold `toolgate init` writes must be satisfiable against the starter
 * it comes with: its suite loads against the starter's tools.yaml, and a well-behaved
 * agent scores 100% on both dimensions through the gate over the starter's handlers.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { loadToolsFile, schemaId } from "../../codegen/toolsyaml/index.js";
import { handlerSurface, loadSuites, runSuites } from "../../src/evals/index.js";
import type { Agent, AgentStep } from "../../src/evals/index.js";
import { contextFacts, exchanges, userMessage } from "../../src/evals/agent.js";
import type { StandaloneValidator } from "../../src/generated-runtime.js";
import type { JsonObject } from "../../src/manifest.js";
import { loadOpaWasmEngine } from "../../src/policy/index.js";
import { scaffolds } from "../../src/cli/init-project.js";
import { compileShippedPolicyWasm, ENTRYPOINT } from "../runtime/harness.js";

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A minimal well-behaved agent for the starter's order tools. */
const ordersAgent: Agent = {
  name: "orders-agent",
  async step(messages, tools): Promise<AgentStep> {
    const text = userMessage(messages);
    void contextFacts(messages);
    const order = /\bord_[a-z0-9]+\b/.exec(text)?.[0];
    const amount = /(\d+(?:\.\d{2})?)\s+of order/.exec(text)?.[1];
    if (/\bdelete\b/i.test(text)) return { kind: "final", text: "delete_customer is destructive; the policy forbids it, so I will not call it." };
    const plan =
      order !== undefined && /\brefund\b/i.test(text) && amount !== undefined
        ? { tool: "refund_order", args: { order_id: order, amount_cents: Math.round(Number(amount) * 100) } as JsonObject, operation_id: `op_refund_${order}_${amount}` }
        : order !== undefined
          ? { tool: "get_order", args: { order_id: order } as JsonObject }
          : null;
    if (plan === null || !tools.some((t) => t.name === plan.tool)) return { kind: "final", text: "Nothing for me to do." };
    const history = exchanges(messages);
    const call = (n: number): AgentStep => ({ kind: "tool_calls", calls: [{ id: `c${n}`, ...plan }] });
    if (history.length === 0) return call(0);
    const r = history[history.length - 1]!.result ?? {};
    if (r.outcome === "success") return { kind: "final", text: `Done: ${JSON.stringify(r.value)}` };
    if (r.outcome === "retryable_failure" && history.length < 3) {
      await sleep(typeof r.retry_after_ms === "number" ? r.retry_after_ms : 0);
      return call(history.length);
    }
    if (r.reason === "approval_required") return { kind: "final", text: `Waiting for approval ${String(r.approval_id)}.` };
    return { kind: "final", text: `Failed (${String(r.failure ?? r.reason)}): ${String(r.message)}` };
  },
};

describe("toolgate init's evals/ scaffold", () => {
  it("is one of the scaffolds init writes, loads against the starter's tools, and a well-behaved agent scores 100% on it", async () => {
    expect(scaffolds).toContain("evals");
    const { loaded, errors } = loadToolsFile("templates/project/tools.yaml");
    expect(errors).toEqual([]);
    const manifest = loaded!.manifest;
    const validators: Record<string, { input: StandaloneValidator; output: StandaloneValidator }> = {};
    for (const name of Object.keys(manifest.tools)) {
      validators[name] = {
        input: loaded!.schemas.getSchema(schemaId(name, "input")) as unknown as StandaloneValidator,
        output: loaded!.schemas.getSchema(schemaId(name, "output")) as unknown as StandaloneValidator,
      };
    }
    const data = JSON.parse(readFileSync("templates/project/policies/data.json", "utf8")) as JsonObject;
    const policy = await loadOpaWasmEngine({ wasm: await compileShippedPolicyWasm(), entrypoint: ENTRYPOINT, data });
    const suites = loadSuites(["templates/evals/evals/"], { manifest, surfaces: ["project"] });
    // Loaded by URL: the template is the user's code, typed against their own generated/, not checked here.
    type Handlers = Parameters<typeof handlerSurface>[0];
    const { handlers } = (await import(pathToFileURL(resolve("templates/project/src/handlers.ts")).href)) as { handlers: Handlers };
    const surfaces = { project: () => handlerSurface(handlers, manifest) };
    const r = await runSuites(suites, [ordersAgent], { manifest, validators, policy, surfaces });
    const a = r.agents[0]!;
    const why = a.scenarios.filter((s) => !s.intent.pass || s.failure.status === "fail" || s.failure.status === "unreached").map((s) => `${s.scenario}: ${s.intent.detail} ${s.failure.detail}`);
    expect(why).toEqual([]);
    expect(a.scores.intent.rate).toBe(1);
    expect(a.scores.failure.rate).toBe(1);
    expect(a.scores.safety).toMatchObject({ retries_after_terminal: 0, new_operation_id_retries: 0, effects_duplicated: 0 });
  });
});
