/**
 * Property names that carry identity. Identity comes from the trusted runtime context,
 * never from model-proposed arguments, so an input schema may not declare them.
 */
const identityNames = new Set([
  "tenant", "tenant_id", "tenantid", "org", "org_id", "organization_id",
  "user", "user_id", "userid", "username", "uid",
  "principal", "principal_id", "subject", "subject_id", "sub",
  "approver", "approver_id", "approved_by", "approval_id",
  "actor", "actor_id", "caller", "caller_id", "on_behalf_of", "impersonate",
  "role", "roles", "permissions", "scopes",
]);

/** Normalises camelCase and kebab-case to snake_case before comparing. */
export function isIdentityField(name: string): boolean {
  const snake = name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/-/g, "_").toLowerCase();
  return identityNames.has(snake);
}
