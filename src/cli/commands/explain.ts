import { existsSync, readFileSync } from "node:fs";
import { policyFiles } from "../../../codegen/compiler/build.js";
import { formatDiagnostic } from "../../../codegen/diagnostics.js";
import { compileExplainer, queryText } from "../../../codegen/compiler/explain.js";
import { formatExplanation, formatOutcome } from "../../../codegen/compiler/explain-format.js";
import type { JsonObject } from "../../manifest.js";
import { isPolicyLoadError } from "../../policy/opa-wasm-engine.js";
import { loadPolicyFile } from "../../policy/policy-file.js";
import type { PolicyInput } from "../../policy/engine.js";
import { opaDecisionEvent } from "../../runtime/decision-log.js";
import { decisionIdOfError } from "../../runtime/thrown-errors.js";
import { formatDecisionOrigin, formatHandlerError } from "./log.js";
import { addLogStoreOptions, openLogStore } from "../log-store.js";
import { parseOutputFormat } from "../option-parsers.js";
import type { LogStoreOptions } from "../log-store.js";
import type { RegisterCommand } from "./index.js";
import { loggedFigureLines } from "../logged-figures.js";

interface ExplainOptions extends LogStoreOptions {
  readonly policies: string;
  readonly policy: string;
  readonly data: string;
  readonly format: "pretty" | "json";
}

const sameDecision = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

export const registerExplain: RegisterCommand = (program, setExitCode) => {
  addLogStoreOptions(
    program
      .command("explain")
      .description("re-evaluate a logged decision's input and show every rule's value (the `eval --explain` table)")
      .argument("<decision_id>", "a decision id from `toolgate log`, or the error id (e_...) a model was given for a thrown handler error")
      .option("--policies <dir>", "the Rego sources of the policy", "policies")
      .option("--policy <file>", "the compiled policy in force (its version is compared with the logged one)", "generated/policy.wasm")
      .option("--data <file>", "the policy data", "policies/data.json")
      .option("--format <format>", "pretty or json", parseOutputFormat, "pretty"),
  ).action(async (key: string, opts: ExplainOptions) => {
    // An error id names the decision of the call whose handler threw it.
    const decisionId = decisionIdOfError(key) ?? key;
    const opened = await openLogStore("explain", opts);
    if ("error" in opened) {
      console.error(opened.error);
      return setExitCode(opened.exitCode);
    }
    let record;
    try {
      record = await opened.store.getDecision(decisionId);
    } finally {
      await opened.store.close();
    }
    if (record === null) {
      console.error(`toolgate explain: no decision ${JSON.stringify(key)} in the store\n  hint: list decision ids with \`toolgate log\``);
      return setExitCode(1);
    }
    if (record.input === null || record.path === null) {
      console.error(`toolgate explain: decision ${decisionId} was answered before the policy was asked (${record.outcome_reason ?? record.reason ?? record.decision}); there is no policy input to explain`);
      return setExitCode(1);
    }
    for (const [file, hint] of [[opts.policies, "pass --policies DIR"], [opts.data, "pass --data FILE"]] as const) {
      if (!existsSync(file)) {
        console.error(`${file}:1:1 file_not_found: ${file} does not exist\n  hint: ${hint}`);
        return setExitCode(1);
      }
    }
    let data: JsonObject;
    try {
      data = JSON.parse(readFileSync(opts.data, "utf8")) as JsonObject;
    } catch (err) {
      console.error(`${opts.data}:1:1 invalid_json: ${err instanceof Error ? err.message : String(err)}`);
      return setExitCode(1);
    }
    // Which policy version is on disk, and what it decides for the logged input.
    let current: { version: string; decision: unknown } | null = null;
    if (existsSync(opts.policy)) {
      try {
        const engine = await loadPolicyFile(opts.policy, { entrypoint: record.path, data });
        const d = await engine.evaluate(record.input as unknown as PolicyInput);
        current = { version: engine.version, decision: d };
      } catch (err) {
        if (!isPolicyLoadError(err)) throw err;
        console.error(`${opts.policy}:1:1 policy_load_error: ${err.message} (the version check is skipped)`);
      }
    }
    const modules = policyFiles(opts.policies).map((file) => ({ file, source: readFileSync(file, "utf8") }));
    const explainer = await compileExplainer({ modules, query: record.path });
    if ("errors" in explainer) {
      for (const e of explainer.errors) console.error(formatDiagnostic(e));
      return setExitCode(1);
    }
    const explanation = explainer.explain({ input: record.input, data });
    const queried = explanation.rules.find((r) => r.path === queryText(record.path!));
    const reproduced = queried !== undefined && queried.outcome.status === "value" && sameDecision(queried.outcome.value, record.result);
    const sameVersion = current !== null && current.version === record.policy_version;
    if (opts.format === "json") {
      console.log(
        JSON.stringify(
          {
            decision: opaDecisionEvent(record),
            policy_on_disk: current === null ? null : { version: current.version, same_version: sameVersion, decision: current.decision },
            reproduced,
            explanation: { rules: explanation.rules },
          },
          null,
          2,
        ),
      );
    } else {
      const at = new Date(record.at_ms).toISOString();
      console.log(`decision ${record.decision_id} at ${at}: ${record.tenant}/${record.user} ${record.tool}${record.operation_id === null ? "" : ` (operation ${record.operation_id})`}`);
      console.log(`  logged     ${record.decision} ${record.reason ?? ""} -> ${record.outcome}${record.outcome_reason === null ? "" : ` ${record.outcome_reason}`}  under ${record.policy_version ?? "(unknown version)"}`);
      if (current === null) console.log(`  on disk    (no ${opts.policy}: the version it was made under cannot be checked)`);
      else if (sameVersion) console.log(`  on disk    ${opts.policy} + ${opts.data} is the version it was made under`);
      else console.log(`  on disk    ${current.version} differs from the logged version: the rules below are today's (${opts.policies}), decided ${JSON.stringify(current.decision)}`);
      for (const line of formatDecisionOrigin(record)) console.log(`  ${line}`);
      for (const line of loggedFigureLines(record.input)) console.log(`  ${line}`);
      if (record.erased.length > 0) console.log(`  erased     ${record.erased.join(", ")} (not in the logged input: rules reading them see undefined)`);
      if (record.error !== null) console.log(`  handler    threw; the model saw only the error id\n${formatHandlerError(record.error).replace(/^/gm, "    ")}`);
      console.log(`  reproduced ${reproduced ? "yes" : `NO: the rules give ${queried === undefined ? "nothing" : formatOutcome(queried.outcome)}, the log says ${JSON.stringify(record.result)}`}`);
      console.log(`\n${formatExplanation(explanation)}`);
    }
    if (!reproduced) setExitCode(1);
  });
};
