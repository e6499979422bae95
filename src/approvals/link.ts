/** The inbox page of one approval: `<base>/approvals/<id>` (the link webhooks and MCP answers carry). */
export function approvalPageUrl(baseUrl: string, approvalId: string): string {
  const base = baseUrl.endsWith("/") ? baseUrl.slice(0, -1) : baseUrl;
  return `${base}/approvals/${encodeURIComponent(approvalId)}`;
}
