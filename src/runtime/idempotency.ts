/** Reading an operation's idempotency record and turning it into an answer (replay or conflict). */
import type { OperationRecord } from "../store/store.js";
import { normalizeEnvelope, terminal } from "./envelope.js";
import type { Envelope } from "./envelope.js";
import { isReservedOperationId } from "./natural-key.js";

/** The recorded envelope, marked as a replay. Anything malformed in the store is terminal. */
export function replay(record: OperationRecord): Envelope {
  const env = normalizeEnvelope(record.envelope);
  if (env.outcome === "retryable_failure") return env;
  return { ...env, replayed: true };
}

export function conflict(operationId: string, record: OperationRecord): Envelope {
  if (isReservedOperationId(operationId)) {
    return terminal(
      "idempotency_conflict",
      `the idempotency key of this ${record.tool} call already names a different call within retention; the same key is the same operation`,
      { operation_id: operationId },
    );
  }
  return terminal(
    "idempotency_conflict",
    `operation_id ${operationId} was already used for a different ${record.tool} call; use a new operation_id for new arguments`,
    { operation_id: operationId },
  );
}

/** For a live record: conflict when the fingerprint differs, replay when final, otherwise nothing to answer yet. */
export function answerFromRecord(
  record: OperationRecord | null,
  call: { readonly tool: string; readonly fingerprint: string; readonly operation_id: string },
): Envelope | null {
  if (record === null) return null;
  if (record.fingerprint !== call.fingerprint || record.tool !== call.tool) return conflict(call.operation_id, record);
  if (record.status === "final") return replay(record);
  return null;
}
