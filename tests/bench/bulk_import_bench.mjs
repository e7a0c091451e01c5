// Bulk CSV import at two sizes in one session: a fresh server imports a file of 10,000 rows, another
// a file of 100,000 rows. For each: upload time, import rows/s (from the 202 to COMPLETED), and the
// server's peak resident memory (VmHWM). The upload is streamed to disk and the rows are read one
// record at a time, so peak memory must stay flat as the file grows: the ratio of the two peaks is
// printed next to the ratio of the file sizes. Customers are made on SQLite with durable commits.
// With CORRIDOR_BENCH_POSTGRES_URL set (a PostgreSQL server URL, e.g. the one tests/pg/postgres.sh
// starts), every size is also imported into a fresh database on that server, in the same run, so
// the two backends are compared on the same machine load. CPU seconds are those of the corridor
// process and, on PostgreSQL, of the server processes serving its database, over the import.
//   [CORRIDOR_BENCH_POSTGRES_URL=postgresql://...] node tests/bench/bulk_import_bench.mjs BUILD_DIR [small_rows] [large_rows]
import { spawn, execFileSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, readdirSync, writeFileSync, rmSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';

const here = dirname(fileURLToPath(import.meta.url));
const confDir = resolve(here, '../../conf');
const buildDir = resolve(process.argv[2] || 'build');
const sizes = [Number(process.argv[3] || 10000), Number(process.argv[4] || 100000)];
const bin = join(buildDir, 'corridor');
const domain = 'bench.example';
const postgresUrl = process.env.CORRIDOR_BENCH_POSTGRES_URL;
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

// User plus system CPU ticks of a process (fields 14 and 15 of /proc/PID/stat, after the name).
function cpuTicks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;  // the process ended meanwhile
  }
}

// CPU ticks of the PostgreSQL backends connected to `database` (their titles name it).
function postgresTicks(database) {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let title;
    try { title = readFileSync(`/proc/${entry}/cmdline`, 'utf8'); } catch { continue; }
    if (title.startsWith('postgres: ') && title.split(' ').includes(database)) total += cpuTicks(entry);
  }
  return total;
}

function freshDatabase(dir, backend) {
  if (backend === 'sqlite') return { url: `sqlite:${join(dir, 'bench.db')}` };
  const name = `corridor_bench_${randomBytes(6).toString('hex')}`;
  execFileSync('psql', [postgresUrl, '-q', '-c', `CREATE DATABASE ${name}`]);
  return { url: postgresUrl.replace(/\/[^/]*$/, `/${name}`), name };
}

function dropDatabase(database) {
  if (!database.name) return;
  execFileSync('psql', [postgresUrl, '-q', '-c', `DROP DATABASE IF EXISTS ${database.name} WITH (FORCE)`]);
}

async function startServer(backend) {
  const dir = mkdtempSync(join(tmpdir(), 'corridor-bulk-bench-'));
  const database = freshDatabase(dir, backend);
  const base = JSON.parse(readFileSync(join(confDir, 'corridor.json'), 'utf8'));
  const config = {
    ...base, listen: '127.0.0.1:0', database: database.url, threads: 0,
    currencies_file: join(confDir, 'currencies.json'), rates_file: join(confDir, 'rates.json'),
    funding_file: join(confDir, 'funding.json'),
    uma_providers_file: join(confDir, 'uma-providers.json'),
    plugins: { ...base.plugins, dir: join(buildDir, 'plugins') },
    bulk_import: { ...base.bulk_import, dir: join(dir, 'bulk-imports'), poll_interval_ms: 50 },
    log: { ...base.log, access: false },
  };
  const configPath = join(dir, 'corridor.json');
  writeFileSync(configPath, JSON.stringify(config));
  const platform = JSON.parse(execFileSync(bin, ['platform', 'create', '--name', 'Bench', '--uma-domain', domain,
    '--regulated', '--json', '--config', configPath], { encoding: 'utf8' }));
  const child = spawn(bin, ['serve', '--config', configPath], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((ok, fail) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = out.match(/listening on (http:\/\/\S+)/);
      if (match) ok(match[1]);
    });
    child.on('exit', (code) => fail(new Error(`server exited ${code}`)));
  });
  const { clientId, clientSecret } = platform.sandbox;
  return { dir, database, child, url, auth: 'Basic ' + Buffer.from(`${clientId}:${clientSecret}`).toString('base64') };
}

// Streams the file as the multipart body: the client holds no more of it than the server does.
function upload(server, path) {
  const boundary = `----bench${Date.now()}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="customers.csv"\r\nContent-Type: text/csv\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const length = head.length + statSync(path).size + tail.length;
  return new Promise((ok, fail) => {
    const target = new URL(`${server.url}/2025-10-13/customers/bulk/csv`);
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

async function job(server, id) {
  const response = await fetch(`${server.url}/2025-10-13/customers/bulk/jobs/${encodeURIComponent(id)}`, { headers: { authorization: server.auth } });
  return response.json();
}

async function measure(backend, rows, path) {
  const bytes = statSync(path).size;
  const server = await startServer(backend);
  const dbTicks = () => (server.database.name ? postgresTicks(server.database.name) : 0);
  try {
    const idleKiB = peakRssKiB(server.child.pid);
    const started = performance.now();
    const accepted = await upload(server, path);
    const uploadedMs = performance.now() - started;
    const serverTicksBefore = cpuTicks(server.child.pid);
    const dbTicksBefore = dbTicks();
    let status;
    let sampledKiB = 0;
    for (;;) {
      status = await job(server, accepted.jobId);
      sampledKiB = Math.max(sampledKiB, peakRssKiB(server.child.pid));
      if (status.status === 'COMPLETED' || status.status === 'FAILED') break;
      await new Promise((ok) => setTimeout(ok, 200));
    }
    const importMs = performance.now() - started - uploadedMs;
    const serverCpuS = (cpuTicks(server.child.pid) - serverTicksBefore) / ticksPerSecond;
    const dbCpuS = (dbTicks() - dbTicksBefore) / ticksPerSecond;
    if (status.status !== 'COMPLETED' || status.progress.successful !== rows) {
      throw new Error(`import of ${rows} rows ended ${JSON.stringify(status.progress)} ${status.status}`);
    }
    return { backend, rows, bytes, uploadedMs, importMs, serverCpuS, dbCpuS, idleKiB, peakKiB: peakRssKiB(server.child.pid) };
  } finally {
    server.child.kill('SIGTERM');
    await once(server.child, 'exit');
    rmSync(server.dir, { recursive: true, force: true });
    dropDatabase(server.database);
  }
}

const csvDir = mkdtempSync(join(tmpdir(), 'corridor-bulk-csv-'));
try {
  const results = [];
  for (const rows of sizes) {
    const path = join(csvDir, `customers-${rows}.csv`);
    await writeCsv(path, rows);
    for (const backend of backends) results.push(await measure(backend, rows, path));
  }
  console.log('backend     rows      file MiB  upload s  import s   rows/s  server CPU s  db CPU s  idle RSS MiB  peak RSS MiB');
  for (const r of results) {
    console.log(`${r.backend.padEnd(11)} ${String(r.rows).padEnd(9)} ${(r.bytes / 1048576).toFixed(1).padStart(8)} ${(r.uploadedMs / 1000).toFixed(2).padStart(9)} ${(r.importMs / 1000).toFixed(1).padStart(9)} ${Math.round(r.rows / (r.importMs / 1000)).toString().padStart(8)} ${r.serverCpuS.toFixed(1).padStart(13)} ${(r.backend === 'sqlite' ? '-' : r.dbCpuS.toFixed(1)).padStart(9)} ${(r.idleKiB / 1024).toFixed(1).padStart(13)} ${(r.peakKiB / 1024).toFixed(1).padStart(13)}`);
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
}
