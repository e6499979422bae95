/**
 * The trusted identity of a human deciding an approval. The host builds it from its
 * own authentication (a verified token, the CLI's `--as/--tenant/--role`), never from
 * anything a model or a tool argument supplies.
 */
export interface ApproverContext {
  readonly tenant: string;
  readonly user: string;
  readonly roles: readonly string[];
}
