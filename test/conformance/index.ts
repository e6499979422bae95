/** The conformance runner as a library (the CLI is cli.ts). */
export { loadCases, parseCaseFile, listCaseFiles, type ConformanceCase } from "./cases.js";
export { defaultCaseDir } from "../helpers/conformance-dir.js";
export { runCase, judge, queryEntrypoint, type CaseOutcome, type CaseStatus } from "./run-case.js";
export { runCasesIsolated, type PoolOptions } from "./pool.js";
export { loadSkips } from "./skips.js";
export { summarize, formatReport, summaryLine, passRate, type Summary, type Tally } from "./report.js";
export { topicClass, type TopicClass } from "./topics.js";
export { readFloor, raiseFloor } from "./floor.js";
