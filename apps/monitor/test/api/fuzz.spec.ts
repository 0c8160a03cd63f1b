import * as fs from 'node:fs';
import * as path from 'node:path';
import { DiscoveryModule } from '@nestjs/core';
import fc from 'fast-check';
import type { Exchange, Rule, Violation } from './support/fuzz-checks';
import { reproduction, violationsOf } from './support/fuzz-checks';
import { bodyFor, BodySpec } from './support/fuzz-inputs';
import { pathIdArbitrary, pathNameArbitrary, queryArbitrary } from './support/fuzz-params';
import { NetworkFence, raiseNetworkFence } from './support/fuzz-network-fence';
import {
  callerArbitrary,
  CAUSES,
  Input,
  OpenApiDocument,
  operationsOf,
  poolFor,
  restoreBodies,
  safeJson,
  send,
} from './support/fuzz-operations';
import {
  afterEffects,
  buildWorld,
  CALLER_NAMES,
  CallerName,
  FuzzWorld,
  lostCallers,
  RANK,
  readPools,
  routeAccess,
} from './support/fuzz-world';
import { startTestApp, TestApp } from './support/test-app';

jest.setTimeout(600_000);

/**
 * Defects known but not yet fixed: a violation matching an entry is listed but does not fail the
 * run. Empty: every violation fails. An entry names the issue that will fix it.
 */
const KNOWN_DEFECTS: { owner: string; rule: Rule; when: (tags: string[]) => boolean }[] = [];

const COMMITTED_DOCUMENT = path.join(__dirname, '../../../../docs/openapi.json');

/** Fixed unless overridden, and printed, so a failing run can be replayed exactly. */
const SEED = Number(process.env.MONITOR_FUZZ_SEED ?? 20261124);
/** Runs per operation (a bcrypt-heavy operation gets fewer, see COSTLY). */
const RUNS = Number(process.env.MONITOR_FUZZ_RUNS ?? 50);
/** 1: treat the known defects above as failures too (to see what the list hides). */
const IGNORE_KNOWN = process.env.MONITOR_FUZZ_IGNORE_KNOWN === '1';
/** 1: never stop at a failure, list every distinct violation instead (for surveys, not CI). */
const SURVEY = process.env.MONITOR_FUZZ_SURVEY === '1';

/** Operations whose valid-ish bodies cost a bcrypt hash or comparison (cost 12) each. */
const COSTLY = new Set([
  'POST /api/setup',
  'POST /api/login',
  'POST /api/login/totp',
  'POST /api/users',
  'POST /api/users/{id}/password',
  'PUT /api/password',
  'POST /api/me/totp/disable',
  'POST /api/me/totp/recovery',
  'POST /api/restore', // writes a safety copy of the database each time
]);

/**
 * Operations that probe a target or send a channel message. They are walked only as callers
 * without the right and, for the ones with an id, as entitled callers with ids that cannot exist,
 * so the handler never reaches out; the network fence refuses anything that still would.
 */
const OUTBOUND = new Set([
  'POST /api/sensors/{id}/probe',
  'POST /api/channels/test',
  'POST /api/channels/{id}/test',
]);
describe('fuzzing every operation of the served OpenAPI document', () => {
  let t: TestApp;
  let world: FuzzWorld;
  let fence: NetworkFence;

  beforeAll(async () => {
    fence = raiseNetworkFence();
    // No scheduler: sensors the fuzzer creates are never probed.
    t = await startTestApp({ startScheduler: false, imports: [DiscoveryModule] });
    world = await buildWorld(t);
  });

  afterAll(async () => {
    await t?.close();
    fence?.lower();
  });

  it('holds its rules for every operation, caller and generated input, and the process stays alive', async () => {
    const started = Date.now();
    console.log(`fuzz seed ${SEED} (replay with MONITOR_FUZZ_SEED=${SEED}), ${RUNS} runs per operation`);
    const served = (await (await fetch(`${t.url}/api/openapi.json`)).json()) as OpenApiDocument;
    const doc = JSON.parse(fs.readFileSync(COMMITTED_DOCUMENT, 'utf8')) as OpenApiDocument;
    const access = routeAccess(t);
    const operations = operationsOf(served, doc);
    const failures: string[] = [];
    const distinct = new Map<
      string,
      { count: number; operations: Set<string>; known?: string; example: string }
    >();
    let requests = 0;
    /** Status classes each operation answered (how much of it the run really reached). */
    const reached = new Map<string, Record<string, number>>();

    for (const [index, op] of operations.entries()) {
      if (!op.inCommittedCopy)
        failures.push(`${op.key}: served, but missing from docs/openapi.json (regenerate it)`);
      const declared = access.get(op.key);
      if (declared === undefined) {
        failures.push(`${op.key}: in the document, but no route declares its access`);
        continue;
      }
      const required = RANK[declared];
      const allowed5xx = op.responses.map(Number).filter((s) => [502, 503, 507].includes(s));
      const bodySchema = op.bodySchema;
      const resolved = bodySchema?.$ref
        ? doc.components.schemas[bodySchema.$ref.split('/').pop() as string]
        : bodySchema;
      const bodyFields = new Set(Object.keys(resolved?.properties ?? {}));
      const pools = await readPools(t, world);

      const params = (existing: boolean) =>
        fc.record(
          Object.fromEntries(
            op.parameters
              .filter((p) => p.in === 'path')
              .map((p) => [
                p.name,
                p.name === 'name'
                  ? pathNameArbitrary(existing ? pools.sites : [])
                  : pathIdArbitrary(existing ? poolFor(op, pools, world) : []),
              ]),
          ),
        ) as fc.Arbitrary<Record<string, string>>;
      const query = queryArbitrary(
        op.parameters.filter((p) => p.in === 'query'),
        doc.components.schemas,
      );
      const body =
        op.key === 'POST /api/restore'
          ? restoreBodies(world.restoreBase)
          : op.method === 'GET'
            ? fc.constant<BodySpec>({ kind: 'none' })
            : bodyFor(bodySchema, doc.components.schemas);
      const input = (callers: readonly CallerName[], existing: boolean): fc.Arbitrary<Input> =>
        fc.record({
          caller: callerArbitrary(callers, (c) => rankFor(c) >= required),
          params: params(existing),
          query,
          body,
        });
      const rankFor = (name: CallerName) => {
        const caller = world.callers[name];
        return caller.foreignOrigin && op.method !== 'GET' ? 0 : caller.rank;
      };
      const unentitled = CALLER_NAMES.filter((c) => rankFor(c) < required);
      const arbitrary = !OUTBOUND.has(op.key)
        ? input(CALLER_NAMES, true)
        : op.path.includes('{')
          ? fc.oneof(input(unentitled, true), input(CALLER_NAMES, false))
          : input(unentitled, true);

      const property = fc.asyncProperty(arbitrary, async (generated) => {
        requests++;
        const exchange = await send(t, fence, world, op, generated);
        const statuses = reached.get(op.key) ?? {};
        const kind = exchange.transportError ? 'none' : `${String(exchange.status)[0]}xx`;
        statuses[kind] = (statuses[kind] ?? 0) + 1;
        reached.set(op.key, statuses);
        await afterEffects(t, world, op.key, exchange.status, safeJson(exchange.responseText));
        const violations = violationsOf(exchange, {
          required,
          allowed5xx,
          bodyFields,
          apiKeys: world.apiKeys,
          plantedSecrets: world.plantedSecrets,
        });
        const unexpected = record(op.key, exchange, violations);
        if (unexpected.length && !SURVEY)
          throw new Error(
            `${unexpected.map((v) => `${v.rule}: ${v.detail}`).join('; ')}\n${reproduction(exchange, t.url)}`,
          );
      });
      // fc.check, not fc.assert: its report would print the whole (possibly megabyte-sized,
      // thousands-deep) counterexample; the thrown error already carries a runnable request.
      const details = await fc.check(property, {
        seed: SEED + index,
        numRuns: COSTLY.has(op.key) ? Math.min(RUNS, op.key === 'POST /api/restore' ? 20 : 10) : RUNS,
      });
      if (details.failed) {
        const cause =
          details.errorInstance instanceof Error
            ? details.errorInstance.message
            : String(details.errorInstance);
        failures.push(
          `${op.key}: failed after ${details.numRuns} runs, shrunk ${details.numShrinks} times ` +
            `(MONITOR_FUZZ_SEED=${SEED} replays it; fast-check seed ${details.seed}, path "${details.counterexamplePath}")\n${cause}`,
        );
      }
      const lost = await lostCallers(t, world);
      if (lost.length) {
        failures.push(`${op.key}: after it, ${lost.join(', ')} can no longer call (coverage lost)`);
        break;
      }
    }

    const health = await fetch(`${t.url}/healthz`);
    if (health.status !== 200) failures.push(`process no longer healthy: /healthz answered ${health.status}`);
    const lost = await lostCallers(t, world);
    if (lost.length) failures.push(`after the run, ${lost.join(', ')} can no longer call`);
    if (fence.attempts.length) failures.push(`outbound traffic attempted: ${fence.attempts.join('; ')}`);

    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const lines = [...distinct.entries()].map(
      ([key, { count, operations: ops, known, example }]) =>
        `${known ? `KNOWN (${known})` : 'NEW'} ×${count} ${key} in ${ops.size} operations: ${[...ops].join(', ')}\n${example}`,
    );
    console.log(
      `fuzz: ${requests} requests over ${operations.length} operations in ${seconds} s, seed ${SEED}; ` +
        `${distinct.size} distinct violations\n${lines.join('\n\n')}\n\nanswers per operation:\n` +
        [...reached.entries()].map(([key, counts]) => `  ${key} ${JSON.stringify(counts)}`).join('\n'),
    );
    expect(failures).toEqual([]);

    function record(operation: string, exchange: Exchange, violations: Violation[]): Violation[] {
      const unexpected: Violation[] = [];
      for (const v of violations) {
        const known = IGNORE_KNOWN
          ? undefined
          : KNOWN_DEFECTS.find((k) => k.rule === v.rule && k.when(v.tags))?.owner;
        if (!known) unexpected.push(v);
        const cause =
          CAUSES.find((c) => v.tags.includes(c)) ?? v.tags.find((tag) => tag.startsWith('raw-body')) ?? '';
        const tags = [cause, ...(v.tags.includes('framework-body') ? ['framework-body'] : [])]
          .filter(Boolean)
          .join(',');
        const key = `${v.rule} | ${exchange.transportError ? 'no answer' : exchange.status} | ${tags}`;
        const entry = distinct.get(key) ?? {
          count: 0,
          operations: new Set<string>(),
          known,
          example: reproduction(exchange, t.url),
        };
        entry.count++;
        entry.operations.add(operation);
        distinct.set(key, entry);
      }
      return unexpected;
    }
  });
});
