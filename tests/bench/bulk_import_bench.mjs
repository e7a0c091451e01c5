// Bulk CSV import at two sizes in one session: a fresh server imports a file of 10,000 rows, another
// a file of 100,000 rows. For each: upload time, import rows/s (from the 202 to COMPLETED), and the
// server's peak resident memory (VmHWM). The upload is streamed to disk and the rows are read one
// record at a time, so peak memory must stay flat as the file grows: the ratio of the two peaks is
// printed next to the ratio of the file sizes. Customers are made on SQLite with durable commits.
// With CORRIDOR_BENCH_POSTGRES_URL set (a PostgreSQL server URL, e.g. the one tests/pg/postgres.sh
// starts), every size is also imported into a fresh database on that server, in the same run, so
// the two backends are compared on the same machine load. CPU per row is that of the corridor
// process (split by thread: bulk-import reads, validates and writes the rows; wal-checkpoint
// copies SQLite's WAL into the database file) and, on PostgreSQL, of the server processes serving
// its database, over the import: on a shared machine it is steadier than rows/s. On PostgreSQL it
// also prints the WAL written per row (pg_current_wal_lsn before and after: the benchmark's
// database is the server's only busy one) and what the database grew by per row.
// With --postgres (and no CORRIDOR_BENCH_POSTGRES_URL) the benchmark starts a durable PostgreSQL of
// its own (fsync, synchronous_commit and full_page_writes on, as scripts/bench-write-path.sh does)
// and stops it at the end. Each backend imports the largest file once, untimed, before the
// measured imports.
//   [CORRIDOR_BENCH_POSTGRES_URL=postgresql://...] node tests/bench/bulk_import_bench.mjs BUILD_DIR [small_rows] [large_rows] [--postgres]
import { execFileSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { once } from 'node:events';

import { umaDomainOf } from '../api/lib/harness.mjs';
import { api, cpuPerOperation, cpuTicks, startBenchServer, stopBenchServer, threadCpuMs } from './lib/bench.mjs';
import { durableSettings, psql, startDurablePostgres } from './lib/postgres.mjs';

const positional = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const unknown = process.argv.slice(2).filter((arg) => arg.startsWith('--') && arg !== '--postgres');
if (unknown.length) {
  console.error(`bulk_import_bench: unknown option ${unknown[0]} (usage: BUILD_DIR [small_rows] [large_rows] [--postgres])`);
  process.exit(2);
}
const buildDir = resolve(positional[0] || 'build');
const sizes = [Number(positional[1] || 10000), Number(positional[2] || 100000)];
const domain = umaDomainOf(0);  // the benchmark's one platform
const ownPostgres = !process.env.CORRIDOR_BENCH_POSTGRES_URL && process.argv.includes('--postgres')
  ? await startDurablePostgres() : null;
const postgresUrl = process.env.CORRIDOR_BENCH_POSTGRES_URL || ownPostgres?.url;
if (ownPostgres) console.log(`PostgreSQL started by the benchmark: ${JSON.stringify(durableSettings)}`);
const backends = postgresUrl ? ['sqlite', 'postgresql'] : ['sqlite'];
const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

const header = 'umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,addressLine2,city,state,postalCode,country,email,description';

async function writeCsv(path, rows) {
  const out = createWriteStream(path);
  out.write(`${header}\n`);
  for (let i = 0; i < rows; i++) {
    const line = `$user${i}@${domain},cust-${i},INDIVIDUAL,"Person ${i}, Jr.",1980-01-${String(1 + (i % 28)).padStart(2, '0')},"${i} Main Street",Apt ${i % 100},Springfield,IL,62701,US,user${i}@mail.example,imported in the benchmark\n`;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

function peakRssKiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(status.match(/VmHWM:\s+(\d+) kB/)[1]);
}

// CPU ticks of the PostgreSQL backends connected to `database` (their titles name it).
function postgresTicks(database) {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let title;
    try { title = readFileSync(`/proc/${entry}/cmdline`, 'utf8'); } catch { continue; }
    if (title.startsWith('postgres: ') && title.split(' ').includes(database)) total += cpuTicks(`/proc/${entry}/stat`);
  }
  return total;
}

// The server's WAL position (bytes written since it was made) and the size of `database`.
async function walAndSize(database) {
  const [wal, size] = (await psql(postgresUrl, `SELECT pg_current_wal_lsn() - '0/0', pg_database_size('${database}')`))
    .split('|').map(Number);
  return { wal, size };
}

function freshDatabase(backend) {
  if (backend === 'sqlite') return {};  // the server's own folder
  const name = `corridor_bench_${randomBytes(6).toString('hex')}`;
  execFileSync('psql', [postgresUrl, '-q', '-c', `CREATE DATABASE ${name}`]);
  return { url: postgresUrl.replace(/\/[^/]*$/, `/${name}`), name };
}

function dropDatabase(database) {
  if (!database.name) return;
  execFileSync('psql', [postgresUrl, '-q', '-c', `DROP DATABASE IF EXISTS ${database.name} WITH (FORCE)`]);
}

async function startServer(backend) {
  const database = freshDatabase(backend);
  const server = await startBenchServer(buildDir, {
    database: database.url, config: { bulk_import: { poll_interval_ms: 50 }, log: { access: false } },
  });
  server.database = database;
  return server;
}

// Streams the file as the multipart body: the client holds no more of it than the server does.
function upload(server, path) {
  const boundary = `----bench${Date.now()}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="customers.csv"\r\nContent-Type: text/csv\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const length = head.length + statSync(path).size + tail.length;
  return new Promise((ok, fail) => {
    const target = new URL(`${server.api}/customers/bulk/csv`);
    const req = request({
      host: target.hostname, port: target.port, path: target.pathname, method: 'POST',
      headers: { authorization: server.auth, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': length },
    }, (res) => {
      let text = '';
      res.on('data', (chunk) => { text += chunk; });
      res.on('end', () => (res.statusCode === 202 ? ok(JSON.parse(text)) : fail(new Error(`upload ${res.statusCode} ${text}`))));
    });
    req.on('error', fail);
    req.write(head);
    const file = createReadStream(path);
    file.on('end', () => req.end(tail));
    file.pipe(req, { end: false });
  });
}

const job = (server, id) => api(server, 'GET', `/customers/bulk/jobs/${encodeURIComponent(id)}`);

async function measure(backend, rows, path) {
  const bytes = statSync(path).size;
  const server = await startServer(backend);
  const dbTicks = () => (server.database.name ? postgresTicks(server.database.name) : 0);
  try {
    const idleKiB = peakRssKiB(server.process.pid);
    const started = performance.now();
    const accepted = await upload(server, path);
    const uploadedMs = performance.now() - started;
    const serverTicksBefore = cpuTicks(`/proc/${server.process.pid}/stat`);
    const threadsBefore = threadCpuMs(server.process.pid);
    const dbTicksBefore = dbTicks();
    const walBefore = server.database.name ? await walAndSize(server.database.name) : null;
    let status;
    let sampledKiB = 0;
    for (;;) {
      status = await job(server, accepted.jobId);
      sampledKiB = Math.max(sampledKiB, peakRssKiB(server.process.pid));
      if (status.status === 'COMPLETED' || status.status === 'FAILED') break;
      await new Promise((ok) => setTimeout(ok, 50));  // the end is seen within 50 ms
    }
    const importMs = performance.now() - started - uploadedMs;
    const serverCpuS = (cpuTicks(`/proc/${server.process.pid}/stat`) - serverTicksBefore) / ticksPerSecond;
    const threadsAfter = threadCpuMs(server.process.pid);
    const threads = cpuPerOperation(threadsBefore, threadsAfter, rows);
    // Threads that ended before the reading (bulk-read, one per job) count in the process only.
    const sum = (roles) => Object.values(roles).reduce((a, b) => a + b, 0);
    const endedUsPerRow = Math.max(0, serverCpuS * 1000 - (sum(threadsAfter) - sum(threadsBefore))) * 1000 / rows;
    const dbCpuS = (dbTicks() - dbTicksBefore) / ticksPerSecond;
    let wal = null;
    if (walBefore) {
      const after = await walAndSize(server.database.name);
      wal = { bytes: after.wal - walBefore.wal, size: after.size - walBefore.size };
    }
    if (status.status !== 'COMPLETED' || status.progress.successful !== rows) {
      throw new Error(`import of ${rows} rows ended ${JSON.stringify(status.progress)} ${status.status}`);
    }
    return { backend, rows, bytes, uploadedMs, importMs, serverCpuS, dbCpuS, wal, threads, endedUsPerRow, idleKiB, peakKiB: peakRssKiB(server.process.pid) };
  } finally {
    await stopBenchServer(server);
    dropDatabase(server.database);
  }
}

const csvDir = mkdtempSync(join(tmpdir(), 'corridor-bulk-csv-'));
try {
  const results = [];
  const paths = new Map();
  for (const rows of sizes) {
    const path = join(csvDir, `customers-${rows}.csv`);
    await writeCsv(path, rows);
    paths.set(rows, path);
  }
  // First, untimed, the largest file once on each backend: a new PostgreSQL cluster's first import
  // ran 10-20% slower than every later one (100,000 rows twice into fresh databases of one new
  // cluster: 14,305 then 17,366 rows/s; with wal_init_zero off 15,850 then 17,982: new WAL
  // segments made, among other first-time costs), which a database in service has long paid.
  const largest = Math.max(...sizes);
  for (const backend of backends) await measure(backend, largest, paths.get(largest));
  console.log(`warm-up: one untimed import of ${largest} rows on each backend first`);
  for (const rows of sizes) {
    for (const backend of backends) results.push(await measure(backend, rows, paths.get(rows)));
  }
  console.log('backend     rows      file MiB  upload s  import s   rows/s  server us/row  db us/row  idle RSS MiB  peak RSS MiB');
  for (const r of results) {
    const perRow = (seconds) => (seconds * 1e6 / r.rows).toFixed(0);
    console.log(`${r.backend.padEnd(11)} ${String(r.rows).padEnd(9)} ${(r.bytes / 1048576).toFixed(1).padStart(8)} ${(r.uploadedMs / 1000).toFixed(2).padStart(9)} ${(r.importMs / 1000).toFixed(1).padStart(9)} ${Math.round(r.rows / (r.importMs / 1000)).toString().padStart(8)} ${perRow(r.serverCpuS).padStart(14)} ${(r.backend === 'sqlite' ? '-' : perRow(r.dbCpuS)).padStart(10)} ${(r.idleKiB / 1024).toFixed(1).padStart(13)} ${(r.peakKiB / 1024).toFixed(1).padStart(13)}`);
  }
  for (const r of results) console.log(`${r.backend} ${r.rows} rows: server CPU per row by thread ${r.threads}, threads ended (bulk-read) ${r.endedUsPerRow.toFixed(0)} us`);
  for (const r of results.filter((x) => x.wal)) {
    console.log(`${r.backend} ${r.rows} rows: per row ${(r.wal.bytes / r.rows).toFixed(0)} B of WAL, database grown by ${(r.wal.size / r.rows).toFixed(0)} B`);
  }
  for (const backend of backends) {
    const [small, large] = results.filter((r) => r.backend === backend);
    console.log(`${backend}: file size ratio ${(large.bytes / small.bytes).toFixed(1)}x; peak RSS ratio ${(large.peakKiB / small.peakKiB).toFixed(2)}x; ` +
      `rows/s ratio ${((large.rows / large.importMs) / (small.rows / small.importMs)).toFixed(2)}x`);
  }
  if (postgresUrl) {
    for (const rows of sizes) {
      const [lite, pg] = ['sqlite', 'postgresql'].map((b) => results.find((r) => r.backend === b && r.rows === rows));
      console.log(`${rows} rows: postgresql/sqlite rows/s ratio ${((lite.importMs) / (pg.importMs)).toFixed(2)}x`);
    }
  }
} finally {
  rmSync(csvDir, { recursive: true, force: true });
  ownPostgres?.stop();
}
