export { chainLink, contentHash, genesisLink } from "./link.js";
export { approvalDecisionContent, decisionContent } from "./content.js";
export type { ChainKind } from "./content.js";
export { isChainSource } from "./records.js";
export type { ChainHead, ChainItem, ChainPruned, ChainRecord, ChainSnapshot, ChainSource } from "./records.js";
export { verifyChain } from "./verify.js";
export type { BreakProblem, ChainBreak, ChainVerdict, TenantVerdict } from "./verify.js";
export { ChainExportError, chainExportFormat, exportLines, isChainExportError, parseExport } from "./export.js";
