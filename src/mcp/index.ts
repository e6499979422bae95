/** toolgate/mcp: the gate's tools as an MCP server (stdio or Streamable HTTP). */
export { createMcpServer } from "./server.js";
export type { McpConnection, McpEra, McpPrincipal, McpServerOptions } from "./server.js";
export { createMcpHttpHandler, serveMcpHttp } from "./http.js";
export { serveMcpStdio } from "./stdio.js";
export type { McpStdioHandle, McpStdioOptions } from "./stdio.js";
export { RequestStateError } from "./request-state.js";
export type { RequestStateRefusal } from "./request-state.js";
export type { McpHttpOptions } from "./http.js";
export { BearerTokenError, hs256Secret, MCP_AUDIENCE, principalFromAuth, verifyBearerToken } from "./bearer.js";
export type { VerifiedPrincipal } from "./bearer.js";
export { approvalUrl, toToolResult } from "./tool-result.js";
export type { ApprovalLink } from "./tool-result.js";
export { toMcpTool, toolAnnotations } from "./tool-listing.js";
export { hostProblem, localHosts } from "./host-check.js";
