/**
 * Loads agent-eval suites from YAML: shape against `suite.schema.json` (the same
 * schema editors use), then meaning against the tool manifest (tools, declared
 * failures and their classes, timings, matchers). Every problem is located
 * (`file:line:col`) and says what to change; all are reported at once.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { ErrorObject } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { JsonObject, Manifest } from "../manifest.js";
import { builtinPredicates, compileMatcherSchema } from "./matchers.js";
import type { ArgPredicate } from "./matchers.js";
import { SuiteLoadError } from "./suite-problem.js";
import type { SuiteProblem } from "./suite-problem.js";
import suiteSchema from "./suite.schema.json" with { type: "json" };

import type { CallExpectation, Expectation, FailureClass, Reaction, ResponseSpec, Scenario, SourceLocation, Suite } from "./suite-types.js";
import { parseLocatedYaml } from "./yaml-locate.js";
import type { LocatedYaml } from "./yaml-locate.js";

export const DEFAULT_PATIENCE_MS = 1_000;
export const DEFAULT_MAX_STEPS = 8;
const MAX_PROBLEMS = 50;

const ajv = new Ajv2020({ allErrors: true, strict: true, discriminator: true });
const validateShape = ajv.compile(suiteSchema);

export interface LoadSuiteOptions {
  readonly manifest: Manifest;
  /** Named argument predicates besides the built-in ones. */
  readonly predicates?: Readonly<Record<string, ArgPredicate>>;
  /** Surfaces the runner knows; a suite naming another one is an error. */
  readonly surfaces?: readonly string[];
}

/** Suite files under `paths`: files as given, directories searched (recursively) for `*.eval.yaml` / `*.eval.yml`. */
export function findSuiteFiles(paths: readonly string[]): { files: string[]; problems: SuiteProblem[] } {
  const files: string[] = [];
  const problems: SuiteProblem[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.eval\.ya?ml$/.test(name)) files.push(p);
    }
  };
  for (const p of paths) {
    let st;
    try {
      st = statSync(p);
    } catch {
      problems.push({ code: "file_not_found", message: `${p} does not exist`, location: { file: p, line: 1, col: 1 }, hint: "pass a suite file or a directory holding *.eval.yaml files" });
      continue;
    }
    if (!st.isDirectory()) files.push(p);
    else {
      const before = files.length;
      walk(p);
      if (files.length === before) {
        problems.push({ code: "no_suites", message: `${p} holds no *.eval.yaml file`, location: { file: p, line: 1, col: 1 }, hint: "name suite files <name>.eval.yaml" });
      }
    }
  }
  return { files, problems };
}

/** Loads every suite under `paths`; throws SuiteLoadError with all problems if any. */
export function loadSuites(paths: readonly string[], options: LoadSuiteOptions): Suite[] {
  const { files, problems } = findSuiteFiles(paths);
  const suites: Suite[] = [];
  for (const file of files) {
    const r = loadSuiteText(readFileSync(file, "utf8"), file, options);
    problems.push(...r.problems);
    if (r.suite !== null) suites.push(r.suite);
  }
  if (problems.length > 0) throw new SuiteLoadError(problems.slice(0, MAX_PROBLEMS));
  return suites;
}

/** Parses and checks one suite; `suite` is null when it has problems. */
export function loadSuiteText(text: string, file: string, options: LoadSuiteOptions): { suite: Suite | null; problems: SuiteProblem[] } {
  const { yaml, problems: syntax } = parseLocatedYaml(text, file);
  if (yaml === null) {
    return { suite: null, problems: syntax.map((p) => ({ ...p, hint: p.code === "duplicate_key" ? "remove or rename one of the two entries" : "fix the YAML syntax at this position" })) };
  }
  if (!validateShape(yaml.value)) return { suite: null, problems: shapeProblems(validateShape.errors ?? [], yaml) };
  const problems: SuiteProblem[] = [];
  const suite = toSuite(yaml.value as unknown as RawSuite, file, yaml, options, problems);
  return problems.length > 0 ? { suite: null, problems } : { suite, problems: [] };
}

// ---- shape -----------------------------------------------------------------

const pathOf = (instancePath: string): (string | number)[] =>
  instancePath === "" ? [] : instancePath.slice(1).split("/").map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~")).map((s) => (/^\d+$/.test(s) ? Number(s) : s));

const valueAt = (root: unknown, path: readonly (string | number)[]): unknown =>
  path.reduce<unknown>((v, k) => (v !== null && typeof v === "object" ? (v as Record<string | number, unknown>)[k] : undefined), root);

function shapeProblems(errors: readonly ErrorObject[], yaml: LocatedYaml): SuiteProblem[] {
  // A response is either a shorthand string or an object: keep only the branch of the value's own type.
  const relevant = errors.filter((e) => {
    if (e.keyword === "anyOf" || e.keyword === "oneOf") return false;
    const branch = /\/anyOf\/(\d)(?:\/|$)/.exec(e.schemaPath);
    if (branch === null) return true;
    const isString = typeof valueAt(yaml.value, pathOf(e.instancePath).slice(0, responseDepth(e.instancePath))) === "string";
    return branch[1] === "0" ? isString : !isString;
  });
  const out = (relevant.length > 0 ? relevant : errors).map((e) => shapeProblem(e, yaml));
  const seen = new Set<string>();
  return out.filter((p) => {
    const k = `${p.location.line}:${p.location.col}:${p.code}:${p.message}`;
    return seen.has(k) ? false : (seen.add(k), true);
  });
}

/** Depth of a response value in `/scenarios/N/responses/TOOL/M/...`. */
const responseDepth = (instancePath: string): number => Math.min(pathOf(instancePath).length, 5);

function shapeProblem(e: ErrorObject, yaml: LocatedYaml): SuiteProblem {
  const path = pathOf(e.instancePath);
  const where = e.instancePath === "" ? "the file" : e.instancePath;
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "additionalProperties": {
      const field = String(p.additionalProperty);
      return { code: "unknown_field", message: `unknown field "${field}" in ${where}`, location: yaml.locate([...path, field], { key: true }), hint: "remove it, or check its spelling against src/evals/suite.schema.json" };
    }
    case "required":
      return { code: "missing_field", message: `${where} needs "${String(p.missingProperty)}"`, location: yaml.locate(path), hint: "add the missing field" };
    case "discriminator": {
      const tag = String(p.tag);
      const allowed = tag === "kind" ? "normal, slow, partial, silent, stale, retryable, terminal, timeout, approval_required" : "retry_same_operation, stop_and_surface, reconcile, switch_call, wait_for_approval";
      return { code: `unknown_${tag}`, message: `${where}: ${tag} ${JSON.stringify(p.tagValue ?? null)} is not one of ${allowed}`, location: yaml.locate([...path, tag]), hint: `use one of: ${allowed}` };
    }
    case "minProperties":
    case "maxProperties":
      return { code: "one_entry_expected", message: `${where} must have exactly one entry`, location: yaml.locate(path), hint: path.at(-1) === "args" ? "use one of exact, subset, schema or predicate" : "use either call or no_call" };
    default:
      return { code: `invalid_${e.keyword}`, message: `${where} ${e.message ?? "is invalid"}`, location: yaml.locate(path), hint: "see src/evals/suite.schema.json for the accepted forms" };
  }
}

// ---- meaning ---------------------------------------------------------------

interface RawCall { tool: string; args?: Record<string, unknown> }
interface RawScenario {
  id: string;
  title?: string;
  intent: { message: string; context?: JsonObject };
  tools?: string[];
  state?: JsonObject;
  expect: { call?: RawCall; no_call?: { why: string; mentions?: string[] } };
  responses?: Record<string, (string | Record<string, unknown>)[]>;
  reaction?: Record<string, unknown>;
  patience_ms?: number;
  max_steps?: number;
}
interface RawSuite {
  suite: string;
  description?: string;
  surface?: string;
  defaults?: { patience_ms?: number; timeout_ms?: number; max_steps?: number };
  scenarios: RawScenario[];
}

function toSuite(raw: RawSuite, file: string, yaml: LocatedYaml, o: LoadSuiteOptions, problems: SuiteProblem[]): Suite {
  const add = (code: string, message: string, path: (string | number)[], hint: string, key = false): void => {
    problems.push({ code, message, location: yaml.locate(path, { key }), hint });
  };
  const surface = raw.surface ?? "escrow";
  if (o.surfaces !== undefined && !o.surfaces.includes(surface)) {
    add("unknown_surface", `surface "${surface}" is not known here`, ["surface"], `use one of: ${o.surfaces.join(", ")}, or pass a surface module to the runner`);
  }
  const predicates = { ...builtinPredicates, ...(o.predicates ?? {}) };
  const toolNames = Object.keys(o.manifest.tools);
  const timeoutOverride = raw.defaults?.timeout_ms ?? null;
  const seen = new Map<string, number>();
  const scenarios: Scenario[] = [];

  raw.scenarios.forEach((s, i) => {
    const at = (...rest: (string | number)[]): (string | number)[] => ["scenarios", i, ...rest];
    if (seen.has(s.id)) add("duplicate_scenario", `scenario id "${s.id}" is used twice (first at scenario ${seen.get(s.id)! + 1})`, at("id"), "give every scenario its own id");
    seen.set(s.id, i);
    const checkTool = (name: string, path: (string | number)[], key = false): boolean => {
      if (o.manifest.tools[name] !== undefined) return true;
      add("unknown_tool", `tool "${name}" is not in the manifest`, path, `use one of: ${toolNames.join(", ")}`, key);
      return false;
    };
    (s.tools ?? []).forEach((t, j) => checkTool(t, at("tools", j)));
    const offered = (name: string, path: (string | number)[]): void => {
      if (s.tools !== undefined && o.manifest.tools[name] !== undefined && !s.tools.includes(name)) {
        add("tool_not_offered", `"${name}" is expected but not among this scenario's tools`, path, `add ${name} to tools, or expect another call`);
      }
    };
    const checkCall = (c: RawCall, path: (string | number)[]): void => {
      if (checkTool(c.tool, [...path, "tool"])) offered(c.tool, [...path, "tool"]);
      const a = c.args;
      if (a !== undefined && "schema" in a) {
        try {
          compileMatcherSchema(a.schema as JsonObject);
        } catch (err) {
          add("invalid_matcher_schema", `argument schema does not compile: ${err instanceof Error ? err.message : String(err)}`, [...path, "args", "schema"], "write a JSON Schema (2020-12) for the arguments");
        }
      }
      if (a !== undefined && "predicate" in a && predicates[String(a.predicate)] === undefined) {
        add("unknown_predicate", `predicate "${String(a.predicate)}" is not registered`, [...path, "args", "predicate"], `use one of: ${Object.keys(predicates).join(", ")}, or register it with the runner`);
      }
    };
    if (s.expect.call !== undefined) checkCall(s.expect.call, at("expect", "call"));

    const patience = s.patience_ms ?? raw.defaults?.patience_ms ?? DEFAULT_PATIENCE_MS;
    const responses: Record<string, ResponseSpec[]> = {};
    let failureClass: FailureClass | null = null;
    let failureTool: string | null = null;
    for (const [tool, list] of Object.entries(s.responses ?? {})) {
      if (!checkTool(tool, at("responses", tool), true)) continue;
      const entry = o.manifest.tools[tool]!;
      const timeout = timeoutOverride ?? entry.timeout_ms;
      responses[tool] = list.map((r, j) => {
        const spec = toResponse(r);
        const path = at("responses", tool, j);
        if (spec.kind === "retryable" || spec.kind === "terminal") {
          const declared = entry.failures[spec.failure];
          const want = spec.kind === "retryable" ? "retryable" : "permanent";
          if (declared === undefined) {
            add("undeclared_failure", `${tool} declares no failure "${spec.failure}"`, [...path, "failure"], `use one of ${tool}'s failures in tools.yaml: ${Object.keys(entry.failures).join(", ") || "(none)"}`);
          } else if (declared.class !== want) {
            add("failure_class_mismatch", `${tool}'s failure "${spec.failure}" is ${declared.class}, not ${want}`, [...path, "failure"], `use kind: ${declared.class === "retryable" ? "retryable" : "terminal"}, or a ${want} failure`);
          }
        }
        if (spec.kind === "slow" && !(spec.delay_ms > patience && spec.delay_ms < timeout)) {
          add("slow_out_of_range", `a slow answer after ${spec.delay_ms} ms must be longer than the agent's patience (${patience} ms) and shorter than ${tool}'s timeout (${timeout} ms)`, [...path, "delay_ms"], "pick a delay between the two, or change patience_ms / defaults.timeout_ms");
        }
        if (spec.kind === "approval_required" && entry.effect === "read") {
          add("approval_on_read", `${tool} is a read; the gate never asks approval for it`, path, "script approval_required on a write tool");
        }
        if (spec.kind !== "normal" && failureClass === null) {
          failureClass = spec.kind;
          failureTool = tool;
        }
        return spec;
      });
    }
    const reaction = s.reaction === undefined ? null : toReaction(s.reaction);
    if (failureClass !== null && reaction === null) {
      add("missing_reaction", `scenario "${s.id}" scripts a ${String(failureClass)} response of ${String(failureTool)} but states no expected reaction`, at("id"), "add reaction: { class: retry_same_operation | stop_and_surface | reconcile | switch_call | wait_for_approval }");
    }
    if (failureClass === null && reaction !== null) {
      add("reaction_without_failure", `scenario "${s.id}" states a reaction but scripts no failure response`, at("reaction"), "script a failure response, or remove the reaction");
    }
    if (reaction !== null && reaction.class === "reconcile" && reaction.read !== undefined) {
      if (checkTool(reaction.read, at("reaction", "read")) && o.manifest.tools[reaction.read]!.effect !== "read") {
        add("reconcile_not_a_read", `reconcile reads state, but ${reaction.read} is a ${o.manifest.tools[reaction.read]!.effect}`, at("reaction", "read"), "name a read tool");
      }
    }
    if (reaction !== null && reaction.class === "switch_call") checkCall(s.reaction!.to as unknown as RawCall, at("reaction", "to"));

    scenarios.push({
      id: s.id,
      title: s.title ?? s.intent.message,
      intent: s.intent.context === undefined ? { message: s.intent.message } : { message: s.intent.message, context: s.intent.context },
      tools: s.tools ?? null,
      state: s.state ?? null,
      expect: toExpectation(s.expect),
      responses,
      reaction,
      failure_class: failureClass,
      patience_ms: patience,
      max_steps: s.max_steps ?? raw.defaults?.max_steps ?? DEFAULT_MAX_STEPS,
      location: yaml.locate(at()) satisfies SourceLocation,
    });
  });
  return { file, name: raw.suite, description: raw.description ?? "", surface, timeout_ms: timeoutOverride, scenarios };
}

function toResponse(r: string | Record<string, unknown>): ResponseSpec {
  if (typeof r === "string") return r === "approval_required" ? { kind: "approval_required", decision: "pending" } : ({ kind: r } as ResponseSpec);
  if (r.kind === "approval_required") return { kind: "approval_required", decision: r.decision === "reject" ? "reject" : "pending" };
  return r as unknown as ResponseSpec;
}

const toReaction = (r: Record<string, unknown>): Reaction => r as unknown as Reaction;

function toExpectation(e: RawScenario["expect"]): Expectation {
  if (e.call !== undefined) return { call: e.call as unknown as CallExpectation };
  const n = e.no_call!;
  return { no_call: n.mentions === undefined ? { why: n.why as never } : { why: n.why as never, mentions: n.mentions } };
}

