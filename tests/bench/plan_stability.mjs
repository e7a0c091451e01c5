// Plan stability on PostgreSQL: do the hot-path statements keep an index plan on a big database?
// On a fresh database of the given server, a Corridor process migrates the schema; the hot tables
// are then filled to `rows` rows each with generate_series (a thousand platforms of very unequal
// size, both environments, customers with two accounts each, statuses as a live service has them:
// almost every event delivered, almost every quote finished) and analysed. With log_statement = all,
// the process then serves payments with Idempotency-Key (quote and execute at once, and quote then
// execute), the reads of a quote, a transaction and a customer's accounts, a page of the
// transactions and of the quotes and the next by its cursor, and delivers their
// webhooks to a local receiver; `corridor payment show` then shows two of the payments (the
// operator's view, whose two range reads of ids must be among the statements captured). Every
// distinct statement sent to the database is read back from the server log
// with the parameters it was bound to (the statement texts are therefore those of the code that
// runs). Each is then EXPLAINed through PREPARE/EXECUTE with plan_cache_mode = force_generic_plan
// and force_custom_plan. A sequential scan of a table above `bigRows` rows, or an index scan
// without an index condition (a walk of the whole index) of an index above `bigRows` entries, fails
// the check (a partial index's walk reads only the rows of its predicate).
//   import { checkPlans } from './plan_stability.mjs'  (write_path_bench.mjs --plans runs it)
import { execFileSync, spawn } from 'node:child_process';
import { openSync, readSync, closeSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { call, launch, stopCorridor } from '../api/lib/harness.mjs';
import { api, endWithBenchmark, fundedCustomers, startBenchServer, stopBenchServer } from './lib/bench.mjs';
import { psql, psqlScript } from './lib/postgres.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

// u(seed) in [0, 1): a fixed pseudo-random number of an integer SQL expression, so that related
// rows (a customer, its accounts) agree without a join.
const u = (expr) => `((hashint8((${expr})::bigint)::bigint & 2147483647)::float8 / 2147483648.0)`;
// Platforms by size: the cube skews rows towards the low numbers (a few big platforms, a long tail).
const platformOf = (expr) => `'Platform:plan-' || floor(1000 * power(${u(`${expr} * 7 + 1`)}, 3))::int`;
const environmentOf = (expr) => `CASE WHEN ${u(`${expr} * 13 + 5`)} < 0.85 THEN 'production' ELSE 'sandbox' END`;
// The tenant key of platformOf and environmentOf of the same expression: the filled configuration
// of platform p has key 100 + 2p in production and 100 + 2p + 1 in the sandbox.
const tenantKeyOf = (expr) => `(100 + 2 * floor(1000 * power(${u(`${expr} * 7 + 1`)}, 3))::int + ` +
  `CASE WHEN ${u(`${expr} * 13 + 5`)} < 0.85 THEN 0 ELSE 1 END)`;
// Creation times over the last `spanMs` (by default 20 days: within the webhook retention, so the
// service has nothing to prune), oldest first.
const createdOf = (expr, rows, spanMs = 1728000000) =>
  `(EXTRACT(EPOCH FROM now()) * 1000)::bigint - ((${rows} - ${expr}) * (${spanMs} / ${rows}))::bigint`;
// A uuid v7's text made at `ms` (a bigint SQL expression), its other bits from `seed`: filled ids
// sort by their creation time as the service's do, so a range of ids (the operator's payment view)
// is estimated on a realistic spread.
const uuid7 = (ms, seed) => {
  const hex = (expr, width) => `lpad(to_hex(${expr}), ${width}, '0')`;
  const s = `(${seed})::bigint`;
  return `${hex(`(${ms}) >> 16`, 8)} || '-' || ${hex(`(${ms}) & 65535`, 4)} || '-7' || ${hex(`(${s} % 4096)::int`, 3)}` +
    ` || '-8' || ${hex(`(${s} * 7919 % 4096)::int`, 3)} || '-' || ${hex(s, 12)}`;
};
const pick = (expr, choices) => {
  // choices: [[value, share], ...] with shares summing to 1.
  let acc = 0;
  const arms = choices.slice(0, -1).map(([value, share]) => { acc += share; return `WHEN ${expr} < ${acc} THEN ${value}`; });
  return `CASE ${arms.join(' ')} ELSE ${choices.at(-1)[0]} END`;
};

// Per table: its row count and the SQL expression (over g, 1..count) of the columns that matter
// to plans; any other column takes its default, or NULL, or a neutral value of its type.
function fillPlan(rows) {
  const customers = Math.floor(rows / 2);
  const customerOf = (expr) => `(1 + ((${expr}) - 1) / 2)`;  // accounts 2c-1 and 2c belong to customer c
  const account = (expr) => `'InternalAccount:plan-' || (${expr})`;
  // Account keys well above those the service draws from the identity for the accounts it opens.
  const accountKey = (expr) => `1000000000 + (${expr})`;
  const randomAccount = (seed) => account(`1 + floor(${u(seed)} * ${rows})::bigint`);
  const created = createdOf('g', rows);
  const now = '(EXTRACT(EPOCH FROM now()) * 1000)::bigint';
  const quoteStatus = pick(u('g * 19'), [["'COMPLETED'", 0.9], ["'EXPIRED'", 0.08], ["'FAILED'", 0.018], ["'PENDING'", 0.002]]);
  // Nearly every event finished; a few retrying, their next attempt ahead.
  const eventState = pick(u('g * 37'), [["'DELIVERED'", 0.97], ["'NO_ENDPOINT'", 0.02], ["'FAILED'", 0.008], ["'PENDING'", 0.002]]);
  return [
    ['platforms', 1000, { id: "'Platform:plan-' || (g - 1)", name: "'Plan platform ' || g", is_regulated: '1' }],
    ['platform_configs', 2000, {
      platform_id: "'Platform:plan-' || ((g - 1) / 2)", environment: "CASE WHEN g % 2 = 1 THEN 'production' ELSE 'sandbox' END",
      id: "'PlatformConfig:plan-' || g", uma_domain: "'plan' || g || '.example'", proxy_uma_subdomain: "'plan' || g",
      supported_currencies: "'[]'", created_at_ms: now, updated_at_ms: now, tenant_key: '99 + g',
    }],
    ['customers', customers, {
      id: "'Customer:plan-' || g", platform_id: platformOf('g'), environment: environmentOf('g'),
      platform_customer_id: "'pc-' || g", customer_type: "'INDIVIDUAL'", uma_address: "'$user' || g || '@plan.example'",
      kyc_status: pick(u('g * 3'), [["'APPROVED'", 0.9], ["'PENDING'", 0.1]]), full_name: "'Person ' || g",
      is_deleted: `CASE WHEN ${u('g * 5')} < 0.01 THEN 1 ELSE 0 END`, created_at_ms: created, updated_at_ms: created,
    }],
    ['ledger_accounts', rows, {
      id: account('g'), platform_id: platformOf(customerOf('g')), environment: environmentOf(customerOf('g')),
      kind: "'CUSTOMER'", owner_id: `'Customer:plan-' || ${customerOf('g')}`,
      currency: "CASE WHEN g % 2 = 1 THEN 'USD' ELSE 'EUR' END", reference: "'PLANREF' || g", must_not_overdraw: '1',
      debits_posted: '(g % 1000) * 1000', credits_posted: '1000000 + (g % 1000) * 1000', created_at_ms: created, updated_at_ms: created,
      account_key: accountKey('g'),
    }],
    ['ledger_transfers', rows, {
      // Ids stored as uuids, accounts by key (migration 46).
      id: `CAST(${uuid7(created, 'g')} AS uuid)`,
      debit_account_key: accountKey('g'), credit_account_key: accountKey('1 + (g % ' + rows + ')'),
      amount: '1000 + g % 5000', currency: "'USD'", code: "'PAYMENT'",
      transaction_id: `CAST(${uuid7(created, 'g * 3')} AS uuid)`, created_at_ms: created,
    }],
    ['quotes', rows, {
      // Its own id stored as a uuid (migration 50), the one its transaction names.
      id: `CAST(${uuid7(created, 'g')} AS uuid)`, tenant_key: tenantKeyOf('g'),
      status: quoteStatus,
      source_type: "'ACCOUNT'", source_account_id: randomAccount('g * 23'), source_customer_id: `CAST(${uuid7(created, '1 + g % ' + customers)} AS uuid)`,
      // Customers' and transaction ids stored as uuids (migration 48); no receiving customer is NULL.
      destination_type: "'ACCOUNT'", destination_account_id: randomAccount('g * 29'), destination_customer_id: 'NULL',
      sending_currency: "'USD'", receiving_currency: "'EUR'", locked_side: "'SENDING'", locked_amount: '1000',
      total_sending: '1000', net_sending: '1000', total_receiving: '920', exchange_rate: "'92/100'",
      counterparty_multiplier: "'1/1'", service_multiplier: "'1/1'", variable_fee_rate: "'0/1'", purpose_of_payment: "'GOODS_OR_SERVICES'",
      transaction_id: `CAST(${uuid7(created, 'g')} AS uuid)`, funding_reference: "'PLANFR' || g", created_at_ms: created,
      // An open quote has not expired yet (the service's expiry would otherwise take it now).
      expires_at_ms: `CASE WHEN ${quoteStatus} = 'PENDING' THEN ${now} + 86400000 ELSE ${created} + 300000 END`, updated_at_ms: created,
    }],
    ['transactions', rows, {
      // Its own, quote's and customer's ids stored as uuids (migration 49); its quote's is the
      // quote's own (migration 50).
      id: `CAST(${uuid7(created, 'g')} AS uuid)`, tenant_key: tenantKeyOf('g'),
      type: "CASE WHEN g % 3 = 0 THEN 'INCOMING' ELSE 'OUTGOING' END",
      status: pick(u('g * 31'), [["'COMPLETED'", 0.95], ["'FAILED'", 0.04], ["'PROCESSING'", 0.01]]),
      quote_id: `CAST(${uuid7(created, 'g')} AS uuid)`, customer_id: `CAST(${uuid7(created, '1 + g % ' + customers)} AS uuid)`,
      source_account_id: randomAccount('g * 23'), destination_account_id: randomAccount('g * 29'),
      source_type: "'ACCOUNT'", destination_type: "'ACCOUNT'", source_currency: "'USD'", destination_currency: "'EUR'",
      sent_amount: '1000', received_amount: '920', exchange_rate: "'92/100'", rate_details: "'{}'",
      reference: "'PLANTX' || g", created_at_ms: created, updated_at_ms: created, settled_at_ms: created,
    }],
    ['outbox_events', rows, {
      // The id stored as a uuid (migration 47).
      id: `CAST(${uuid7(created, 'g')} AS uuid)`, tenant_key: tenantKeyOf('g'),
      type: "'OUTGOING_PAYMENT'", payload: `convert_to('{"id":"Webhook:plan-' || g || '","data":"' || repeat('x', 400) || '"}', 'UTF8')`,
      state: eventState, attempts: '1', created_at_ms: created,
      next_attempt_at_ms: `CASE WHEN ${eventState} = 'PENDING' THEN ${now} + 3600000 ELSE ${created} + 60000 END`,
      first_attempt_at_ms: `${created} + 10`, finished_at_ms: `${created} + 50`,
    }],
    ['idempotency_keys', rows, {
      platform_id: platformOf('g'), environment: environmentOf('g'), idempotency_key: "'plan-key-' || g",
      // Keys live idempotency.retention_hours (24 by default): a day's worth.
      request_hash: "md5(g::text)", status: '201', response_body: `'{"id":"Quote:plan-' || g || '"}'`,
      created_at_ms: createdOf('g', rows, 82800000),
    }],
    // UMA payments: one quote in ten (the transaction reads look their payee data up).
    ['uma_payments', Math.floor(rows / 10), {
      quote_id: `'Quote:' || ${uuid7(createdOf('g * 10', rows), 'g * 10')}`, platform_id: platformOf('g * 10'), environment: environmentOf('g * 10'),
      payment_hash: "md5(g::text)", payee_data: "'{}'", receiver_multiplier: "'1/1'", created_at_ms: createdOf('g * 10', rows),
    }],
    ['webhook_attempts', rows, {
      // Its own and its event's ids as uuids, the tenant by its key (migration 52).
      id: `CAST(${uuid7(`${created} + 20`, 'g')} AS uuid)`, tenant_key: tenantKeyOf('g'),
      event_id: `CAST(${uuid7(created, 'g')} AS uuid)`, event_type: "'OUTGOING_PAYMENT'", attempt: '1', url: "'https://example.com/hook'",
      attempted_at_ms: created, latency_ms: '40', response_status: '200', outcome: "'SUCCEEDED'",
    }],
  ];
}

const neutral = { text: "''", bigint: '0', integer: '0', smallint: '0', boolean: 'false', 'double precision': '0', numeric: '0' };

async function fillTable(url, table, count, expressions) {
  const columns = (await psql(url,
    `SELECT column_name, data_type, is_nullable, column_default IS NOT NULL FROM information_schema.columns ` +
    `WHERE table_schema = 'public' AND table_name = '${table}' ORDER BY ordinal_position`))
    .split('\n').filter(Boolean).map((l) => l.split('|'));
  if (!columns.length) throw new Error(`plan check: table ${table} not found`);
  const names = [], values = [];
  for (const [name, type, nullable, hasDefault] of columns) {
    if (name in expressions) { names.push(name); values.push(expressions[name]); continue; }
    if (hasDefault === 't' || nullable === 'YES') continue;
    if (!(type in neutral)) throw new Error(`plan check: no value for ${table}.${name} (${type})`);
    names.push(name);
    values.push(neutral[type]);
  }
  const unknown = Object.keys(expressions).filter((k) => !columns.some(([name]) => name === k));
  if (unknown.length) throw new Error(`plan check: ${table} has no column ${unknown.join(', ')}`);
  // Foreign keys are not checked while filling (replica role): the ids are made to match anyway.
  await psql(url, `SET session_replication_role = replica; INSERT INTO ${table} (${names.join(', ')}) ` +
    `SELECT ${values.join(', ')} FROM generate_series(1, ${count}) AS g`, { timeoutS: 1800 });
}

// Reads the server log from `offset` and returns the statements logged for `database`, each with
// its bound parameters (SQL literals, or NULL).
function loggedStatements(logFile, offset, database) {
  const size = statSync(logFile).size;
  const buffer = Buffer.alloc(size - offset);
  const fd = openSync(logFile, 'r');
  try { readSync(fd, buffer, 0, buffer.length, offset); } finally { closeSync(fd); }
  const entries = [];  // [prefix-stripped message, ...], continuation lines appended
  const prefix = new RegExp(`^\\d{4}-\\d\\d-\\d\\d [\\d:.]+ \\S+ \\[\\d+\\] db=(\\S*) (\\w+):  (.*)$`);
  for (const line of buffer.toString('utf8').split('\n')) {
    const m = line.match(prefix);
    if (m) entries.push({ database: m[1], level: m[2], text: m[3] });
    else if (entries.length && line.startsWith('\t')) entries.at(-1).text += `\n${line.slice(1)}`;
  }
  const statements = [];
  for (const entry of entries) {
    if (entry.database !== database) continue;
    const executed = entry.level === 'LOG' && entry.text.match(/^(?:execute [^:]*|statement): ([\s\S]*)$/);
    if (executed) { statements.push({ sql: executed[1].trim(), params: [] }); continue; }
    const detail = entry.level === 'DETAIL' && entry.text.match(/^parameters: ([\s\S]*)$/);
    if (detail && statements.length) {
      statements.at(-1).params = [...detail[1].matchAll(/\$(\d+) = (NULL|'(?:[^']|'')*')/g)].map((p) => p[2]);
    }
  }
  return statements;
}

// Every node of an EXPLAIN (FORMAT JSON) plan.
function nodesOf(plan, out = []) {
  out.push(plan);
  for (const child of plan.Plans || []) nodesOf(child, out);
  return out;
}

function describe(plan, sizes, bigRows) {
  const nodes = nodesOf(plan);
  const scans = nodes.filter((n) => n['Relation Name'] || n['Index Name']).map((n) => {
    const where = n['Index Name'] ? ` using ${n['Index Name']}` : '';
    return `${n['Node Type']}${n['Relation Name'] ? ` on ${n['Relation Name']}` : ''}${where}`;
  });
  // A sequential scan of a big table, or an index scan with no condition on the index (a walk of
  // the whole index in its order, filtering row by row: the generic plan's way to "serve" an
  // ORDER BY ... LIMIT it thinks many rows match), reads the table in full when few rows match.
  // A walk of a partial index reads only the entries of its predicate: its own size counts.
  const walk = (n) => /^Index (Only )?Scan$/.test(n['Node Type']) && !n['Index Cond'];
  const rowsOf = (n) => (walk(n) ? sizes[n['Index Name']] ?? sizes[n['Relation Name']] : sizes[n['Relation Name']]) || 0;
  const bad = nodes.filter((n) => rowsOf(n) > bigRows && (n['Node Type'] === 'Seq Scan' || walk(n)))
    .map((n) => `${n['Node Type']} on ${n['Relation Name']}${n['Index Name'] ? ` using ${n['Index Name']} without an index condition` : ''}` +
      ` (${Math.round(rowsOf(n))} ${walk(n) ? 'entries' : 'rows'}${n.Filter ? `; filter ${n.Filter}` : ''})`);
  return { cost: plan['Total Cost'], scans: scans.length ? scans.join(', ') : plan['Node Type'], bad };
}

async function explain(url, sql, params) {
  const args = params.length ? `(${params.join(', ')})` : '';
  const script = [
    'SET plan_cache_mode = force_generic_plan;', `PREPARE corridor_hot AS ${sql};`,
    `EXPLAIN (FORMAT JSON) EXECUTE corridor_hot${args};`, '\\echo ==plan==',
    'SET plan_cache_mode = force_custom_plan;', `EXPLAIN (FORMAT JSON) EXECUTE corridor_hot${args};`, '',
  ].join('\n');
  const out = await psqlScript(url, script);
  const [generic, custom] = out.split('==plan==').map((text) => JSON.parse(text.trim())[0].Plan);
  return { generic, custom };
}

// What the capture drives: payments with Idempotency-Key both ways, the hot reads, and the
// webhook deliveries they cause.
async function hotTraffic(server, customers) {
  const send = (path, body, key) => call(server, server.credentials, 'POST', path, body, { 'idempotency-key': key });
  const quoteBody = ({ accounts: [usd, eur] }, execute) => ({
    source: { sourceType: 'ACCOUNT', accountId: usd }, destination: { destinationType: 'ACCOUNT', accountId: eur },
    lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1000, immediatelyExecute: execute,
  });
  const results = [];
  const transactions = [];  // one of each way, for the operator's view
  for (let round = 0; round < 6; round++) {
    // Several at once, so that the writer batches them.
    results.push(...await Promise.all(customers.map((c, i) => send('/quotes', quoteBody(c, true), `plan-${round}-${i}`))));
  }
  for (let i = 0; i < customers.length; i++) {
    const quote = await send('/quotes', quoteBody(customers[i], false), `plan-quote-${i}`);
    if (quote.status !== 201) throw new Error(`plan check: quote ${quote.status} ${quote.text}`);
    if (i === 0) transactions.push(quote.body.transactionId);
    results.push(await send(`/quotes/${encodeURIComponent(quote.body.id)}/execute`, {}, `plan-execute-${i}`));
    // The same key again: the stored response is replayed.
    results.push(await send(`/quotes/${encodeURIComponent(quote.body.id)}/execute`, {}, `plan-execute-${i}`));
    await api(server, 'GET', `/quotes/${encodeURIComponent(quote.body.id)}`);
    if (quote.body.transactionId) await api(server, 'GET', `/transactions/${encodeURIComponent(quote.body.transactionId)}`);
    await api(server, 'GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customers[i].customer)}`);
  }
  // The lists of a tenant's transactions and quotes: keyset pages by (tenant_key, id) and their
  // counts, a first page and the next one by its cursor.
  for (const list of ['/transactions', '/quotes']) {
    const first = await api(server, 'GET', `${list}?limit=3`);
    if (!first.hasMore) throw new Error(`plan check: ${list} has a single page`);
    await api(server, 'GET', `${list}?limit=3&cursor=${encodeURIComponent(first.nextCursor)}`);
  }
  const refused = results.filter((r) => r.status >= 300);
  if (refused.length) throw new Error(`plan check: ${refused.length} payments refused, e.g. ${refused[0].status} ${refused[0].text}`);
  transactions.push(results[0].body.transactionId);
  return { requests: results.length, transactions };
}

function startReceiver() {
  const child = spawn(process.execPath, [join(here, 'webhook_receiver.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
  endWithBenchmark(child);
  return new Promise((ok, fail) => {
    child.stdout.setEncoding('utf8');
    child.stdout.once('data', (line) => {
      const m = line.match(/receiver on (\d+)/);
      if (m) ok({ child, url: `http://127.0.0.1:${m[1]}/hook`, stats: `http://127.0.0.1:${m[1]}/stats` });
      else fail(new Error(`receiver: ${line}`));
    });
    child.on('exit', (code) => fail(new Error(`receiver exited with ${code}`)));
  });
}

export async function checkPlans(pg, buildDir, { plugins, rows = Number(process.env.CORRIDOR_PLAN_ROWS || 1000000), bigRows = 10000 } = {}) {
  const database = 'corridor_plans';
  await psql(pg.url, `CREATE DATABASE ${database}`);
  const url = pg.urlOf(database);
  const receiver = await startReceiver();
  let server;
  try {
    server = await startBenchServer(buildDir, {
      database: url, plugins, config: { outbound: { allow_private_addresses: true }, log: { access: false } },
    });
    await api(server, 'PATCH', '/config', { webhookEndpoint: receiver.url });
    const customers = await fundedCustomers(server, 8, ['USD', 'EUR'], 1000000000);

    console.log(`\nplan stability: filling the hot tables to ${rows} rows each`);
    const started = Date.now();
    for (const [table, count, expressions] of fillPlan(rows)) {
      const t0 = Date.now();
      await fillTable(url, table, count, expressions);
      console.log(`  ${table}: ${count} rows in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    }
    await psql(url, 'VACUUM ANALYZE', { timeoutS: 1800 });
    const sizes = Object.fromEntries((await psql(url,
      "SELECT c.relname, c.reltuples FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('r', 'i')"))
      .split('\n').map((l) => l.split('|')).map(([name, tuples]) => [name, Number(tuples)]));
    console.log(`  filled and analysed in ${((Date.now() - started) / 1000).toFixed(0)} s`);

    // Capture: every statement of the hot traffic, logged with its parameters, from a restart on
    // (a process's first upkeep also prunes idempotency keys, hourly afterwards).
    const offset = statSync(pg.logFile).size;
    await psqlScript(pg.url, "ALTER SYSTEM SET log_statement = 'all';\nSELECT pg_reload_conf();\n");
    await sleep(500);
    await stopCorridor(server, { keepFiles: true });
    await launch(server);
    endWithBenchmark(server.process);
    await sleep(1000);
    const before = (await (await fetch(receiver.stats)).json()).received;
    const { requests, transactions } = await hotTraffic(server, customers).catch((error) => {
      throw new Error(`${error.message}${error.cause ? ` (${error.cause.message})` : ''}; the server's log ends:\n${server.stderr.slice(-3000)}`);
    });
    for (let i = 0; i < 100; i++) {  // until the payments' webhooks have arrived
      if ((await (await fetch(receiver.stats)).json()).received > before + requests) break;
      await sleep(100);
    }
    // The operator's view of two of them (`corridor payment show`; the dashboard's transaction page
    // reads the same): its transfers and its events by a range of their ids.
    for (const id of transactions) {
      const shown = JSON.parse(execFileSync(server.bin, ['payment', 'show', id, '--json', '--config', server.configPath], { encoding: 'utf8' }));
      if (!shown.postings.length || !shown.webhookEvents.length) throw new Error(`plan check: payment show ${id} found no postings or events`);
    }
    await sleep(300);
    await psqlScript(pg.url, 'ALTER SYSTEM RESET log_statement;\nSELECT pg_reload_conf();\n');
    const logged = loggedStatements(pg.logFile, offset, database);
    const distinct = new Map();
    for (const s of logged) {
      if (!/^(SELECT|INSERT|UPDATE|DELETE|WITH)\b/i.test(s.sql) || /^SELECT\s+pg_/i.test(s.sql)) continue;
      if (!distinct.has(s.sql)) distinct.set(s.sql, s);
    }
    if (distinct.size < 10) throw new Error(`plan check: only ${distinct.size} statements captured from the server log`);
    const viewReads = ['FROM ledger_transfers t JOIN ledger_accounts d ON d.account_key = ', 'FROM outbox_events WHERE id >= '];
    const missing = viewReads.filter((text) => ![...distinct.keys()].some((sql) => sql.includes(text)));
    if (missing.length) throw new Error(`plan check: the payment view's reads were not captured (${missing.join('; ')})`);
    const delivered = (await (await fetch(receiver.stats)).json()).received - before;
    console.log(`captured ${logged.length} statements (${distinct.size} distinct) from ${requests} requests and ${delivered} webhook deliveries; ` +
      `a Seq Scan, or an index scan without an index condition, of a table above ${bigRows} rows fails`);

    let failures = 0;
    for (const { sql, params } of distinct.values()) {
      let plans;
      try {
        plans = await explain(url, sql, params);
      } catch (error) {
        failures++;
        console.log(`FAIL (cannot EXPLAIN: ${String(error.message).split('\n').find((l) => /ERROR/.test(l)) || error.message})\n  ${sql}`);
        continue;
      }
      const generic = describe(plans.generic, sizes, bigRows);
      const custom = describe(plans.custom, sizes, bigRows);
      const bad = [...generic.bad.map((b) => `generic: ${b}`), ...custom.bad.map((b) => `custom: ${b}`)];
      if (bad.length) failures++;
      console.log(`${bad.length ? 'FAIL' : 'ok  '} ${sql.length > 150 ? `${sql.slice(0, 147)}...` : sql}`);
      console.log(`       generic cost ${generic.cost.toFixed(2)}: ${generic.scans}`);
      console.log(`       custom  cost ${custom.cost.toFixed(2)}: ${custom.scans}`);
      for (const b of bad) console.log(`       ${b}`);
    }
    console.log(`plan stability: ${distinct.size - failures} of ${distinct.size} statements keep an index plan at ${rows} rows ` +
      `(generic and custom plans)${failures ? `; ${failures} FAILED` : ''}`);
    return { ok: failures === 0, statements: distinct.size, failures };
  } finally {
    await psqlScript(pg.url, 'ALTER SYSTEM RESET log_statement;\nSELECT pg_reload_conf();\n').catch(() => {});
    if (server) await stopBenchServer(server);
    receiver.child.kill('SIGTERM');
    await psql(pg.url, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => {});
  }
}
