/** HTML escaping for everything the inbox renders: every value an agent or a human supplied is text, never markup. */
const map: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;", "`": "&#96;" };

export const escapeHtml = (v: unknown): string => String(v).replace(/[&<>"'`]/g, (c) => map[c] ?? c);

/** A value as pretty JSON, escaped. */
export const jsonHtml = (v: unknown): string => escapeHtml(JSON.stringify(v, null, 2));
