// The process as an operator runs it: one JSON log format (access lines included), log.file and
// SIGHUP, the admin listener and its metrics, file modes, the refusal to run as root, and the
// messages of a broken configuration or an unopenable database.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCorridor, stopCorridor, launch, call, metricsText, serveFlags } from './lib/harness.mjs';
import { packedIdLiteral, runStatement } from './lib/database.mjs';

const RFC3339_MS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let server;
before(async () => {
  // log.file is relative to the configuration file: the server's own folder.
  server = await startCorridor({ platforms: 1, config: { log: { access: true, level: 'info', file: 'corridor.log' } } });
});
after(async () => { if (server) await stopCorridor(server); });

const logPath = () => join(server.dir, 'corridor.log');
const mode = (path) => statSync(path).mode & 0o777;

function jsonLines(text) {
  return text.split('\n').filter((line) => line.length > 0).map((line) => {
    try {
      return JSON.parse(line);
    } catch {
      throw new Error(`not a JSON line: ${line}`);
    }
  });
}

// Waits until the file at `path` holds a line for which `match` is true; returns the parsed lines.
async function waitForLine(path, match, what) {
  for (let i = 0; i < 100; i++) {
    if (existsSync(path)) {
      const lines = jsonLines(readFileSync(path, 'utf8'));
      if (lines.some(match)) return lines;
    }
    await sleep(50);
  }
  throw new Error(`no ${what} in ${path}: ${existsSync(path) ? readFileSync(path, 'utf8') : '(missing)'}`);
}

test('every log line is one JSON object with a UTC millisecond time, level and message; access lines keep their fields', async () => {
  const id = `log-format-${Date.now()}`;
  const response = await call(server, null, 'GET', '/healthz', undefined, { raw: true, 'x-request-id': id });
  assert.equal(response.status, 200);
  const lines = await waitForLine(logPath(), (line) => line.requestId === id, 'access line');
  for (const line of lines) {
    assert.match(line.time, RFC3339_MS_UTC, JSON.stringify(line));
    assert.ok(['trace', 'debug', 'info', 'warn', 'error', 'critical'].includes(line.level), JSON.stringify(line));
    assert.equal(typeof line.message, 'string', JSON.stringify(line));
  }
  // The time is now, in UTC (not local time with the zone left out).
  const access = lines.find((line) => line.requestId === id);
  assert.ok(Math.abs(Date.parse(access.time) - Date.now()) < 60000, access.time);
  assert.equal(access.message, 'request');
  assert.equal(access.level, 'info');
  assert.equal(access.method, 'GET');
  assert.equal(access.path, '/healthz');
  assert.equal(access.status, 200);
  assert.equal(typeof access.durationUs, 'number');

  // The start-up line names the version, configuration, database (no password), rails, listeners.
  const started = lines.find((line) => line.message === 'corridor started');
  assert.ok(started, 'start-up line');
  assert.match(started.version, /^\d+\.\d+\.\d+/);
  assert.equal(typeof started.revision, 'string');
  assert.equal(started.config, server.configPath);
  const expectedDatabase = server.database.replace(/^(postgres(?:ql)?:\/\/[^:/@]+:)[^@]*@/, '$1***@');
  assert.equal(started.database, expectedDatabase);
  const loaded = JSON.parse(readFileSync(server.configPath, 'utf8')).plugins.rails;
  assert.deepEqual(started.rails.map((rail) => rail.name).sort(), [...loaded].sort());
  assert.deepEqual(started.listeners, { public: server.baseUrl, admin: server.adminUrl });
  // Nothing but the start lines on stdout, nothing at all on stderr when log.file is set.
  assert.equal(server.stderr, '');
});

test('the log file is 0600; SIGHUP reopens it (logrotate) and the process goes on serving', async () => {
  assert.equal(mode(logPath()), 0o600);
  const rotated = `${logPath()}.1`;
  renameSync(logPath(), rotated);
  server.process.kill('SIGHUP');
  const reopened = await waitForLine(logPath(), (line) => line.message === 'SIGHUP received: log file reopened', 'reopen line');
  assert.equal(reopened.find((line) => line.message.startsWith('SIGHUP')).logFile, logPath());
  assert.equal(mode(logPath()), 0o600);

  const id = `after-hup-${Date.now()}`;
  const response = await call(server, null, 'GET', '/healthz', undefined, { raw: true, 'x-request-id': id });
  assert.equal(response.status, 200);
  await waitForLine(logPath(), (line) => line.requestId === id, 'access line after SIGHUP');
  assert.ok(!readFileSync(rotated, 'utf8').includes(id), 'new lines go to the new file');
  assert.equal(server.process.exitCode, null);
  assert.equal(server.process.signalCode, null);

  // Twice more, as logrotate would over days: still alive.
  server.process.kill('SIGHUP');
  server.process.kill('SIGHUP');
  await sleep(200);
  assert.equal((await call(server, null, 'GET', '/healthz', undefined, { raw: true })).status, 200);
});

test('the admin listener serves metrics and health; the public listener answers 404 on /metrics', async () => {
  assert.ok(server.adminUrl, 'admin listener address');
  assert.notEqual(server.adminUrl, server.baseUrl);
  assert.equal((await call(server, null, 'GET', '/metrics', undefined, { raw: true })).status, 404);
  const live = await fetch(`${server.adminUrl}/healthz`);
  assert.equal(live.status, 200);
  assert.equal((await live.json()).status, 'ok');
  const ready = await fetch(`${server.adminUrl}/readyz`);
  assert.equal(ready.status, 200);
  assert.equal((await ready.json()).status, 'ready');
  // The admin listener serves nothing of the API.
  assert.equal((await fetch(`${server.adminUrl}/2025-10-13/config`)).status, 404);

  const text = await metricsText(server);
  assert.match(text, /corridor_build_info\{version="\d+\.\d+\.\d+[^"]*",revision="[^"]+"\} 1\n/);
  assert.ok(Number(text.match(/^process_resident_memory_bytes (\d+)$/m)?.[1]) > 1e6, 'resident memory');
  assert.ok(Number(text.match(/^process_open_fds (\d+)$/m)?.[1]) > 3, 'open fds');
  assert.ok(Number(text.match(/^process_cpu_seconds_total ([\d.]+)$/m)?.[1]) > 0, 'cpu seconds');
  assert.match(text, /^corridor_db_pool_sessions_in_use \d+$/m);
  assert.match(text, /^corridor_db_pool_sessions 4$/m);
  assert.match(text, /^corridor_ledger_queue_depth \d+$/m);
  assert.match(text, /# TYPE corridor_rail_operations_open gauge/);
  assert.match(text, /# TYPE corridor_rail_operations_overdue gauge/);
});

test('the database backlogs show in the metrics: rail operations, webhook events, bulk-import jobs, UMA callbacks', async () => {
  const platformId = server.platforms[0].platformId;
  const now = Date.now();
  const later = now + 86400000;  // never due during the test: nothing works on these rows
  runStatement(server, `INSERT INTO outbox_events (id, tenant_key, type, payload, state, attempts, next_attempt_at_ms, created_at_ms)
    VALUES (${packedIdLiteral(server, 'Webhook:00000000-0000-7000-8000-00000000e7e7')}, (SELECT tenant_key FROM platform_configs WHERE platform_id = '${platformId}' AND environment = 'sandbox'),
    'TEST', '{}', 'PENDING', 0, ${later}, ${now - 120000})`);
  runStatement(server, `INSERT INTO bulk_import_jobs (id, platform_id, environment, status, file_path, total_rows, processed_rows, successful_rows, failed_rows, resume_offset, resume_row, lease_until_ms, created_at_ms, updated_at_ms)
    VALUES ('BulkImport:metrics-test', '${platformId}', 'sandbox', 'FAILED', '', 0, 0, 0, 0, 0, 0, 0, ${now}, ${now})`);
  runStatement(server, `INSERT INTO uma_post_transactions (transaction_id, platform_id, environment, quote_id, url, vasp_domain, amount_msats, state, attempts, next_attempt_at_ms, last_error, created_at_ms, updated_at_ms)
    VALUES ('Transaction:metrics-test', '${platformId}', 'sandbox', 'Quote:x', 'https://vasp.example/cb', 'vasp.example', 1000, 'PENDING', 0, ${later}, '', ${now - 30000}, ${now})`);
  // An operation of a rail this process has not loaded, held by another node, due in a day: no
  // part of this process touches it, so it stays open.
  runStatement(server, `INSERT INTO rail_operations (id, platform_id, environment, rail, direction, status, transaction_id, internal_account_id, external_account_id, account_type, account_json, currency, amount, description, rail_reference, rail_reason_code, failure_class, failure_reason, message, attempts, lease_until_ms, deadline_at_ms, created_at_ms, updated_at_ms, rail_node)
    VALUES ('RailOperation:metrics-test', '${platformId}', 'sandbox', 'metrics_test_rail', 'OUTGOING', 'PENDING', 'Transaction:y', 'InternalAccount:y', 'ExternalAccount:y', 'US_ACCOUNT', '{}', 'USD', 100, '', 'ref', '', '', '', '', 1, ${later}, ${later}, ${now}, ${now}, 'another-node')`);
  let text = '';
  for (let i = 0; i < 60; i++) {
    text = await metricsText(server);
    if (/^corridor_uma_post_transaction_backlog [1-9]/m.test(text) && /^corridor_webhook_backlog_events [1-9]/m.test(text)) break;
    await sleep(200);
  }
  assert.ok(Number(text.match(/^corridor_webhook_backlog_events (\d+)$/m)?.[1]) >= 1, text);
  assert.ok(Number(text.match(/^corridor_webhook_backlog_oldest_age_seconds ([\d.]+)$/m)?.[1]) >= 119, text);
  assert.equal(Number(text.match(/^corridor_bulk_import_jobs\{state="FAILED"\} (\d+)$/m)?.[1]), 1, text);
  assert.match(text, /^corridor_bulk_import_jobs\{state="PENDING"\} 0$/m);
  assert.equal(Number(text.match(/^corridor_uma_post_transaction_backlog (\d+)$/m)?.[1]), 1, text);
  assert.match(text, /^corridor_rail_operations_open\{rail="metrics_test_rail"\} 1$/m);
  assert.match(text, /^corridor_rail_operations_overdue\{rail="metrics_test_rail"\} 0$/m);
  assert.ok(Number(text.match(/^corridor_uma_post_transaction_oldest_age_seconds ([\d.]+)$/m)?.[1]) >= 29, text);
});

test('the database, its WAL, the rail and bulk-import folders are 0600/0700, even when an earlier run left them wider', async () => {
  const config = JSON.parse(readFileSync(server.configPath, 'utf8'));
  const railsDir = config.rails.data_dir;
  const bulkDir = config.bulk_import.dir;
  const sqlite = server.database.startsWith('sqlite:') ? server.database.slice('sqlite:'.length) : null;
  const check = () => {
    assert.equal(mode(railsDir), 0o700, railsDir);
    assert.equal(mode(join(railsDir, 'ach')), 0o700, 'the ach rail folder');
    assert.equal(mode(join(railsDir, 'node-id')), 0o600, 'node-id');
    assert.equal(mode(bulkDir), 0o700, bulkDir);
    if (sqlite) {
      assert.equal(mode(sqlite), 0o600, sqlite);
      assert.equal(mode(`${sqlite}-wal`), 0o600, 'WAL');
    }
  };
  check();
  await stopCorridor(server, { keepFiles: true });
  chmodSync(railsDir, 0o755);
  chmodSync(join(railsDir, 'ach'), 0o777);
  chmodSync(join(railsDir, 'node-id'), 0o644);
  chmodSync(bulkDir, 0o755);
  if (sqlite) chmodSync(sqlite, 0o644);
  await launch(server);
  check();
});

test('serve refuses to run as root unless --allow-root is given', async () => {
  const isRoot = process.getuid() === 0;
  // The harness started this server with --allow-root when root, and without it otherwise.
  assert.deepEqual(serveFlags(), isRoot ? ['--allow-root'] : []);
  if (isRoot) {
    const refused = spawnSync(server.bin, ['serve', '--config', server.configPath], { encoding: 'utf8', timeout: 20000 });
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, /refusing to serve as root/);
    assert.match(refused.stderr, /--allow-root/);
    assert.equal(refused.stdout, '', 'it did not start listening');
    return;
  }
  // Not root: the flag is accepted and changes nothing.
  await stopCorridor(server, { keepFiles: true });
  const child = spawn(server.bin, ['serve', '--config', server.configPath, '--allow-root'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const started = await new Promise((resolve) => {
    let out = '';
    child.stdout.on('data', (chunk) => { out += chunk; if (/admin listening on/.test(out)) resolve(true); });
    child.on('exit', () => resolve(false));
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  assert.ok(started);
  await launch(server);
});

test('an invalid JSON configuration is refused with its line and column', () => {
  const dir = mkdtempSync(join(tmpdir(), 'corridor-config-'));
  try {
    const path = join(dir, 'broken.json');
    writeFileSync(path, '{\n  "listen": "127.0.0.1:0",\n  "database" "sqlite:x.db"\n}\n');
    const result = spawnSync(server.bin, ['migrate', '--config', path], { encoding: 'utf8' });
    assert.notEqual(result.status, 0);
    assert.match(result.stderr, /broken\.json is not valid JSON: line 3, column 14/);
    writeFileSync(path, '{"listen": "127.0.0.1:0",');
    const truncated = spawnSync(server.bin, ['migrate', '--config', path], { encoding: 'utf8' });
    assert.notEqual(truncated.status, 0);
    assert.match(truncated.stderr, /is not valid JSON: line 1, column 26/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a database that cannot be opened is named, with the reason, and no password', () => {
  const dir = mkdtempSync(join(tmpdir(), 'corridor-db-'));
  try {
    const missing = join(dir, 'no-such-folder', 'corridor.db');
    const result = spawnSync(server.bin, ['migrate', '--config', server.configPath, '--database', `sqlite:${missing}`], { encoding: 'utf8' });
    assert.notEqual(result.status, 0);
    assert.ok(result.stderr.includes(`cannot open SQLite database ${missing}`), result.stderr);
    assert.match(result.stderr, /no-such-folder does not exist/);

    const folder = join(dir, 'a-folder');
    mkdirSync(folder);
    const notFile = spawnSync(server.bin, ['migrate', '--config', server.configPath, '--database', `sqlite:${folder}`], { encoding: 'utf8' });
    assert.notEqual(notFile.status, 0);
    assert.match(notFile.stderr, /a-folder: it is a folder, not a file/);

    // Nothing listens on port 1: the PostgreSQL driver's reason, the URL without its password.
    const postgres = spawnSync(server.bin, ['migrate', '--config', server.configPath, '--database',
      'postgresql://corridor:hunter2secret@127.0.0.1:1/corridor'], { encoding: 'utf8', timeout: 20000 });
    assert.notEqual(postgres.status, 0);
    assert.ok(postgres.stderr.includes('cannot connect to PostgreSQL database postgresql://corridor:***@127.0.0.1:1/corridor'), postgres.stderr);
    assert.match(postgres.stderr, /refused/i);
    assert.ok(!postgres.stderr.includes('hunter2secret'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
