/** Policy unit tests (`toolgate test`): discovery, running through the SDK, coverage, reports. */
export { findRegoFiles, isPathError, PathError } from "./files.js";
export { discoverTests, isTestFile, type PolicyTest } from "./discover.js";
export { runPolicyTests, type RunOptions, type RunReport, type TestResult, type TestStatus } from "./run.js";
export { buildCoverage, formatRanges, type CoveragePoint, type CoverageReport, type FileCoverage } from "./coverage.js";
export { countResults, formatCoverageJson, formatJson, formatPretty, type Counts } from "./report.js";
export { loadDataFiles, type DataLoad } from "./data-files.js";
