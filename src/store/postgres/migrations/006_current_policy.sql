-- toolgate store, migration 6: the policy the gates put in force most recently, per
-- entrypoint (last writer wins), so an approver process can tell that it decides under
-- other policy versions than the gates run.
CREATE TABLE current_policy (
  entrypoint   text        PRIMARY KEY,
  version      text        NOT NULL,
  code_version text        NOT NULL,
  data_version text        NOT NULL,
  owner        text        NOT NULL,
  updated_at   timestamptz NOT NULL
);
