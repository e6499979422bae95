/**
 * The scripted agent: plays the calls written in the suites' own scenarios, with no model.
 * It finds the scenario by its intent (message and context), makes the expected call (an
 * `exact` matcher's arguments; for other matchers the fields given, completed from the tool's
 * input schema and the values the intent names), and reacts to a failure the way the
 * scenario's `reaction` says. So a suite, the surface and the scoring run in CI on any
 * project's tools, offline: a scenario it cannot pass points at the suite or the surface.
 */
import canonicalize from "canonicalize";
import type { JsonObject, JsonValue } from "../../manifest.js";
import { contextFacts, exchanges, userMessage } from "../agent.js";
import type { Agent, AgentMessage, AgentStep, AgentTool } from "../agent.js";
import type { ArgMatcher, CallExpectation, Reaction, Scenario, Suite } from "../suite-types.js";
import { operationIdFor } from "./careful.js";
import type { PlannedCall } from "./escrow-intents.js";

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);
const text = (v: unknown): string => JSON.stringify(v ?? null);

/** Longest retry_after_ms the agent waits out before a retry. */
const WAIT_BUDGET_MS = 10_000;

const intentKey = (message: string, context: JsonObject): string => `${message}\u0000${canonicalize(context) ?? "{}"}`;

/** Words and values the intent names: candidates for arguments the scenario leaves open. */
function intentValues(message: string, facts: JsonObject): string[] {
  const out = message.split(/[\s,;:!?()"'`]+/).map((w) => w.replace(/\.$/, "")).filter((w) => w !== "");
  const walk = (v: JsonValue): void => {
    if (typeof v === "string") out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (isObject(v)) Object.values(v).forEach((x) => walk(x));
  };
  walk(facts);
  return out;
}

/** A value for one property of the input schema, from the intent when the schema lets it tell. */
function valueFor(schema: JsonObject, words: readonly string[]): JsonValue | undefined {
  if ("const" in schema) return schema.const as JsonValue;
  if (Array.isArray(schema.enum)) return (schema.enum as JsonValue[]).find((e) => typeof e === "string" && words.includes(e)) ?? schema.enum[0];
  switch (schema.type) {
    case "string": {
      // Free text (a reason, a message): the user's own words.
      if (typeof schema.pattern !== "string") return typeof schema.format === "string" ? undefined : words.join(" ").slice(0, typeof schema.maxLength === "number" ? schema.maxLength : undefined);
      let re: RegExp;
      try {
        re = new RegExp(schema.pattern, "u");
      } catch {
        return undefined;
      }
      return words.find((w) => re.test(w));
    }
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 1;
    case "boolean":
      return false;
    default:
      return undefined;
  }
}

/** `given`, completed with the required fields of `tool`'s input schema that the intent can supply. */
function completeArgs(tool: AgentTool | undefined, given: JsonObject, words: readonly string[], sources: readonly JsonObject[] = []): JsonObject {
  const schema = tool?.input_schema ?? {};
  const props = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : [];
  const args: JsonObject = { ...given };
  for (const name of required) {
    if (name in args) continue;
    const fromSource = sources.find((s) => name in s)?.[name];
    const value = fromSource ?? (isObject(props[name]) ? valueFor(props[name], words) : undefined);
    if (value !== undefined) args[name] = value;
  }
  return args;
}

function givenArgs(matcher: ArgMatcher | undefined): JsonObject {
  if (matcher === undefined) return {};
  if ("exact" in matcher) return matcher.exact;
  if ("subset" in matcher) return matcher.subset;
  return {};
}

function plan(expect: CallExpectation, tools: readonly AgentTool[], words: readonly string[]): PlannedCall {
  const tool = tools.find((t) => t.name === expect.tool);
  const matcher = expect.args;
  const args = matcher !== undefined && "exact" in matcher ? matcher.exact : completeArgs(tool, givenArgs(matcher), words);
  return { tool: expect.tool, args };
}

/** The final answer naming what the scenario asks it to name, placeholders filled from the failure. */
function answer(lead: string, mentions: readonly string[] | undefined, result: JsonObject): string {
  const values: Record<string, string> = {};
  for (const k of ["approval_id", "failure", "reason"]) if (typeof result[k] === "string") values[k] = result[k] as string;
  const named = (mentions ?? []).map((m) => m.replace(/\{(approval_id|failure|reason)\}/g, (_, k: string) => values[k] ?? ""));
  return [lead, ...named].filter((s) => s !== "").join(" ");
}

const reactionMentions = (r: Reaction | null): readonly string[] | undefined => (r !== null && "mentions" in r ? r.mentions : undefined);

export function scriptedAgent(suites: readonly Suite[]): Agent {
  const byIntent = new Map<string, Scenario>();
  for (const suite of suites) {
    for (const s of suite.scenarios) {
      const key = intentKey(s.intent.message, s.intent.context ?? {});
      if (!byIntent.has(key)) byIntent.set(key, s);
    }
  }
  return {
    name: "scripted",
    async step(messages: readonly AgentMessage[], tools: readonly AgentTool[]): Promise<AgentStep> {
      const message = userMessage(messages);
      const facts = contextFacts(messages);
      const scenario = byIntent.get(intentKey(message, facts));
      if (scenario === undefined) return { kind: "final", text: "No scenario of the suites states this intent; nothing to play." };
      if ("no_call" in scenario.expect) {
        const { why, mentions } = scenario.expect.no_call;
        return { kind: "final", text: answer(`No call (${why}).`, mentions, {}) };
      }
      const words = intentValues(message, facts);
      const main = plan(scenario.expect.call, tools, words);
      const history = exchanges(messages);
      const callOf = (c: PlannedCall): AgentStep => {
        const tool = tools.find((t) => t.name === c.tool);
        return { kind: "tool_calls", calls: [{ id: `call_${history.length}`, tool: c.tool, args: c.args, ...(tool?.requires_operation_id === true ? { operation_id: operationIdFor(c) } : {}) }] };
      };
      if (history.length === 0) return callOf(main);

      const isMain = (call: { tool: string; args: unknown }): boolean => call.tool === main.tool && canonicalize(call.args) === canonicalize(main.args);
      const last = history[history.length - 1]!;
      const r = last.result ?? {};
      const reaction = scenario.reaction;
      if (!isMain(last.call)) {
        // The answer to the read-back or the switched call: report it.
        return { kind: "final", text: answer(`${last.call.tool} answered ${text(r.value ?? r)}.`, reactionMentions(reaction), firstFailure(history) ?? r) };
      }
      const attempts = history.filter((h) => isMain(h.call)).length;
      const scripted = scenario.responses[main.tool]?.[attempts - 1];
      const failed = r.outcome !== "success" || (scripted !== undefined && scripted.kind !== "normal");
      if (!failed || reaction === null) {
        return { kind: "final", text: r.outcome === "success" ? `Done: ${main.tool} succeeded: ${text(r.value)}.` : `${main.tool} failed (${String(r.failure ?? r.reason)}): ${String(r.message)}.` };
      }
      switch (reaction.class) {
        case "retry_same_operation": {
          const tool = tools.find((t) => t.name === main.tool);
          const bound = reaction.max_attempts ?? Math.max(tool?.max_attempts ?? 1, 3);
          const terminal = r.outcome === "terminal_failure" && r.reason !== "approval_required";
          const after = r.outcome === "retryable_failure" && typeof r.retry_after_ms === "number" ? r.retry_after_ms : 0;
          if (r.outcome === "success" || terminal || attempts >= bound || after > WAIT_BUDGET_MS) {
            return { kind: "final", text: `${main.tool} after ${attempts} attempt(s): ${String(r.outcome)} ${String(r.failure ?? r.reason ?? "")} ${text(r.value ?? r.message)}.` };
          }
          await sleep(after);
          return callOf(main);
        }
        case "stop_and_surface":
          return { kind: "final", text: answer(`${main.tool} failed: ${String(r.failure ?? r.reason ?? "its answer could not be trusted")} (${String(r.message ?? text(r.observed_state))}). Not retrying.`, reaction.mentions, r) };
        case "wait_for_approval":
          return { kind: "final", text: answer(`${main.tool} waits for a human approval (${String(r.approval_id ?? "not issued")}); it proceeds once approved.`, reaction.mentions, r) };
        case "switch_call":
          return callOf(plan(reaction.to, tools, words));
        case "reconcile": {
          if (reaction.read === undefined) return { kind: "final", text: answer(`${main.tool} could not be trusted as answered; observed state: ${text(r.observed_state ?? r.value)}.`, reaction.mentions, r) };
          const read = tools.find((t) => t.name === reaction.read);
          const sources = [main.args, isObject(r.value) ? r.value : {}, isObject(r.observed_state) ? r.observed_state : {}];
          const resource = typeof r.resource_id === "string" ? r.resource_id : undefined;
          const args = completeArgs(read, {}, resource === undefined ? words : [resource, ...words], sources);
          return callOf({ tool: reaction.read, args });
        }
      }
    },
  };
}

/** The first failure answer of the trajectory (for the placeholders of the final answer). */
function firstFailure(history: ReturnType<typeof exchanges>): JsonObject | null {
  return history.find((h) => h.result !== null && h.result.outcome !== "success")?.result ?? null;
}
