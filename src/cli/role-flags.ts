/**
 * Roles from the command line, the same way in every command: `--role R`, repeatable.
 * `mcp` also still accepts the older comma-separated `--roles a,b` (deprecated).
 */

/** commander's collector for a repeatable option. */
export const collectRepeated = (v: string, prev: string[] = []): string[] => [...prev, v];

export interface RoleFlags {
  readonly role?: readonly string[];
  /** Deprecated comma-separated form. */
  readonly roles?: string;
}

/** The roles named by `--role` (repeated) and the deprecated `--roles a,b`, in order, without duplicates or blanks. */
export function rolesFromFlags(f: RoleFlags): { readonly roles: string[]; readonly deprecatedRolesFlag: boolean } {
  const legacy = f.roles === undefined ? [] : f.roles.split(",");
  const roles = [...new Set([...(f.role ?? []), ...legacy].map((r) => r.trim()).filter((r) => r !== ""))];
  return { roles, deprecatedRolesFlag: f.roles !== undefined };
}
