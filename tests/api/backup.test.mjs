// Backup and restore, and private keys at rest. `corridor backup --to DIR` runs while payments are
// under way over the API; the backup is restored into a fresh folder with a fresh configuration, a
// server started on it, and every payment acknowledged before the backup began must be there, every
// balance must equal the sum of its postings and every posting must balance. On PostgreSQL the
// command copies the files and keys only and names pg_dump and pg_basebackup for the database (the
// restored server then runs on the same database). Keys: webhook and UMA private keys are sealed
// in the database, the key-encryption key file is 0600, a wrong key stops start-up with a message
// and changes nothing, and keys stored in clear by an older version are sealed at start.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import {
  mkdtempSync, readFileSync, writeFileSync, statSync, existsSync, readdirSync, rmSync, cpSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash, createVerify, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { startCorridor, stopCorridor, launch, call, serveFlags } from './lib/harness.mjs';
import { newCustomer, accountsOf, fund, quoteBody } from './lib/money.mjs';
import { queryRows, runStatement, typedIdColumn } from './lib/database.mjs';
import { startReceiver, stopReceiver, signatureOf } from './lib/receiver.mjs';

const postgres = Boolean(process.env.CORRIDOR_TEST_POSTGRES_URL_FILE);
const execFileAsync = promisify(execFile);
const WORKERS = 6;
const BEFORE_BACKUP = 30;  // payments acknowledged before the backup starts, at least
const AFTER_BACKUP = 10;   // and after it ends, so the load spans it

let server;
const cleanup = [];

before(async () => {
  server = await startCorridor({ platforms: 1, config: { outbound: { allow_private_addresses: true } } });
});
after(async () => {
  if (server) await stopCorridor(server);
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
});

const configOf = (target) => JSON.parse(readFileSync(target.configPath, 'utf8'));
const modeOf = (path) => statSync(path).mode & 0o777;
const newDir = (prefix) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanup.push(dir);
  return dir;
};

function cli(target, args) {
  const result = spawnSync(target.bin, [...args, '--config', target.configPath], { encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

// A configuration in a new folder: its own rail folder, spark key and (by default, in the state
// folder, which is the configuration's folder) key-encryption key; a new SQLite file, or the same
// PostgreSQL database, whose copy the standard tools make.
function freshServer(from, overrides = {}) {
  const dir = newDir('corridor-restored-');
  const base = configOf(from);
  const spark = base.plugins?.settings?.spark;
  const config = {
    ...base,
    database: postgres ? from.database : `sqlite:${join(dir, 'corridor.db')}`,
    state_dir: dir,
    rails: { ...base.rails, data_dir: join(dir, 'rails') },
    bulk_import: { ...base.bulk_import, dir: join(dir, 'bulk-imports') },
    plugins: {
      ...base.plugins,
      settings: {
        ...base.plugins.settings,
        ...(spark ? { spark: { ...spark, node_private_key_file: join(dir, 'spark-node.key'), sandbox_network_dir: join(dir, 'lightning-sandbox') } } : {}),
      },
    },
    ...overrides,
  };
  const configPath = join(dir, 'corridor.json');
  writeFileSync(configPath, JSON.stringify(config, null, 2));
  return { bin: from.bin, dir, configPath, database: config.database, platforms: from.platforms };
}

// Every account's posted totals against the sum of its postings, and every posting between two
// accounts of its own currency.
function auditBook(target) {
  const accounts = queryRows(target, `SELECT a.id, a.currency, a.debits_posted, a.credits_posted,
      COALESCE(d.total, 0) AS debits, COALESCE(c.total, 0) AS credits
    FROM ledger_accounts a
    LEFT JOIN (SELECT debit_account_key AS k, SUM(amount) AS total FROM ledger_transfers GROUP BY debit_account_key) d ON d.k = a.account_key
    LEFT JOIN (SELECT credit_account_key AS k, SUM(amount) AS total FROM ledger_transfers GROUP BY credit_account_key) c ON c.k = a.account_key`);
  assert.ok(accounts.length > 0);
  for (const account of accounts) {
    assert.equal(BigInt(account.debits_posted), BigInt(account.debits), `debits of ${account.id}`);
    assert.equal(BigInt(account.credits_posted), BigInt(account.credits), `credits of ${account.id}`);
  }
  const unbalanced = queryRows(target, `SELECT t.code, t.amount FROM ledger_transfers t
    LEFT JOIN ledger_accounts d ON d.account_key = t.debit_account_key LEFT JOIN ledger_accounts c ON c.account_key = t.credit_account_key
    WHERE t.amount <= 0 OR d.id IS NULL OR c.id IS NULL OR d.currency <> t.currency OR c.currency <> t.currency`);
  assert.deepEqual(unbalanced, []);
  // Every unit credited somewhere was debited somewhere else, per currency.
  const byCurrency = queryRows(target, `SELECT currency, SUM(credits_posted) AS credits, SUM(debits_posted) AS debits
    FROM ledger_accounts GROUP BY currency`);
  for (const row of byCurrency) assert.equal(BigInt(row.credits), BigInt(row.debits), row.currency);
  return accounts.length;
}

test('the key-encryption key is made 0600 on first use and seals the webhook keys at rest', () => {
  const kek = join(server.dir, 'key-encryption.key');
  assert.ok(existsSync(kek), 'no key-encryption.key in the state folder');
  assert.equal(modeOf(kek), 0o600);
  assert.match(readFileSync(kek, 'utf8'), /^[0-9a-f]{64}\n$/);
  const rows = queryRows(server, 'SELECT private_key_pem, public_key_pem FROM webhook_keys');
  assert.equal(rows.length, 2);  // sandbox and production of the one platform
  for (const row of rows) {
    assert.match(row.private_key_pem, /^sealed1:[0-9a-f]+$/);
    assert.ok(!row.private_key_pem.includes('PRIVATE KEY'));
    assert.match(row.public_key_pem, /BEGIN PUBLIC KEY/);
  }
});

test('a backup under payment load restores every acknowledged payment, balanced', async () => {
  const credentials = server.platforms[0].sandbox;
  const sender = await newCustomer(server, credentials);
  const source = (await accountsOf(server, credentials, sender.id)).USD;
  await fund(server, credentials, source.id, 1_000_000_000);
  const destinations = [];
  for (let i = 0; i < 3; i++) destinations.push((await accountsOf(server, credentials, (await newCustomer(server, credentials)).id)).EUR);

  const acknowledged = [];
  const failures = [];
  let inFlight = 0;
  let stop = false;
  async function worker(index) {
    for (let n = 0; !stop; n++) {
      inFlight += 1;
      try {
        const destination = destinations[(index + n) % destinations.length];
        const quote = await call(server, credentials, 'POST', '/quotes',
          quoteBody(source.id, destination.id, 1000 + index * 100 + n), { 'idempotency-key': randomUUID() });
        if (quote.status !== 201) { failures.push(quote.text); continue; }
        const executed = await call(server, credentials, 'POST', `/quotes/${quote.body.id}/execute`, undefined,
          { 'idempotency-key': randomUUID() });
        if (executed.status !== 200) { failures.push(executed.text); continue; }
        assert.equal(executed.body.status, 'COMPLETED');
        assert.match(executed.body.transactionId, /^Transaction:/);
        acknowledged.push(executed.body.transactionId);
      } finally {
        inFlight -= 1;
      }
    }
  }
  const workers = Array.from({ length: WORKERS }, (_, i) => worker(i));
  const until = async (condition) => {
    const deadline = Date.now() + 60000;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`load stalled: ${failures.slice(0, 3).join(' | ')}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  await until(() => acknowledged.length >= BEFORE_BACKUP);
  const backupDir = join(newDir('corridor-backups-'), 'backup');
  const beforeBackup = acknowledged.slice();
  const inFlightAtStart = inFlight;
  const backup = await execFileAsync(server.bin, ['backup', '--to', backupDir, '--config', server.configPath],
    { encoding: 'utf8' });
  const afterBackupCount = acknowledged.length;
  await until(() => acknowledged.length >= afterBackupCount + AFTER_BACKUP);
  stop = true;
  await Promise.all(workers);
  assert.deepEqual(failures, []);
  assert.ok(inFlightAtStart > 0, 'no payment was in flight when the backup started');

  // The folder: 0700, its files 0600, each as the manifest describes it.
  assert.equal(modeOf(backupDir), 0o700);
  const manifest = JSON.parse(readFileSync(join(backupDir, 'manifest.json'), 'utf8'));
  assert.equal(modeOf(join(backupDir, 'manifest.json')), 0o600);
  assert.match(manifest.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.equal(typeof manifest.version, 'string');
  const applied = queryRows(server, 'SELECT MAX(version) AS v FROM schema_migrations')[0].v;
  assert.equal(manifest.schemaVersion, Number(applied));
  for (const file of manifest.files) {
    const path = join(backupDir, file.path);
    assert.equal(modeOf(path), 0o600, file.path);
    assert.equal(statSync(path).size, file.bytes, file.path);
    assert.equal(createHash('sha256').update(readFileSync(path)).digest('hex'), file.sha256, file.path);
  }
  const roles = new Set(manifest.files.map((file) => file.role));
  assert.ok(roles.has('key_encryption_key'));
  assert.ok(roles.has('rail_data'), 'the rail folder (its node id) is not in the backup');
  if (postgres) {
    assert.equal(manifest.database.kind, 'postgresql');
    assert.ok(!roles.has('database'));
    assert.match(backup.stdout, /pg_dump/);
    assert.match(backup.stdout, /pg_basebackup/);
  } else {
    assert.equal(manifest.database.kind, 'sqlite');
    assert.ok(roles.has('database'));
  }
  // An existing, non-empty folder is refused.
  const again = cli(server, ['backup', '--to', backupDir]);
  assert.notEqual(again.code, 0);
  assert.match(again.stderr, /not empty/);
  // Nothing is restored under a running server, even with --force.
  const live = cli(server, ['restore', '--from', backupDir, '--force']);
  assert.notEqual(live.code, 0);
  assert.match(live.stderr, /running/);

  await stopCorridor(server, { keepFiles: true });
  const restored = freshServer(server);
  const restore = cli(restored, ['restore', '--from', backupDir]);
  assert.equal(restore.code, 0, restore.stderr);
  if (postgres) assert.match(restore.stdout, /pg_restore/);
  assert.equal(modeOf(join(restored.dir, 'key-encryption.key')), 0o600);
  assert.equal(readFileSync(join(restored.dir, 'key-encryption.key'), 'utf8'),
    readFileSync(join(server.dir, 'key-encryption.key'), 'utf8'));
  // What is there now is not overwritten without --force.
  const twice = cli(restored, ['restore', '--from', backupDir]);
  assert.notEqual(twice.code, 0);
  assert.match(twice.stderr, /--force/);
  assert.match(twice.stderr, /key-encryption\.key/);

  await launch(restored);
  try {
    const present = new Set(queryRows(restored, `SELECT ${typedIdColumn(restored, 'Transaction', 'id')} AS id FROM transactions`).map((row) => row.id));
    for (const id of beforeBackup) {
      assert.ok(present.has(id), `acknowledged payment ${id} is missing after the restore`);
      const read = await call(restored, credentials, 'GET', `/transactions/${id}`);
      assert.equal(read.status, 200, read.text);
      assert.equal(read.body.status, 'COMPLETED');
    }
    auditBook(restored);
    // The restored service goes on paying.
    const quote = await call(restored, credentials, 'POST', '/quotes', quoteBody(source.id, destinations[0].id, 500));
    assert.equal(quote.status, 201, quote.text);
    const executed = await call(restored, credentials, 'POST', `/quotes/${quote.body.id}/execute`);
    assert.equal(executed.status, 200, executed.text);
    auditBook(restored);
  } finally {
    await stopCorridor(restored, { keepFiles: true });
  }
  await launch(server);  // the other tests go on with the original

  // A damaged backup is refused before anything is written.
  const damaged = join(newDir('corridor-damaged-'), 'backup');
  cpSync(backupDir, damaged, { recursive: true });
  const victim = manifest.files.find((file) => file.role === 'key_encryption_key');
  writeFileSync(join(damaged, victim.path), `${randomBytes(32).toString('hex')}\n`);
  const target = freshServer(server);
  const refused = cli(target, ['restore', '--from', damaged]);
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, /does not match its SHA-256/);
  assert.deepEqual(readdirSync(target.dir), ['corridor.json']);
});

test('a wrong or missing key-encryption key stops start-up with a message and changes nothing', async () => {
  const before = queryRows(server, 'SELECT platform_id, environment, private_key_pem FROM webhook_keys ORDER BY platform_id, environment');
  const dir = newDir('corridor-wrong-kek-');
  const wrongKey = join(dir, 'wrong.key');
  writeFileSync(wrongKey, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  for (const file of [wrongKey, join(dir, 'never-made.key')]) {
    const configPath = join(dir, 'corridor.json');
    writeFileSync(configPath, JSON.stringify({ ...configOf(server), key_encryption_key_file: file,
      rails: { ...configOf(server).rails, data_dir: join(dir, 'rails') } }));
    const result = spawnSync(server.bin, ['serve', '--config', configPath, ...serveFlags()], { encoding: 'utf8', timeout: 20000 });
    assert.notEqual(result.status, 0, `serve started with ${file}`);
    assert.match(result.stderr, /does not open with the key-encryption key/);
    assert.ok(result.stderr.includes(file), result.stderr);
    assert.doesNotMatch(result.stdout, /listening on/);
  }
  const after = queryRows(server, 'SELECT platform_id, environment, private_key_pem FROM webhook_keys ORDER BY platform_id, environment');
  assert.deepEqual(after, before);
});

test('keys an older version stored in clear are sealed at start and still sign', async () => {
  const receiver = await startReceiver();
  const old = await startCorridor({ platforms: 1, config: { outbound: { allow_private_addresses: true } } });
  try {
    const platformId = old.platforms[0].platformId;
    await stopCorridor(old, { keepFiles: true });
    const { privateKey, publicKey } = generateKeyPairSync('ec', {
      namedCurve: 'P-256',
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const umaSecret = randomBytes(32).toString('hex');
    runStatement(old, `UPDATE webhook_keys SET private_key_pem = '${privateKey}', public_key_pem = '${publicKey}'
      WHERE platform_id = '${platformId}' AND environment = 'sandbox'`);
    runStatement(old, `INSERT INTO uma_keys (platform_id, environment, purpose, private_key, certificate, created_at_ms)
      VALUES ('${platformId}', 'production', 'signing', '${umaSecret}', '00', 0)`);

    await launch(old);
    assert.match(old.stderr, /sealed 2 private key/);
    const webhookRow = queryRows(old, `SELECT private_key_pem FROM webhook_keys WHERE platform_id = '${platformId}' AND environment = 'sandbox'`)[0];
    assert.match(webhookRow.private_key_pem, /^sealed1:/);
    assert.ok(!webhookRow.private_key_pem.includes('PRIVATE KEY'));
    const umaRow = queryRows(old, `SELECT private_key FROM uma_keys WHERE platform_id = '${platformId}'`)[0];
    assert.match(umaRow.private_key, /^sealed1:/);
    assert.ok(!umaRow.private_key.includes(umaSecret));

    // The sealed key is the same key: a test webhook verifies with the public half set above.
    const sandbox = old.platforms[0].sandbox;
    const patched = await call(old, sandbox, 'PATCH', '/config', { webhookEndpoint: receiver.url });
    assert.equal(patched.status, 200, patched.text);
    const sent = await call(old, sandbox, 'POST', '/webhooks/test');
    assert.equal(sent.status, 200, sent.text);
    const delivered = receiver.requests.find((entry) => entry.body?.type === 'TEST');
    assert.ok(delivered, 'no TEST webhook arrived');
    const verifier = createVerify('SHA256');
    verifier.update(delivered.raw);
    assert.ok(verifier.verify(publicKey, signatureOf(delivered).s, 'base64'));
    const shown = cli(old, ['webhook-key', 'show', '--platform', platformId, '--environment', 'sandbox']);
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal(shown.stdout.trim(), publicKey.trim());

    // A second start finds nothing left to seal.
    await stopCorridor(old, { keepFiles: true });
    await launch(old);
    assert.doesNotMatch(old.stderr, /sealed \d+ private key/);
  } finally {
    await stopCorridor(old);
    await stopReceiver(receiver);
  }
});
