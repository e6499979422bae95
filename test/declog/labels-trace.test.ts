/**
 * OPA's decision-log labels and trace ids, on both stores: every entry carries the
 * runtime's labels (`id`, `version`, `service` and the host's); its trace_id and span_id
 * are those of the call's span when a tracer records it and null without one (never
 * invented); bad labels are refused at createRuntime with a typed error; a database made
 * before the columns still opens and reads (its entries have labels null); `toolgate log
 * --format json` shows them under OPA's names; the audit chain still verifies.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it, vi } from "vitest";
import { isDecisionLabelError, opaDecisionEvent } from "../../src/runtime/index.js";
import { decisionLabels, MAX_DECISION_LABEL_VALUE_LENGTH, MAX_DECISION_LABELS } from "../../src/runtime/decision-log.js";
import { verifyChain } from "../../src/store/chain/index.js";
import { openSqliteStore } from "../../src/store/index.js";
import { loadMigrations, migrate } from "../../src/store/postgres/migrations.js";
import { openPgStore } from "../../src/store/postgres/index.js";
import type { DecisionLogEntry, Store } from "../../src/store/store.js";
import { toolgateVersion } from "../../src/version.js";
import { readChain } from "../store/audit-chain-stores.js";
import { createTestSchema, skipWithoutPg } from "../helpers/pg-env.js";
import { alice, approvedWrite, gate, loadGeneratedPolicy, reserve, victor } from "./harness.js";
import { runCli } from "../helpers/cli.js";
import { describeEachStore } from "../helpers/stores.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";
const traceparent = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`;

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-labels-"));
  dirs.push(dir);
  return dir;
};

const oldEntry = (decision_id: string): DecisionLogEntry => ({
  decision_id, at_ms: 1_000, tenant: "t1", run_id: "r1", user: "u", tool: "get_account", operation_id: null, fingerprint: null,
  decision: "allow", reason: "read_allowed", policy_version: "pv", outcome: "success", outcome_reason: null,
});

describeEachStore("decision-log labels and trace ids", (stores) => {
  const open = async () => ({ store: await stores.fresh(), args: stores.cliArgs() });

  it("every entry carries the runtime's labels: id (the instance), toolgate's version, the service and the host's labels", async () => {
    const { store } = await open();
    const g = gate(store, await loadGeneratedPolicy(), { labels: { service: "payments-agent", instance: "gate-7", region: "eu-west-1", "deploy.ring": "canary" } });
    await g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } });
    await g.runtime.call(victor, { tool: "close_account", args: { account_id: "acc_alice" } });
    // An approved write's entry is committed with its outcome: it carries the labels too.
    await approvedWrite(g, alice, reserve(5000), "op-labels-1");
    await store.flushDecisions();
    const entries = await store.listDecisions();
    expect(entries.length).toBeGreaterThanOrEqual(4);
    const want = { id: "gate-7", version: toolgateVersion, service: "payments-agent", region: "eu-west-1", "deploy.ring": "canary" };
    for (const e of entries) expect(e.labels, `${e.tool} ${e.decision}`).toEqual(want);
    expect((await store.getDecision(entries[0]!.decision_id))?.labels).toEqual(want);
  });

  it("without labels an entry's id is a random id per runtime, its version toolgate's and its service the package name, else toolgate", async () => {
    const { store } = await open();
    const policy = await loadGeneratedPolicy();
    const withPackage = tempDir();
    writeFileSync(join(withPackage, "package.json"), JSON.stringify({ name: "@acme/support-agent" }));
    const cwd = vi.spyOn(process, "cwd").mockReturnValue(withPackage);
    const a = gate(store, policy);
    cwd.mockReturnValue(tempDir());
    const b = gate(store, policy);
    cwd.mockRestore();
    await a.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } });
    await b.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } });
    await store.flushDecisions();
    const [fromB, fromA] = await store.listDecisions();
    expect(fromA!.labels).toMatchObject({ version: toolgateVersion, service: "@acme/support-agent" });
    expect(fromB!.labels).toMatchObject({ version: toolgateVersion, service: "toolgate" });
    expect(fromA!.labels!["id"]).toMatch(UUID);
    expect(fromB!.labels!["id"]).toMatch(UUID);
    expect(fromA!.labels!["id"]).not.toBe(fromB!.labels!["id"]);
  });

  it("an entry's trace_id and span_id are the call span's when a tracer records it, under the caller's trace", async () => {
    const { store } = await open();
    const exporter = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("test");
    const g = gate(store, await loadGeneratedPolicy(), { telemetry: { tracer } });
    await g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } }, { traceparent });
    await approvedWrite(g, alice, reserve(5000), "op-traced-1");
    await store.flushDecisions();
    const spans = exporter.getFinishedSpans().filter((s) => s.name.startsWith("execute_tool "));
    const entries = await store.listDecisions();
    expect(entries).toHaveLength(spans.length);
    expect(spans.length).toBeGreaterThanOrEqual(3);
    for (const e of entries) {
      const span = spans.find((s) => s.attributes["toolgate.decision_id"] === e.decision_id);
      expect(span, e.decision_id).toBeDefined();
      expect({ trace_id: e.trace_id, span_id: e.span_id }).toEqual({ trace_id: span!.spanContext().traceId, span_id: span!.spanContext().spanId });
    }
    const read = entries.find((e) => e.tool === "get_account")!;
    // The caller's trace, our own span: not the caller's parent span id.
    expect(read.trace_id).toBe(CALLER_TRACE);
    expect(read.span_id).toMatch(/^[0-9a-f]{16}$/);
    expect(read.span_id).not.toBe(CALLER_SPAN);
    // The ids are outside the chain's content: the chain still verifies.
    expect(verifyChain(await readChain(store)).ok).toBe(true);
  });

  it("without a tracer an entry's trace_id and span_id are null, even when the caller sent a traceparent", async () => {
    const { store } = await open();
    const g = gate(store, await loadGeneratedPolicy());
    await g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } }, { traceparent });
    await approvedWrite(g, alice, reserve(5000), "op-untraced-1");
    await store.flushDecisions();
    const entries = await store.listDecisions();
    expect(entries.length).toBeGreaterThanOrEqual(3);
    for (const e of entries) expect({ trace_id: e.trace_id, span_id: e.span_id }).toEqual({ trace_id: null, span_id: null });
    expect(opaDecisionEvent(entries[0]!)).not.toHaveProperty("trace_id");
  });

  it("bad labels are refused at createRuntime with a DecisionLabelError naming the label", async () => {
    const { store } = await open();
    const policy = await loadGeneratedPolicy();
    const refused = (labels: unknown): { name: string; label: string | null; message: string } => {
      try {
        gate(store, policy, { labels: labels as Record<string, string> });
      } catch (err) {
        if (!isDecisionLabelError(err)) throw err;
        return { name: err.name, label: err.label, message: err.message };
      }
      throw new Error(`labels ${JSON.stringify(labels)} were accepted`);
    };
    expect(refused({ region: 7 })).toMatchObject({ name: "DecisionLabelError", label: "region", message: expect.stringContaining("must be a string") });
    expect(refused({ service: null })).toMatchObject({ label: "service" });
    expect(refused({ id: "x" })).toMatchObject({ label: "id", message: expect.stringContaining("labels.instance") });
    expect(refused({ version: "9" })).toMatchObject({ label: "version" });
    expect(refused({ "bad key": "x" })).toMatchObject({ label: "bad key" });
    expect(refused({ note: "x".repeat(MAX_DECISION_LABEL_VALUE_LENGTH + 1) })).toMatchObject({ label: "note", message: expect.stringContaining(`at most ${MAX_DECISION_LABEL_VALUE_LENGTH}`) });
    expect(refused({ nul: "a\u0000b" })).toMatchObject({ label: "nul" });
    const many = Object.fromEntries(Array.from({ length: MAX_DECISION_LABELS - 2 }, (_, i) => [`l${i}`, "v"]));
    expect(refused(many)).toMatchObject({ label: null, message: expect.stringContaining(`at most ${MAX_DECISION_LABELS}`) });
    expect(refused(["a"])).toMatchObject({ label: null });
    // One fewer fits: the bound counts id, version and service.
    const fits = Object.fromEntries(Array.from({ length: MAX_DECISION_LABELS - 3 }, (_, i) => [`l${i}`, "v"]));
    expect(Object.keys(decisionLabels(fits))).toHaveLength(MAX_DECISION_LABELS);
    // Nothing was logged by the refused runtimes.
    await store.flushDecisions();
    expect(await store.listDecisions()).toEqual([]);
  });

  it("toolgate log --format json and explain show each entry's labels, trace_id and span_id under OPA's names", async () => {
    const { store, args } = await open();
    const exporter = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("test");
    const g = gate(store, await loadGeneratedPolicy(), { telemetry: { tracer }, labels: { service: "svc", instance: "i-1" } });
    await g.runtime.call(alice, { tool: "get_account", args: { account_id: "acc_alice" } });
    await store.flushDecisions();
    const [entry] = await store.listDecisions();
    const out = await runCli(["log", ...args, "--format", "json"]);
    expect(out.code).toBe(0);
    const [event] = JSON.parse(out.stdout) as Record<string, unknown>[];
    expect(event).toMatchObject({
      decision_id: entry!.decision_id,
      labels: { id: "i-1", version: toolgateVersion, service: "svc" },
      trace_id: entry!.trace_id,
      span_id: entry!.span_id,
    });
    expect(event!["trace_id"]).toMatch(/^[0-9a-f]{32}$/);
    const explained = await runCli(["explain", entry!.decision_id, ...args, "--format", "json"]);
    expect((JSON.parse(explained.stdout) as { decision: Record<string, unknown> }).decision).toMatchObject({ labels: event!["labels"], trace_id: entry!.trace_id, span_id: entry!.span_id });
    const pretty = await runCli(["explain", entry!.decision_id, ...args]);
    expect(pretty.stdout).toContain(`labels     service="svc" id="i-1" version="${toolgateVersion}"`);
    expect(pretty.stdout).toContain(`trace      trace_id ${entry!.trace_id} span_id ${entry!.span_id}`);
  });
}, { sqlite: "file" });

describe("a database made before labels and trace ids", () => {
  it("sqlite: a file without the columns opens and reads; its entries have labels, trace_id and span_id null, and new ones carry them", async () => {
    const path = join(tempDir(), "state.db");
    const before = openSqliteStore(path);
    await before.appendDecision(oldEntry("old-1"));
    await before.close();
    const db = new Database(path);
    for (const column of ["labels", "trace_id", "span_id"]) db.exec(`ALTER TABLE decision_log DROP COLUMN ${column}`);
    db.close();
    const store = openSqliteStore(path);
    try {
      await expectOldReadsAndNewWrites(store);
    } finally {
      await store.close();
    }
  });

  it.skipIf(skipWithoutPg("decision-log labels upgrade"))(
    "postgres: a schema before migration 15 migrates, opens and reads; its entries have labels, trace_id and span_id null, and new ones carry them",
    async () => {
      const schema = await createTestSchema({ migrated: false });
      try {
        await migrate(schema.pool, { schema: schema.schema, migrations: loadMigrations().filter((m) => m.version < 15) });
        await schema.pool.query(
          `INSERT INTO decision_log (decision_id, at, tenant, run_id, user_id, tool, decision, reason, policy_version, outcome)
           VALUES ('old-1', toolgate_ts(1000), 't1', 'r1', 'u', 'get_account', 'allow', 'read_allowed', 'pv', 'success')`,
        );
        await migrate(schema.pool, { schema: schema.schema });
        const store = await openPgStore({ pool: schema.pool });
        try {
          await expectOldReadsAndNewWrites(store);
        } finally {
          await store.close();
        }
      } finally {
        await schema.drop();
      }
    },
  );
});

async function expectOldReadsAndNewWrites(store: Store): Promise<void> {
  const old = await store.getDecision("old-1");
  expect(old).toMatchObject({ decision_id: "old-1", tool: "get_account", labels: null, trace_id: null, span_id: null });
  expect(opaDecisionEvent(old!)).toMatchObject({ decision_id: "old-1", labels: null });
  const labels = decisionLabels({ service: "svc", instance: "i-2" });
  await store.appendDecision({ ...oldEntry("new-1"), at_ms: 2_000, labels, trace_id: CALLER_TRACE, span_id: CALLER_SPAN });
  await store.flushDecisions();
  const listed = await store.listDecisions();
  expect(listed.map((e) => [e.decision_id, e.labels, e.trace_id, e.span_id])).toEqual([
    ["new-1", { ...labels }, CALLER_TRACE, CALLER_SPAN],
    ["old-1", null, null, null],
  ]);
}
