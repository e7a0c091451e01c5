// The operator's command-line tools against real data made through the API: version, platform and
// token lists, token revocation (the token then gets 401), payment show (postings, rail operation,
// webhook events and attempts), rail operations and the stuck ones, the webhook backlog, production
// KYC decisions with their KYC_STATUS event, the ledger audit on a healthy and on a tampered book,
// migrate --status/--dry-run, serve --no-migrate, and the refusal of a database newer than the binary.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { startCorridor, stopCorridor, call, freePort, umaDomainOf, serveFlags } from './lib/harness.mjs';
import { outboxEvents, outboxRows, outboxWithTenant, packedIdHex, packedIdLiteral, queryRows, runStatement } from './lib/database.mjs';
import { platformAccounts, fund, eventually, idempotencyKey, newCustomer } from './lib/money.mjs';
import { expectStatus } from './lib/expect.mjs';

let server;
let stopped = false;
let sandbox;     // platform 0 (regulated), sandbox
let production;  // platform 1 (unregulated), production: its KYC reviews wait for the operator
const publicBase = 'https://pay.example.test';

before(async () => {
  server = await startCorridor({
    platforms: 2,
    regulated: [true, false],
    config: {
      public_base_url: publicBase,
      outbound: { allow_private_addresses: true },
      external_accounts: { screening_delay_ms: 100 },
      rails: { call_timeout_ms: 1000, settlement_timeout_ms: 60000, drive_interval_ms: 20 },
      cache: { ttl_ms: 200 },
    },
  });
  sandbox = server.platforms[0].sandbox;
  production = server.platforms[1].production;
});
after(async () => { if (server && !stopped) await stopCorridor(server); });

// Runs the binary with the server's configuration; never throws: the exit code is checked.
function cli(args, configPath = server.configPath) {
  const run = spawnSync(server.bin, [...args, '--config', configPath], { encoding: 'utf8', timeout: 30000 });
  return { code: run.status, signal: run.signal, stdout: run.stdout, stderr: run.stderr };
}

function cliJson(args) {
  const run = cli([...args, '--json']);
  assert.equal(run.code, 0, `${args.join(' ')}: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

function expectFailure(run, code, pattern) {
  assert.equal(run.signal, null, `killed by ${run.signal}: ${run.stderr}`);
  assert.equal(run.code, code, `exit ${run.code}: ${run.stdout} ${run.stderr}`);
  assert.match(run.stderr, pattern);
}

const platformId = (i) => server.platforms[i].platformId;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

// A sandbox transfer-out of `amount` through the sandbox rail, completed.
let payment;
async function sandboxPayment(amount) {
  const usd = (await platformAccounts(server, sandbox)).USD;
  await fund(server, sandbox, usd.id, 100000);
  const created = await call(server, sandbox, 'POST', '/platform/external-accounts', {
    currency: 'USD',
    accountInfo: {
      accountType: 'US_ACCOUNT', accountNumber: '123456789', routingNumber: '021000021', accountCategory: 'CHECKING',
      beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Ana Souza', birthDate: '1990-04-01', nationality: 'US' },
    },
  });
  assert.equal(created.status, 201, created.text);
  await eventually(async () => (await call(server, sandbox, 'GET', `/platform/external-accounts/${created.body.id}`)).body?.status === 'ACTIVE');
  const sent = await call(server, sandbox, 'POST', '/transfer-out',
    { source: { accountId: usd.id }, destination: { accountId: created.body.id }, amount },
    { 'idempotency-key': idempotencyKey() });
  assert.equal(sent.status, 201, sent.text);
  const done = await eventually(async () => {
    const found = await call(server, sandbox, 'GET', `/transactions/${sent.body.id}`);
    return found.body.status === 'COMPLETED' ? found.body : null;
  });
  return { transaction: done, usd };
}

test('--version is one line and version --json names version, revision, schema and rail ABI', () => {
  const line = cli(['--version']);
  assert.equal(line.code, 0, line.stderr);
  const match = line.stdout.match(/^corridor (\S+) \(revision (\S+), schema (\d+), rail ABI (\d+\.\d+)\)\n$/);
  assert.ok(match, line.stdout);
  const info = cliJson(['version']);
  assert.deepEqual(Object.keys(info).sort(), ['gitRevision', 'railAbi', 'schemaVersion', 'version']);
  assert.equal(info.version, match[1]);
  assert.equal(info.gitRevision, match[2]);
  assert.equal(info.schemaVersion, Number(match[3]));
  assert.equal(info.railAbi, match[4]);
  // The same ABI the rail host reports, and the schema the served database was migrated to.
  assert.equal(cliJson(['plugins', 'list']).hostAbi, info.railAbi);
  const status = cliJson(['migrate', '--status']);
  assert.equal(status.binaryVersion, info.schemaVersion);
  assert.equal(status.databaseVersion, info.schemaVersion);
  assert.equal(status.current, true);
  assert.deepEqual(status.pending, []);
});

test('platform list shows every platform with its domain and regulation, text and JSON', () => {
  const listed = cliJson(['platform', 'list']).platforms;
  assert.equal(listed.length, 2);
  for (const i of [0, 1]) {
    const platform = listed.find((p) => p.id === platformId(i));
    assert.ok(platform, JSON.stringify(listed));
    assert.equal(platform.name, `Platform ${i}`);
    assert.equal(platform.umaDomain, umaDomainOf(i));
    assert.equal(platform.isRegulated, i === 0);
    assert.equal(platform.liveTokens, 2);
    assert.match(platform.createdAt, ISO);
  }
  const text = cli(['platform', 'list']);
  assert.equal(text.code, 0, text.stderr);
  assert.ok(text.stdout.includes(platformId(0)) && text.stdout.includes(umaDomainOf(1)), text.stdout);
});

test('token list never shows secrets; a revoked token gets 401 and cannot be revoked twice', async () => {
  const made = JSON.parse(execFileSync(server.bin, ['token', 'create', '--platform', platformId(0), '--environment', 'sandbox',
    '--name', 'ops-reader', '--permissions', 'VIEW', '--json', '--config', server.configPath], { encoding: 'utf8' }));
  const credentials = { clientId: made.clientId, clientSecret: made.clientSecret };
  expectStatus(await call(server, credentials, 'GET', '/customers'), 200);

  const run = cli(['token', 'list', '--platform', platformId(0), '--json']);
  assert.equal(run.code, 0, run.stderr);
  assert.ok(!run.stdout.includes(made.clientSecret), 'the secret is never printed again');
  assert.ok(!run.stdout.includes(server.platforms[0].sandbox.clientSecret));
  const listed = JSON.parse(run.stdout);
  assert.equal(listed.platformId, platformId(0));
  assert.equal(listed.tokens.length, 3);
  const token = listed.tokens.find((t) => t.id === made.tokenId);
  assert.deepEqual(Object.keys(token).sort(), ['clientId', 'createdAt', 'environment', 'id', 'name', 'permissions', 'revoked', 'updatedAt']);
  assert.equal(token.clientId, made.clientId);
  assert.equal(token.environment, 'sandbox');
  assert.equal(token.permissions, 'VIEW');
  assert.equal(token.revoked, false);

  assert.deepEqual(cliJson(['token', 'revoke', made.tokenId]), { tokenId: made.tokenId, revoked: true });
  const after = cliJson(['token', 'list', '--platform', platformId(0)]).tokens.find((t) => t.id === made.tokenId);
  assert.equal(after.revoked, true);
  await eventually(async () => (await call(server, credentials, 'GET', '/customers')).status === 401);
  // The platform's other tokens still work.
  expectStatus(await call(server, sandbox, 'GET', '/customers'), 200);

  expectFailure(cli(['token', 'revoke', made.tokenId]), 1, /already revoked/);
  expectFailure(cli(['token', 'revoke', 'Token:00000000-0000-0000-0000-000000000000']), 1, /no token Token:0000/);
  expectFailure(cli(['token', 'list', '--platform', 'Platform:00000000-0000-0000-0000-000000000000']), 1, /no platform/);
  expectFailure(cli(['token', 'list']), 2, /--platform is required/);
  expectFailure(cli(['token', 'revoke']), 2, /token id is required/);
});

test('payment show: the transaction, its postings, its rail operation and its webhook events', async () => {
  // Deliveries to a closed port fail and stay in the backlog, with their attempts recorded.
  const closed = await freePort();
  expectStatus(await call(server, sandbox, 'PATCH', '/config', { webhookEndpoint: `http://127.0.0.1:${closed}/hooks` }), 200);
  payment = await sandboxPayment(2500);
  const id = payment.transaction.id;

  const shown = cliJson(['payment', 'show', id]);
  assert.deepEqual(Object.keys(shown).sort(), ['postings', 'railOperations', 'transaction', 'webhookEvents']);
  assert.equal(shown.transaction.id, id);
  assert.equal(shown.transaction.status, 'COMPLETED');
  assert.equal(shown.transaction.type, 'OUTGOING');
  assert.equal(shown.transaction.platformId, platformId(0));
  assert.equal(shown.transaction.sentAmount, 2500);
  // Every posting stored for the transaction, as the database has them.
  const stored = queryRows(server, `SELECT ${packedIdHex(server, 'id')} AS id, amount FROM ledger_transfers
    WHERE transaction_id = ${packedIdLiteral(server, id)} ORDER BY id`);
  assert.ok(stored.length >= 1);
  const packed = (typedId) => typedId.replace(/^Transfer:/, '').replaceAll('-', '');
  assert.deepEqual(shown.postings.map((p) => packed(p.id)).sort(), stored.map((p) => p.id).sort());
  assert.ok(shown.postings.some((p) => p.amount === 2500 && p.debitAccountId === payment.usd.id), JSON.stringify(shown.postings));
  assert.equal(shown.railOperations.length, 1);
  const operation = shown.railOperations[0];
  assert.equal(operation.rail, 'sandbox');
  assert.equal(operation.direction, 'PAYOUT');
  assert.equal(operation.status, 'SETTLED');
  assert.equal(operation.amount, 2500);
  assert.equal(operation.accountJson, undefined, 'account details are never shown');
  assert.ok(!JSON.stringify(shown).includes('123456789'), 'no full account number');
  // The OUTGOING_PAYMENT events of this transaction, each with its failed attempts.
  await eventually(async () => {
    const events = cliJson(['payment', 'show', id]).webhookEvents;
    return events.length > 0 && events.every((e) => e.deliveryAttempts.length > 0);
  });
  const events = cliJson(['payment', 'show', id]).webhookEvents;
  assert.ok(events.every((e) => e.type === 'OUTGOING_PAYMENT'), JSON.stringify(events));
  const outbox = outboxRows(server, 'id', "type = 'OUTGOING_PAYMENT'", `"${id}"`);
  assert.deepEqual(events.map((e) => e.id).sort(), outbox.map((e) => e.id).sort());
  const attempt = events[0].deliveryAttempts[0];
  assert.equal(attempt.attempt, 1);
  assert.equal(attempt.url, `http://127.0.0.1:${closed}/hooks`);
  assert.notEqual(attempt.outcome, 'SUCCEEDED');
  assert.match(attempt.attemptedAt, ISO);

  const text = cli(['payment', 'show', id]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /ledger postings \(\d+\)/);
  assert.ok(text.stdout.includes(operation.id) && text.stdout.includes(events[0].id), text.stdout);
  expectFailure(cli(['payment', 'show', 'Transaction:00000000-0000-0000-0000-000000000000']), 1, /no transaction/);
  expectFailure(cli(['payment', 'show', 'Transaction:%']), 2, /Type:<uuid>/);
  // Stored as 16 bytes: another type's id or its uuid in upper case is no transaction's.
  for (const notOne of ['Transaction:nope', `Quote:${id.slice('Transaction:'.length)}`, id.toUpperCase().replace(/^TRANSACTION/, 'Transaction')]) {
    expectFailure(cli(['payment', 'show', notOne]), 1, /no transaction/);
  }
});

test('webhooks backlog counts the undelivered events, their failures and the oldest age', async () => {
  assert.ok(payment, 'runs after the payment test');
  const backlog = await eventually(async () => {
    const found = cliJson(['webhooks', 'backlog', '--platform', platformId(0)]);
    return found.failing > 0 ? found : null;
  });
  const pending = queryRows(server, `SELECT attempts FROM ${outboxWithTenant(server)} WHERE platform_id = '${platformId(0)}' AND state = 'PENDING'`);
  assert.equal(backlog.platforms.length, 1);
  const group = backlog.platforms[0];
  assert.equal(group.platformId, platformId(0));
  assert.equal(group.environment, 'sandbox');
  // The worker may deliver (and fail) between the two reads: compare bounds, not equality.
  assert.ok(group.pending >= 1 && Math.abs(group.pending - pending.length) <= 1, `${group.pending} vs ${pending.length}`);
  assert.equal(backlog.pending, group.pending);
  assert.ok(group.failedAttempts >= group.failing && group.failing >= 1);
  assert.ok(backlog.oldestAgeMs >= 0 && backlog.oldestAgeMs < 120000, JSON.stringify(backlog));
  assert.match(group.oldestCreatedAt, ISO);
  // Platform 1 has no endpoint failing: nothing of it waits for long, and the filter holds.
  const other = cliJson(['webhooks', 'backlog', '--platform', platformId(1)]);
  assert.ok(other.platforms.every((p) => p.platformId === platformId(1)));
  const all = cliJson(['webhooks', 'backlog']);
  assert.ok(all.platforms.some((p) => p.platformId === platformId(0)));
  const text = cli(['webhooks', 'backlog', '--platform', platformId(0)]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /undelivered webhook event\(s\)/);
  expectFailure(cli(['webhooks', 'backlog', '--platform', 'Platform:00000000-0000-0000-0000-000000000000']), 1, /no platform/);
});

test('rails operations lists the payout; --stuck shows only a rail that never answered', () => {
  assert.ok(payment, 'runs after the payment test');
  const all = cliJson(['rails', 'operations']);
  assert.equal(all.stuckOnly, false);
  assert.equal(all.callTimeoutMs, 1000);
  const settled = all.operations.find((o) => o.transactionId === payment.transaction.id);
  assert.ok(settled, JSON.stringify(all));
  assert.equal(settled.status, 'SETTLED');
  assert.equal(settled.stuckReason, null);
  assert.deepEqual(cliJson(['rails', 'operations', '--stuck']).operations, []);
  // An initiation held by another node, untouched since long ago: no rail ever answered it. (The
  // lease keeps this server's engine from claiming it.)
  const stuckId = `RailOperation:${randomUUID()}`;
  runStatement(server, `INSERT INTO rail_operations (id, platform_id, environment, rail, direction, status, transaction_id,
    internal_account_id, external_account_id, account_type, account_json, currency, amount, description, rail_reference,
    rail_reason_code, failure_class, failure_reason, message, attempts, lease_until_ms, deadline_at_ms, created_at_ms,
    updated_at_ms, rail_node, rail_epoch) VALUES ('${stuckId}', '${platformId(0)}', 'sandbox', 'sandbox', 'PAYOUT',
    'INITIATING', 'Transaction:00000000-0000-0000-0000-000000000001', '', '', 'US_ACCOUNT', '{}', 'USD', 100, '', '', '',
    '', '', '', 1, 9000000000000000, 9000000000000000, 1000, 1000, 'another-node', 'gone')`);
  const stuck = cliJson(['rails', 'operations', '--stuck']);
  assert.equal(stuck.stuckOnly, true);
  assert.deepEqual(stuck.operations.map((o) => [o.id, o.stuckReason]), [[stuckId, 'NO_RAIL_ANSWER']]);
  const text = cli(['rails', 'operations', '--stuck']);
  assert.equal(text.code, 0, text.stderr);
  assert.ok(text.stdout.includes(stuckId) && text.stdout.includes('NO_RAIL_ANSWER'), text.stdout);
  runStatement(server, `DELETE FROM rail_operations WHERE id = '${stuckId}'`);
  expectFailure(cli(['rails', 'operations', '--limit', '0']), 2, /--limit/);
});

function pageUrl(kycUrl) {
  assert.ok(kycUrl.startsWith(`${publicBase}/kyc/`), kycUrl);
  return `${server.baseUrl}${new URL(kycUrl).pathname}`;
}

// A production customer of the unregulated platform who submitted the hosted KYC form.
async function submittedCustomer(fullName) {
  const customer = await newCustomer(server, production);
  assert.equal(customer.kycStatus, 'PENDING_REVIEW');
  const link = expectStatus(await call(server, production, 'GET',
    `/customers/kyc-link?platformCustomerId=${encodeURIComponent(customer.platformCustomerId)}`), 200);
  const form = new URLSearchParams({
    fullName, birthDate: '1990-04-12', nationality: 'BR', line1: 'Rua A, 10', city: 'São Paulo',
    state: 'SP', postalCode: '01000-000', country: 'BR',
  });
  const submitted = await fetch(pageUrl(link.kycUrl), {
    method: 'POST', redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString(),
  });
  assert.ok(submitted.status < 400, `${submitted.status}`);
  return customer;
}

async function kycStatus(customerId) {
  return expectStatus(await call(server, production, 'GET', `/customers/${encodeURIComponent(customerId)}`), 200).kycStatus;
}

test('kyc approve|reject decides a production review and writes the KYC_STATUS event', async () => {
  const approved = await submittedCustomer('Maria Silva');
  const rejected = await submittedCustomer('Joao Pereira');
  const untouched = await newCustomer(server, production);
  // Production reviews wait for the operator.
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(await kycStatus(approved.id), 'PENDING_REVIEW');

  const decided = cliJson(['kyc', 'approve', '--customer', approved.id, '--reason', 'documents checked']);
  assert.equal(decided.customerId, approved.id);
  assert.equal(decided.kycStatus, 'APPROVED');
  assert.equal(decided.platformId, platformId(1));
  assert.equal(decided.environment, 'production');
  assert.equal(decided.reason, 'documents checked');
  assert.match(decided.reviewId, /^KycReview:/);
  assert.equal(await kycStatus(approved.id), 'APPROVED');
  const review = queryRows(server, `SELECT decision, decision_reason FROM kyc_reviews WHERE id = '${decided.reviewId}'`);
  assert.deepEqual(review, [{ decision: 'APPROVED', decision_reason: 'documents checked' }]);

  const text = cli(['kyc', 'reject', '--customer', rejected.id]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /REJECTED/);
  assert.equal(await kycStatus(rejected.id), 'REJECTED');

  const events = outboxEvents(server, 'KYC_STATUS');
  const of = (id) => events.filter((e) => e.customerId === id);
  assert.deepEqual(of(approved.id), [{ customerId: approved.id, platformCustomerId: approved.platformCustomerId, kycStatus: 'APPROVED' }]);
  assert.deepEqual(of(rejected.id), [{ customerId: rejected.id, platformCustomerId: rejected.platformCustomerId, kycStatus: 'REJECTED' }]);

  // Nothing pending: refused, naming the status; nothing written.
  expectFailure(cli(['kyc', 'reject', '--customer', approved.id]), 1, /no pending KYC review.*APPROVED/);
  expectFailure(cli(['kyc', 'approve', '--customer', untouched.id]), 1, /no pending KYC review.*submitted nothing/);
  assert.equal(await kycStatus(approved.id), 'APPROVED');
  assert.equal(await kycStatus(untouched.id), 'PENDING_REVIEW');
  assert.equal(outboxEvents(server, 'KYC_STATUS').length, events.length);
  expectFailure(cli(['kyc', 'approve', '--customer', 'Customer:00000000-0000-0000-0000-000000000000']), 1, /no customer/);
  expectFailure(cli(['kyc', 'approve']), 2, /--customer is required/);
  expectFailure(cli(['kyc', 'maybe', '--customer', approved.id]), 2, /unknown command: kyc maybe/);
});

test('audit passes on the live book and fails, naming the account, on a tampered balance', async () => {
  assert.ok(payment, 'runs after the payment test');
  const healthy = cliJson(['audit']);
  assert.equal(healthy.clean, true, JSON.stringify(healthy.findings));
  assert.deepEqual(healthy.findings, []);
  const counts = queryRows(server, 'SELECT (SELECT COUNT(*) FROM ledger_accounts) AS accounts, (SELECT COUNT(*) FROM ledger_transfers) AS transfers')[0];
  assert.equal(healthy.accounts, Number(counts.accounts));
  assert.equal(healthy.transfers, Number(counts.transfers));
  const text = cli(['audit']);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /every balance matches its postings/);

  // Stopped, so that nothing moves while the book is tampered with.
  await stopCorridor(server, { keepFiles: true });
  stopped = true;
  const account = payment.usd.id;
  runStatement(server, `UPDATE ledger_accounts SET credits_posted = credits_posted + 7 WHERE id = '${account}'`);
  const tampered = cli(['audit', '--json']);
  assert.equal(tampered.code, 1, tampered.stderr);
  const report = JSON.parse(tampered.stdout);
  assert.equal(report.clean, false);
  const mismatch = report.findings.find((f) => f.check === 'balance_mismatch');
  assert.equal(mismatch.accountId, account);
  assert.ok(report.findings.every((f) => f.accountId === account || f.check === 'currency_unbalanced'), JSON.stringify(report));
  assert.ok(report.findings.some((f) => f.check === 'currency_unbalanced' && f.message.startsWith('USD')));
  const named = cli(['audit']);
  assert.equal(named.code, 1);
  assert.ok(named.stdout.includes(account), named.stdout);
  runStatement(server, `UPDATE ledger_accounts SET credits_posted = credits_posted - 7 WHERE id = '${account}'`);
  assert.equal(cli(['audit']).code, 0);
});

test('rails operations --stuck marks an operation past its deadline OVERDUE', () => {
  assert.ok(stopped, 'runs after the server stopped (no engine times the row out meanwhile)');
  const overdueId = `RailOperation:${randomUUID()}`;
  runStatement(server, `INSERT INTO rail_operations (id, platform_id, environment, rail, direction, status, transaction_id,
    internal_account_id, external_account_id, account_type, account_json, currency, amount, description, rail_reference,
    rail_reason_code, failure_class, failure_reason, message, attempts, lease_until_ms, deadline_at_ms, created_at_ms,
    updated_at_ms, rail_node, rail_epoch) VALUES ('${overdueId}', '${platformId(0)}', 'sandbox', 'sandbox', 'PAYOUT',
    'PENDING', 'Transaction:00000000-0000-0000-0000-000000000002', '', '', 'US_ACCOUNT', '{}', 'USD', 100, '', 'ref-1', '',
    '', '', '', 1, 0, 5000, 1000, ${Date.now()}, '', '')`);
  try {
    const stuck = cliJson(['rails', 'operations', '--stuck']).operations;
    assert.deepEqual(stuck.map((o) => [o.id, o.status, o.stuckReason]), [[overdueId, 'PENDING', 'OVERDUE']]);
    assert.match(stuck[0].deadlineAt, /^1970-01-01T00:00:05/);
    // Without --stuck it is listed with the others, the settled payout unmarked.
    const all = cliJson(['rails', 'operations']).operations;
    assert.ok(all.length >= 2);
    assert.ok(all.every((o) => o.stuckReason === (o.id === overdueId ? 'OVERDUE' : null)), JSON.stringify(all));
  } finally {
    runStatement(server, `DELETE FROM rail_operations WHERE id = '${overdueId}'`);
  }
});

// A copy of the server's configuration with some keys replaced.
function configWith(name, overrides) {
  const config = { ...JSON.parse(readFileSync(server.configPath, 'utf8')), ...overrides };
  const path = join(server.dir, name);
  writeFileSync(path, JSON.stringify(config, null, 2));
  return path;
}

// serve until it prints its address, then SIGTERM: resolves with the exit.
function serveOnce(args, configPath) {
  return new Promise((resolve) => {
    const child = spawn(server.bin, ['serve', ...args, '--config', configPath, ...serveFlags()], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '', listening = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), 20000);
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (!listening && /listening on/.test(stdout)) {
        listening = true;
        child.kill('SIGTERM');
      }
    });
    child.on('exit', (code, signal) => { clearTimeout(timer); resolve({ code, signal, listening, stdout, stderr }); });
  });
}

test('migrate --status and --dry-run list what is pending and write nothing; serve --no-migrate refuses it', async () => {
  assert.ok(stopped, 'runs after the server stopped');
  const latest = cliJson(['version']).schemaVersion;
  const name = queryRows(server, `SELECT name FROM schema_migrations WHERE version = ${latest}`)[0].name;
  const previous = Number(queryRows(server, `SELECT MAX(version) AS v FROM schema_migrations WHERE version < ${latest}`)[0].v);
  // As if the newest migration had not run yet (its change stays: only --status/--dry-run look).
  runStatement(server, `DELETE FROM schema_migrations WHERE version = ${latest}`);
  try {
    const status = cliJson(['migrate', '--status']);
    assert.equal(status.databaseVersion, previous);
    assert.equal(status.binaryVersion, latest);
    assert.deepEqual(status.pending, [{ version: latest, name }]);
    assert.equal(status.current, false);
    assert.equal(status.newerThanBinary, false);
    const dry = cli(['migrate', '--dry-run']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, new RegExp(`database ${previous}, this binary ${latest}`));
    assert.match(dry.stdout, /would apply 1 migration\(s\) \(nothing written\)/);
    assert.ok(dry.stdout.includes(`${latest}  ${name}`), dry.stdout);
    assert.deepEqual(cliJson(['migrate', '--dry-run']).pending, [{ version: latest, name }]);
    assert.equal(queryRows(server, `SELECT version FROM schema_migrations WHERE version = ${latest}`).length, 0, 'nothing written');

    const refused = await serveOnce(['--no-migrate'], server.configPath);
    assert.equal(refused.listening, false);
    assert.equal(refused.signal, null);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, new RegExp(`version ${previous} and this binary needs version ${latest}`));
    const byConfig = await serveOnce([], configWith('no-migrate.json', { migrate_on_start: false }));
    assert.equal(byConfig.code, 1);
    assert.match(byConfig.stderr, /corridor migrate/);
    // The operator tools do not migrate either.
    expectFailure(cli(['platform', 'list']), 1, new RegExp(`needs version ${latest}`));
  } finally {
    runStatement(server, `INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES (${latest}, '${name.replace(/'/g, "''")}', 1)`);
  }
  assert.equal(cliJson(['migrate', '--status']).current, true);
  const served = await serveOnce(['--no-migrate'], server.configPath);
  assert.equal(served.listening, true, served.stderr);
  assert.equal(served.code, 0, served.stderr);
});

test('migrate on a new database: --dry-run lists every migration and creates nothing', () => {
  let database;
  let fileOf;
  const urlFile = process.env.CORRIDOR_TEST_POSTGRES_URL_FILE;
  if (urlFile) {
    const base = readFileSync(urlFile, 'utf8').trim();
    const name = `corridor_${randomBytes(6).toString('hex')}`;
    execFileSync('psql', [base, '-q', '-c', `CREATE DATABASE ${name}`]);
    database = base.replace(/\/[^/]*$/, `/${name}`);
  } else {
    fileOf = join(server.dir, 'fresh.db');
    database = `sqlite:${fileOf}`;
  }
  const config = configWith('fresh.json', { database });
  const run = (args) => cli(args, config);
  const dry = run(['migrate', '--dry-run', '--json']);
  assert.equal(dry.code, 0, dry.stderr);
  const plan = JSON.parse(dry.stdout);
  assert.equal(plan.dryRun, true);
  assert.equal(plan.databaseVersion, 0);
  assert.ok(plan.pending.length >= 10);
  assert.equal(plan.pending.at(-1).version, plan.binaryVersion);
  if (fileOf) {
    assert.equal(existsSync(fileOf), false, 'the dry run created no file');
  } else {
    assert.equal(queryRows({ database }, "SELECT table_name FROM information_schema.tables WHERE table_name = 'schema_migrations'").length, 0);
  }
  expectFailure(run(['platform', 'list']), 1, /corridor migrate/);
  const applied = run(['migrate']);
  assert.equal(applied.code, 0, applied.stderr);
  assert.equal(applied.stdout.trim(), `applied ${plan.pending.length} migration(s); schema at version ${plan.binaryVersion}`);
  const status = JSON.parse(run(['migrate', '--status', '--json']).stdout);
  assert.equal(status.current, true);
  assert.deepEqual(JSON.parse(run(['platform', 'list', '--json']).stdout), { platforms: [] });
  expectFailure(run(['migrate', '--status', '--dry-run']), 2, /do not go together/);
});

test('a database newer than the binary stops serve, migrate and the other commands, naming both versions', async () => {
  assert.ok(stopped, 'runs after the server stopped');
  const binary = cliJson(['version']).schemaVersion;
  const newer = binary + 1;
  runStatement(server, `INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES (${newer}, 'from a newer release', 1)`);
  const both = new RegExp(`schema \\(version ${newer}\\) is newer than this binary \\(schema version ${binary}\\)`);
  const served = await serveOnce([], server.configPath);
  assert.equal(served.listening, false);
  assert.equal(served.signal, null, 'never a signal');
  assert.equal(served.code, 1);
  assert.match(served.stderr, both);
  assert.doesNotMatch(served.stderr, /assert/i);
  expectFailure(cli(['migrate']), 1, both);
  expectFailure(cli(['migrate', '--dry-run']), 1, both);
  const status = cli(['migrate', '--status', '--json']);
  assert.equal(status.code, 1);
  const reported = JSON.parse(status.stdout);
  assert.equal(reported.newerThanBinary, true);
  assert.equal(reported.databaseVersion, newer);
  assert.equal(reported.binaryVersion, binary);
  assert.deepEqual(reported.unknown, [newer]);
  expectFailure(cli(['platform', 'list']), 1, both);
  expectFailure(cli(['audit']), 1, both);
  expectFailure(cli(['platform', 'create', '--name', 'X', '--uma-domain', 'x.example.test']), 1, both);
  expectFailure(cli(['webhook-key', 'show', '--platform', platformId(0), '--environment', 'sandbox']), 1, both);
  // Nothing was applied or changed by the refusals.
  assert.equal(queryRows(server, `SELECT COUNT(*) AS n FROM platforms`)[0].n.toString(), '2');
  assert.equal((await serveOnce(['--no-migrate'], server.configPath)).code, 1);
});
