/**
 * The lease a claim holds: the tool's timeout plus this margin. The tools.yaml loader
 * also checks retention against it, so a record cannot expire while its handler runs
 * (the store never expires a record whose lease is live, either way).
 */

/** Lease length beyond the tool's timeout, so a live handler is never taken over. */
export const defaultLeaseMarginMs = 5_000;
