// Starts a real corridor binary on 127.0.0.1 (port 0) with a fresh database: a SQLite file, or a new
// database on the PostgreSQL that the test run started (CORRIDOR_TEST_POSTGRES_URL_FILE).
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { assertContract, checkResponsesFrom } from './contract.mjs';

export const VERSION = '2025-10-13';

// The UMA domain of the i-th platform startCorridor creates.
export const umaDomainOf = (i) => `platform${i}.example.test`;

function required(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set; run the API tests through ctest`);
  return value;
}

function freshDatabase(dir) {
  const urlFile = process.env.CORRIDOR_TEST_POSTGRES_URL_FILE;
  if (!urlFile) return `sqlite:${join(dir, 'corridor.db')}`;
  const base = readFileSync(urlFile, 'utf8').trim();
  const name = `corridor_${randomBytes(6).toString('hex')}`;
  execFileSync('psql', [base, '-q', '-c', `CREATE DATABASE ${name}`]);
  return base.replace(/\/[^/]*$/, `/${name}`);
}

// HARNESS-ONLY SETTING: `serve` refuses to run as root unless given --allow-root. The test
// containers and CI run everything as root, so every serve the tests start passes it then; an
// operator never should (the systemd unit runs Corridor as its own user).
export function serveFlags() {
  return process.getuid && process.getuid() === 0 ? ['--allow-root'] : [];
}

export function runCli(server, args) {
  return execFileSync(server.bin, [...args, '--config', server.configPath], { encoding: 'utf8' });
}

// Options: platforms (how many to create, default 2), config (overrides merged into corridor.json),
// regulated (array of booleans per platform; when not given every platform is regulated, so its
// customers start KYC-approved and can move money at once), ca (PEM that `call` trusts when the
// server speaks TLS: give it with tls.* config), umaDomains (array: the i-th platform's UMA domain
// instead of umaDomainOf(i)). Benchmarks, which run outside ctest, also pass bin,
// confDir and database (a URL) instead of the environment's.
export async function startCorridor(options = {}) {
  const bin = options.bin || required('CORRIDOR_BIN');
  const confDir = options.confDir || required('CORRIDOR_CONF_DIR');
  const dir = mkdtempSync(join(tmpdir(), 'corridor-api-'));
  const database = options.database || freshDatabase(dir);
  const base = JSON.parse(readFileSync(join(confDir, 'corridor.json'), 'utf8'));
  // The shipped spark settings point into the repository's var/: each test server gets its own
  // node key and sandbox Lightning network instead (options.plugins.settings replaces them all).
  const baseSettings = { ...(base.plugins?.settings || {}) };
  if (baseSettings.spark) {
    baseSettings.spark = {
      ...baseSettings.spark,
      node_private_key_file: join(dir, 'spark-node.key'),
      sandbox_network_dir: join(dir, 'lightning-sandbox'),
    };
  }
  const config = {
    ...base,
    listen: '127.0.0.1:0',
    // Each test server's admin listener (/metrics, health) on a port of its own: launch() records
    // its address as server.adminUrl.
    admin_listen: '127.0.0.1:0',
    database,
    // What the process makes (keys, rail data) stays in the test's own folder.
    state_dir: dir,
    threads: 2,
    currencies_file: join(confDir, 'currencies.json'),
    rates_file: join(confDir, 'rates.json'),
    funding_file: join(confDir, 'funding.json'),
    uma_providers_file: join(confDir, 'uma-providers.json'),
    // The build writes rail plugins next to the binary (build/plugins) unless told otherwise.
    // options.plugins overrides keys of plugins (rails, settings) and keeps that folder.
    plugins: {
      ...base.plugins,
      settings: baseSettings,
      dir: process.env.CORRIDOR_PLUGIN_DIR || join(dirname(bin), 'plugins'),
      ...(options.plugins || {}),
    },
    bulk_import: { ...base.bulk_import, dir: join(dir, 'bulk-imports') },
    // Each process keeps its rails' state (its node) in a folder of its own.
    rails: { ...base.rails, data_dir: join(dir, 'rails') },
    ...(options.config || {}),
  };
  const configPath = join(dir, 'corridor.json');
  writeFileSync(configPath, JSON.stringify(config, null, 2));
  const server = { bin, dir, configPath, database, platforms: [], ca: options.ca };

  const count = options.platforms ?? 2;
  for (let i = 0; i < count; i++) {
    const domain = options.umaDomains?.[i] ?? umaDomainOf(i);
    const args = ['platform', 'create', '--name', `Platform ${i}`, '--uma-domain', domain, '--json'];
    if (options.regulated ? options.regulated[i] : true) args.push('--regulated');
    server.platforms.push(JSON.parse(runCli(server, args)));
  }
  await launch(server);
  return server;
}

// A free loopback port: a server whose public_base_url must name its port before it starts, or a
// port nothing listens on.
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

// startCorridor on a port chosen first, so that public_base_url (the hosted pages, the UMA
// callbacks and .well-known endpoints) names the server's own loopback address; server.address is
// that `127.0.0.1:port`. options.config is merged over listen and public_base_url. With
// ownUmaDomain the first platform is created as the quick start does, with that address as its
// UMA domain (both environments share it).
export async function startOnOwnPort(options = {}) {
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  const server = await startCorridor({
    ...(options.ownUmaDomain ? { umaDomains: [address] } : {}),
    ...options,
    config: { listen: address, public_base_url: `http://${address}`, ...(options.config || {}) },
  });
  server.port = port;
  server.address = address;
  return server;
}

// A second serve process beside `server`: the same database and settings, its own rails data
// folder (a rails node is one process). Start it with launch().
let processesMade = 0;
export function anotherProcess(server) {
  const config = JSON.parse(readFileSync(server.configPath, 'utf8'));
  processesMade += 1;
  config.rails = { ...config.rails, data_dir: join(server.dir, `rails-${processesMade}`) };
  const configPath = join(server.dir, `corridor-${processesMade}.json`);
  writeFileSync(configPath, JSON.stringify(config, null, 2));
  return { ...server, configPath, process: undefined };
}

// Starts (or restarts) the serve process of an existing server object.
// The log (JSON lines on stderr, access lines included) is kept up to this many characters, the
// most recent: enough for a failing test's message without growing through a long run.
const stderrKeptChars = 4 * 1024 * 1024;

export async function launch(server) {
  const config = JSON.parse(readFileSync(server.configPath, 'utf8'));
  const adminExpected = config.admin_listen !== '';
  const child = spawn(server.bin, ['serve', '--config', server.configPath, ...serveFlags()],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  server.process = child;
  // Chunks, the oldest dropped past the limit: no copy of the whole log per chunk in long runs.
  const kept = [];
  let keptChars = 0;
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    kept.push(chunk);
    keptChars += chunk.length;
    while (keptChars > stderrKeptChars && kept.length > 1) keptChars -= kept.shift().length;
  });
  Object.defineProperty(server, 'stderr', { get: () => kept.join(''), configurable: true, enumerable: true });
  server.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const [url, adminUrl] = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${server.stderr}`)), 20000);
    // stdout carries the two start lines only; anything after them is drained.
    const onData = (chunk) => {
      out += chunk;
      const match = out.match(/corridor listening on (https?:\/\/\S+)/);
      const admin = out.match(/corridor admin listening on (http:\/\/\S+)/);
      if (!match || (adminExpected && !admin)) return;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.stdout.resume();
      resolve([match[1], admin ? admin[1] : undefined]);
    };
    child.stdout.on('data', onData);
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`server exited with ${code}: ${server.stderr}`)); });
  });
  server.baseUrl = url;
  // Every response from this listener is checked against api/openapi.json (lib/contract.mjs).
  checkResponsesFrom(url);
  server.adminUrl = adminUrl;
  server.api = `${url}/${VERSION}`;
  return server;
}

// GET /metrics from the server's admin listener: the Prometheus text.
export async function metricsText(server) {
  if (!server.adminUrl) throw new Error('this server has no admin listener');
  const response = await fetch(`${server.adminUrl}/metrics`);
  if (response.status !== 200) throw new Error(`GET /metrics -> ${response.status}`);
  return response.text();
}

export async function stopCorridor(server, { keepFiles = false } = {}) {
  if (server.process && server.process.exitCode === null && server.process.signalCode === null) {
    server.process.kill('SIGTERM');
  }
  const result = await server.exited;
  if (!keepFiles) rmSync(server.dir, { recursive: true, force: true });
  return result;
}

export function basic(credentials) {
  return 'Basic ' + Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64');
}

// call(server, credentials, 'POST', '/customers', body, headers) -> { status, headers, body, text }
// Paths starting with '/' are under the version segment; pass `raw: true` in headers to use as-is.
export async function call(server, credentials, method, path, body, headers = {}) {
  const { raw, ...rest } = headers;
  const url = raw ? `${server.baseUrl}${path}` : `${server.api}${path}`;
  const init = { method, headers: { ...rest } };
  if (credentials) init.headers.authorization = basic(credentials);
  if (body !== undefined) {
    init.body = typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body);
    if (!('content-type' in init.headers)) init.headers['content-type'] = 'application/json';
  }
  const response = server.ca ? await fetchTrusting(server.ca, url, init) : await fetch(url, init);
  const text = await response.text();
  // fetch() checks the contract itself; the TLS path does not go through it.
  if (server.ca) assertContract(method, url, { status: response.status, headers: response.headers, text });
  let parsed;
  try { parsed = text ? JSON.parse(text) : undefined; } catch { parsed = undefined; }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

// fetch() trusts only the system's CAs; a TLS server of the tests has its own certificate.
function fetchTrusting(ca, url, init) {
  return new Promise((resolve, reject) => {
    const request = httpsRequest(url, { method: init.method, headers: init.headers, ca }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          for (const one of [value].flat()) headers.append(name, one);
        }
        const body = Buffer.concat(chunks).toString('utf8');
        resolve({ status: response.statusCode, headers, text: async () => body });
      });
    });
    request.on('error', reject);
    request.end(init.body);
  });
}

// Walks every page of a list endpoint, returning all items and the pages' totalCount values.
export async function walkPages(server, credentials, path, limit) {
  const items = [];
  const totals = [];
  let cursor;
  for (let pages = 0; pages < 10000; pages++) {
    const separator = path.includes('?') ? '&' : '?';
    const url = `${path}${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const response = await call(server, credentials, 'GET', url);
    if (response.status !== 200) throw new Error(`GET ${url} -> ${response.status} ${response.text}`);
    items.push(...response.body.data);
    totals.push(response.body.totalCount);
    if (!response.body.hasMore) {
      if ('nextCursor' in response.body) throw new Error('nextCursor present on the last page');
      return { items, totals };
    }
    cursor = response.body.nextCursor;
    if (!cursor) throw new Error('hasMore without nextCursor');
  }
  throw new Error('too many pages');
}
