import { existsSync, readFileSync } from "node:fs";
import { InvalidArgumentError } from "commander";
import { parseDuration } from "../../../codegen/toolsyaml/duration.js";
import type { JsonObject } from "../../manifest.js";
import { isPolicyLoadError } from "../../policy/opa-wasm-engine.js";
import { loadPolicyFile, readBundleFiles } from "../../policy/policy-file.js";
import { replayDecisions, replayFails } from "../../runtime/replay.js";
import type { ReplayFailOn } from "../../runtime/replay.js";
import type { DecisionQuery } from "../../store/store.js";
import { defaultEntrypoint } from "../default-entrypoint.js";
import { addLogStoreOptions, openLogStore, parseSince } from "../log-store.js";
import { parseOutputFormat, parsePositiveInteger } from "../option-parsers.js";
import type { LogStoreOptions } from "../log-store.js";
import { formatReplay } from "../replay-format.js";
import type { RegisterCommand } from "./index.js";

interface ReplayOptions extends LogStoreOptions {
  readonly policy: string;
  readonly data?: string;
  readonly entrypoint?: string;
  readonly since?: string;
  readonly tenant?: string;
  readonly tool?: string;
  readonly limit: number;
  readonly failOn: ReplayFailOn;
  readonly format: "pretty" | "json";
}

const DEFAULT_DATA = "policies/data.json";

const failOn = (v: string): ReplayFailOn => {
  if (v !== "flips" && v !== "changes" && v !== "never") throw new InvalidArgumentError("must be flips, changes or never");
  return v;
};

const isBundle = (file: string): boolean => {
  const b = readFileSync(file);
  return b.length > 2 && b[0] === 0x1f && b[1] === 0x8b;
};

export const registerReplay: RegisterCommand = (program, setExitCode) => {
  addLogStoreOptions(
    program
      .command("replay")
      .description("re-evaluate logged decisions under a candidate policy and report what would change; exit 1 on flips (allow <-> deny)")
      .requiredOption("--policy <file>", "candidate policy.wasm or bundle.tar.gz (toolgate build)")
      .option("--data <file>", `data for a bare policy.wasm (default: ${DEFAULT_DATA} when it exists; a bundle carries its own)`)
      .option("--entrypoint <path>", "decision entrypoint (default: tools.yaml's policy.entrypoint, else toolgate/authz/decision)")
      .option("--since <when>", "only decisions since a duration ago (24h, 7d) or an ISO time")
      .option("--tenant <tenant>", "only this tenant")
      .option("--tool <tool>", "only this tool")
      .option("--limit <n>", "at most this many logged decisions, newest first", parsePositiveInteger, 100_000)
      .option("--fail-on <what>", "flips (allow <-> deny or approval), changes (any decision or reason), never", failOn, "flips")
      .option("--format <format>", "pretty or json (the full report)", parseOutputFormat, "pretty"),
  ).action(async (opts: ReplayOptions) => {
    let since: number | null = null;
    if (opts.since !== undefined) {
      since = parseSince(opts.since, Date.now(), parseDuration);
      if (since === null) {
        console.error(`toolgate replay: --since ${JSON.stringify(opts.since)} is neither a duration (24h, 7d) nor an ISO time`);
        return setExitCode(2);
      }
    }
    if (!existsSync(opts.policy)) {
      console.error(`${opts.policy}:1:1 file_not_found: ${opts.policy} does not exist\n  hint: build the candidate with \`toolgate build --out DIR\``);
      return setExitCode(1);
    }
    const bundle = isBundle(opts.policy);
    const dataFile = opts.data ?? (!bundle && existsSync(DEFAULT_DATA) ? DEFAULT_DATA : undefined);
    const entrypoint = opts.entrypoint ?? defaultEntrypoint();
    let candidate;
    try {
      const data = dataFile === undefined ? undefined : (JSON.parse(readFileSync(dataFile, "utf8")) as JsonObject);
      candidate = await loadPolicyFile(opts.policy, data === undefined ? { entrypoint } : { entrypoint, data });
    } catch (err) {
      if (!isPolicyLoadError(err) && !(err instanceof SyntaxError)) throw err;
      console.error(`${err instanceof SyntaxError ? dataFile : opts.policy}:1:1 policy_load_error: ${err.message}`);
      return setExitCode(1);
    }
    const opened = await openLogStore("replay", opts);
    if ("error" in opened) {
      console.error(opened.error);
      return setExitCode(opened.exitCode);
    }
    try {
      const query: DecisionQuery = {
        limit: opts.limit,
        ...(opts.tenant === undefined ? {} : { tenant: opts.tenant }),
        ...(opts.tool === undefined ? {} : { tool: opts.tool }),
        ...(since === null ? {} : { since_ms: since }),
      };
      const records = await opened.store.listDecisions(query);
      const report = await replayDecisions(records, candidate);
      if (opts.format === "json") console.log(JSON.stringify(report, null, 2));
      else {
        const filters = [
          since === null ? null : `since ${new Date(since).toISOString()}`,
          opts.tenant === undefined ? null : `tenant ${opts.tenant}`,
          opts.tool === undefined ? null : `tool ${opts.tool}`,
        ].filter((x) => x !== null).join(", ");
        const source = bundle ? `${opts.policy}, bundle data${readBundleFiles(readFileSync(opts.policy), opts.policy).has("data.json") ? "" : " (none)"}` : `${opts.policy}, data ${dataFile ?? "(none)"}`;
        console.log(formatReplay(report, { candidate: source, filters }, opts.failOn, new Map(records.map((r) => [r.decision_id, r.input]))));
      }
      if (replayFails(report, opts.failOn)) setExitCode(1);
    } finally {
      await opened.store.close();
    }
  });
};
