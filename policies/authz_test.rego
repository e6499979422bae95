# Unit tests of policies/authz.rego; run with `npx toolgate test`.
package toolgate.authz_test

import data.toolgate.authz

base := {
	"tool": "reserve_funds",
	"effect": "reversible_write",
	"args": {"account_id": "acc_1", "amount": 10, "currency": "EUR", "recipient": "acc_2"},
	"fingerprint": "fp10",
	"args_hash": "ah10",
	"operation_id": "op1",
	"principal": {"tenant": "t1", "user": "alice", "roles": ["agent"]},
	"context": {},
	"approval": null,
	"now_ms": 1000,
	"policy_version": "pv1",
	"policy_code_version": "pc1",
	"policy_data_version": "pd1",
}

approved := {
	"id": "apr_1",
	"tenant": "t1",
	"tool": "reserve_funds",
	"fingerprint": "fp10",
	"args_hash": "ah10",
	"operation_id": "op1",
	"decision": "approve",
	"requested_by": "alice",
	"approver": "bob",
	"approver_roles": ["approver"],
	"expires_at_ms": 2000,
	"policy_version": "pv1",
	"policy_code_version": "pc1",
	"policy_data_version": "pd1",
	"consumed": false,
}

read_call := object.union(base, {"tool": "get_account", "effect": "read", "args": {"account_id": "acc_1"}, "operation_id": null})

test_read_is_allowed if {
	authz.decision == {"allow": true, "reason": "read_allowed", "requires_approval": false} with input as read_call
}

test_write_without_approval_requires_approval if {
	d := authz.decision with input as base
	d.requires_approval
	not d.allow
	d.reason == "approval_required"
}

test_write_with_matching_approval_is_allowed if {
	authz.decision.allow with input as object.union(base, {"approval": approved})
}

test_external_write_needs_approval_too if {
	authz.decision.requires_approval with input as object.union(base, {"effect": "external_write"})
}

test_approval_for_other_fingerprint_is_denied if {
	d := authz.decision with input as object.union(base, {"fingerprint": "fp1000", "approval": approved})
	not d.allow
	d.reason == "approval_fingerprint_mismatch"
}

test_approval_for_other_operation_is_denied if {
	d := authz.decision with input as object.union(base, {"operation_id": "op2", "approval": approved})
	d.reason == "approval_operation_mismatch"
}

test_approval_of_other_tenant_is_denied if {
	d := authz.decision with input as object.union(base, {"approval": object.union(approved, {"tenant": "t2"})})
	d.reason == "approval_tenant_mismatch"
}

test_expired_approval_is_denied if {
	d := authz.decision with input as object.union(base, {"now_ms": 2000, "approval": approved})
	d.reason == "approval_expired"
}

test_approval_under_old_policy_code_is_denied if {
	d := authz.decision with input as object.union(base, {"policy_version": "pv2", "policy_code_version": "pc2", "approval": approved})
	d.reason == "approval_policy_changed"
}

# Data is re-checked on every call, so a data-only change leaves the approval usable.
test_approval_survives_a_data_only_change if {
	d := authz.decision with input as object.union(base, {"policy_version": "pv2", "policy_data_version": "pd2", "approval": approved})
	d.allow
	d.reason == "approved"
}

test_approval_for_other_arguments_is_denied if {
	# Same fingerprint (the fingerprint fields agree), another argument differs.
	d := authz.decision with input as object.union(base, {"args_hash": "ah_changed_reason", "approval": approved})
	not d.allow
	d.reason == "approval_args_mismatch"
}

test_consumed_approval_is_denied if {
	d := authz.decision with input as object.union(base, {"approval": object.union(approved, {"consumed": true})})
	not d.allow
	d.reason == "approval_consumed"
}

test_pending_approval_still_requires_approval if {
	d := authz.decision with input as object.union(base, {"approval": object.union(approved, {"decision": null})})
	d.requires_approval
	d.reason == "approval_pending"
}

test_rejected_approval_is_denied if {
	authz.decision.reason == "approval_rejected" with input as object.union(base, {"approval": object.union(approved, {"decision": "reject"})})
}

test_revoked_approval_is_denied if {
	authz.decision.reason == "approval_revoked" with input as object.union(base, {"approval": object.union(approved, {"decision": "revoke"})})
}

test_destructive_is_denied_even_when_approved if {
	d := authz.decision with input as object.union(base, {"tool": "close_account", "effect": "destructive", "approval": object.union(approved, {"tool": "close_account"})})
	not d.allow
	not d.requires_approval
	d.reason == "destructive_denied"
}

test_unknown_effect_is_denied if {
	authz.decision.reason == "unknown_effect" with input as object.union(base, {"effect": "teleport"})
}

test_malformed_input_is_denied if {
	authz.decision.reason == "input_malformed" with input as {"tool": "get_account"}
}

test_limit_from_data_denies_large_amounts if {
	d := authz.decision with input as object.union(base, {"args": object.union(base.args, {"amount": 5000}), "approval": approved})
		with data.toolgate.config.limits as {"reserve_funds": {"amount": {"max": 1000}}}
	d.reason == "limit_exceeded"
}

test_role_without_permission_is_denied if {
	d := authz.decision with input as object.union(read_call, {"principal": {"tenant": "t1", "user": "eve", "roles": ["guest"]}})
		with data.toolgate.config.roles as {"viewer": {"effects": ["read"]}}
	d.reason == "role_not_permitted"
}

test_role_permits_by_tool_name if {
	d := authz.decision with input as object.union(base, {"tool": "send_notification", "effect": "external_write", "principal": {"tenant": "t1", "user": "n", "roles": ["notifier"]}})
		with data.toolgate.config.roles as {"notifier": {"tools": ["send_notification"]}}
	d.reason == "approval_required"
}

# The approval was given for 10; the call now asks for 1000: the runtime's
# fingerprint of the arguments differs, so the approval does not carry over.
test_approval_for_10_does_not_authorize_1000 if {
	call := object.union(base, {"args": object.union(base.args, {"amount": 1000}), "fingerprint": "fp1000"})
	d := authz.decision with input as object.union(call, {"approval": approved})
	not d.allow
	d.reason == "approval_fingerprint_mismatch"
}

test_approval_for_other_recipient_is_denied if {
	call := object.union(base, {"args": object.union(base.args, {"recipient": "acc_3"}), "fingerprint": "fp_acc3"})
	d := authz.decision with input as object.union(call, {"approval": approved})
	not d.allow
	d.reason == "approval_fingerprint_mismatch"
}

test_approval_for_other_tool_is_denied if {
	d := authz.decision with input as object.union(base, {"approval": object.union(approved, {"tool": "release_funds"})})
	d.reason == "approval_tool_mismatch"
}

test_edited_approval_is_denied if {
	d := authz.decision with input as object.union(base, {"approval": object.union(approved, {"decision": "edit"})})
	not d.allow
	d.reason == "approval_edited"
}

test_unknown_approval_decision_falls_to_default if {
	d := authz.decision with input as object.union(base, {"approval": object.union(approved, {"decision": "maybe"})})
	d == {"allow": false, "reason": "no_rule_matched", "requires_approval": false}
}

test_malformed_approval_is_denied if {
	authz.decision.reason == "input_malformed" with input as object.union(base, {"approval": {"id": "apr_1"}})
}

test_amount_under_the_data_limit_is_approved if {
	d := authz.decision with input as object.union(base, {"args": object.union(base.args, {"amount": 5000}), "approval": approved})
		with data.toolgate.config.limits as {"reserve_funds": {"amount": {"max": 1000000}}}
	d.allow
	d.reason == "approved"
}

test_roles_not_enforced_without_role_data if {
	d := authz.decision with input as object.union(read_call, {"principal": {"tenant": "t1", "user": "eve", "roles": []}})
		with data.toolgate.config as {}
	d.allow
}
