/** The typed error of the approvals API: a code to branch on and a message that says what to do. */
export type ApprovalsErrorCode = "invalid_request" | "invalid_cursor" | "not_found" | "forbidden";

export class ApprovalsError extends Error {
  override name = "ApprovalsError";
  readonly code: ApprovalsErrorCode;
  constructor(code: ApprovalsErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

export const isApprovalsError = (e: unknown): e is ApprovalsError =>
  typeof e === "object" && e !== null && (e as { name?: unknown }).name === "ApprovalsError";
