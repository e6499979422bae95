# The shipped authorization policy for tool calls (Rego v1).
#
# The runtime evaluates `data.toolgate.authz.decision` right before every effect
# with this input (built by the runtime from trusted state, never from the model):
#
#   {
#     "tool": "reserve_funds", "effect": "reversible_write",
#     "args": {...}, "fingerprint": "<sha-256 hex of tenant, tool, fingerprint args>",
#     "args_hash": "<sha-256 hex of tenant, tool and the complete args>",
#     "operation_id": "op-1" | null (reads may omit it),
#     "principal": {"tenant": "t1", "user": "alice", "roles": ["agent"]},
#     "context": {...} (the tool's declared host facts, resolved right before this decision),
#     "approval": null | {"id", "tenant", "tool", "fingerprint", "args_hash", "operation_id",
#                         "decision": null | "approve" | "edit" | "reject" | "revoke",
#                         "requested_by", "approver", "approver_roles", "expires_at_ms",
#                         "policy_version", "policy_code_version", "policy_data_version",
#                         "consumed"},
#     "now_ms": 1700000000000,
#     "policy_version": "sha256:...", "policy_code_version": "sha256:...", "policy_data_version": "sha256:..."
#   }
#
# and expects one decision object {allow, reason, requires_approval}:
#   - read is allowed;
#   - reversible_write and external_write need an approval for this exact call
#     (same tenant, tool, fingerprint, complete arguments and operation id), decided "approve",
#     unexpired, not yet consumed, and given under the current policy code; without one the
#     call requires approval;
#   - destructive is denied, even with an approval;
#   - anything unexpected (malformed input, unknown effect) is denied.
#
# The runtime adds two denials of its own around this policy: an evaluation error is
# "policy_evaluation_error", and an evaluation that takes more steps (loop iterations plus
# function calls) than its budget, createRuntime({ policyBudget }) (default 10^6; this
# policy takes 11-14), is stopped and answered "policy_budget_exceeded".
#
# The runtime enforces the binding of an approval (tenant, tool, argument hash, operation,
# decision, expiry, single use) itself whatever this policy says; the checks here say why.
#
# Which policy change voids an approval: a change of the policy CODE does (the rules the
# approver relied on may now mean something else), a change of the DATA alone does not:
# every data-driven rule (limits, roles) is evaluated again at commit time, before the
# approval is looked at, so tightened data still denies an approved call, and the approval
# binds the exact arguments, so loosened data cannot widen what was approved. Editing a
# limit therefore leaves outstanding approvals usable instead of silently voiding them.
#
# Platform extensions read from data (policies/data.json), both optional:
#
#   data.toolgate.config.limits: per-tool argument maxima, checked for every effect
#     {"reserve_funds": {"amount": {"max": 1000000}}}
#       -> reserve_funds with amount 1000001 is denied with "limit_exceeded",
#          approved or not.
#
#   data.toolgate.config.roles: per-role permissions, by effect class or tool name.
#     When present, a call needs at least one principal role that permits it:
#     {"agent":  {"effects": ["read", "reversible_write", "external_write"]},
#      "viewer": {"effects": ["read"]},
#      "notifier": {"tools": ["send_notification"]}}
#       -> a "viewer" calling reserve_funds is denied with "role_not_permitted".
package toolgate.authz

default decision := {"allow": false, "reason": "no_rule_matched", "requires_approval": false}

decision := deny("input_malformed") if {
	not well_formed
} else := deny("unknown_effect") if {
	not input.effect in effects
} else := deny("destructive_denied") if {
	input.effect == "destructive"
} else := deny("role_not_permitted") if {
	roles_enforced
	not role_permits
} else := deny("limit_exceeded") if {
	exceeds_limit
} else := allow("read_allowed") if {
	input.effect == "read"
} else := ask("approval_required") if {
	input.approval == null
} else := deny(approval_mismatch) if {
	approval_mismatch
} else := ask("approval_pending") if {
	input.approval.decision == null
} else := allow("approved") if {
	input.approval.decision == "approve"
} else := deny("approval_rejected") if {
	input.approval.decision == "reject"
} else := deny("approval_revoked") if {
	input.approval.decision == "revoke"
} else := deny("approval_edited") if {
	# An edit approves different arguments, which form a new call with its own approval.
	input.approval.decision == "edit"
}

effects := {"read", "reversible_write", "external_write", "destructive"}

allow(reason) := {"allow": true, "reason": reason, "requires_approval": false}

deny(reason) := {"allow": false, "reason": reason, "requires_approval": false}

ask(reason) := {"allow": false, "reason": reason, "requires_approval": true}

well_formed if {
	is_string(input.tool)
	is_string(input.effect)
	is_object(input.args)
	is_string(input.fingerprint)
	is_string(input.args_hash)
	string_or_null(input.operation_id)
	is_string(input.principal.tenant)
	is_string(input.principal.user)
	is_array(input.principal.roles)
	is_number(input.now_ms)
	is_string(input.policy_version)
	is_string(input.policy_code_version)
	is_string(input.policy_data_version)
	approval_well_formed
}

approval_well_formed if input.approval == null

approval_well_formed if {
	is_string(input.approval.id)
	is_string(input.approval.tenant)
	is_string(input.approval.tool)
	is_string(input.approval.fingerprint)
	is_string(input.approval.args_hash)
	string_or_null(input.approval.operation_id)
	is_number(input.approval.expires_at_ms)
	is_string(input.approval.policy_code_version)
	is_boolean(input.approval.consumed)
}

string_or_null(x) if is_string(x)

string_or_null(x) if x == null

# The first reason, in this order, why the presented approval does not cover this call.
approval_mismatch := "approval_tenant_mismatch" if {
	input.approval.tenant != input.principal.tenant
} else := "approval_tool_mismatch" if {
	input.approval.tool != input.tool
} else := "approval_fingerprint_mismatch" if {
	input.approval.fingerprint != input.fingerprint
} else := "approval_args_mismatch" if {
	# The approver saw every argument: any difference, even outside the fingerprint, is another call.
	input.approval.args_hash != input.args_hash
} else := "approval_operation_mismatch" if {
	# One approval, one operation: the same arguments under a new operation id need a new approval.
	input.approval.operation_id != input.operation_id
} else := "approval_policy_changed" if {
	# Only a code change voids an approval (see the header); data is re-checked on every call.
	input.approval.policy_code_version != input.policy_code_version
} else := "approval_expired" if {
	input.now_ms >= input.approval.expires_at_ms
} else := "approval_consumed" if {
	input.approval.consumed
}

roles_enforced if data.toolgate.config.roles

role_permits if {
	some role in input.principal.roles
	input.effect in data.toolgate.config.roles[role].effects
}

role_permits if {
	some role in input.principal.roles
	input.tool in data.toolgate.config.roles[role].tools
}

exceeds_limit if {
	some field, limit in data.toolgate.config.limits[input.tool]
	input.args[field] > limit.max
}
