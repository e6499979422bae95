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

/** Words that make a field name look like identity (a near miss of the names above). */
const identityWords = new Set([
  "tenant", "tenants", "user", "users", "username", "usernames", "principal", "principals", "owner", "owners",
  "approver", "approvers", "actor", "caller", "subject", "impersonate", "impersonator", "impersonation", "sudo",
  "role", "roles", "permission", "permissions", "scope", "scopes", "uid", "org", "organization", "organisation",
]);
/** Identity words that also count inside an unseparated name ("tenantname", "myprincipal"). */
const identityStems = ["tenant", "principal", "approver", "impersonat", "username"];

const snake = (name: string): string => name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/[-\s.]/g, "_").toLowerCase();

/**
 * True for names that are not on the identity list but look like identity: a word of the
 * name is an identity word (`user_name`, `owner_id`, `as_user`, `customer_tenant`), or it
 * contains a strong identity stem (`tenantname`). A lint: the author checks and renames.
 */
export function looksLikeIdentity(name: string): boolean {
  if (isIdentityField(name)) return false;
  const s = snake(name);
  const words = s.split("_").filter((w) => w !== "");
  return words.some((w) => identityWords.has(w)) || identityStems.some((stem) => s.includes(stem));
}
