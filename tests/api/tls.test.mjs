// TLS on the listener: a throwaway self-signed certificate made with the openssl command, a server
// that speaks only TLS with it, and the refusals around it (plain HTTP, old protocol versions,
// foreign ALPN, a silent client, a bad certificate file), then a drain that says close_notify.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { createServer, connect as tcpConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCorridor, stopCorridor, launch, call } from './lib/harness.mjs';
import { multipartBody } from './lib/multipart.mjs';

let pki;
let server;     // tls.min_version 1.2 (the default)
let strict;     // tls.min_version 1.3

function makeCertificate(dir) {
  const certificate = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1',
    '-nodes', '-keyout', key, '-out', certificate, '-days', '2', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'pipe' });
  return { dir, certificate, key, pem: readFileSync(certificate, 'utf8') };
}

function tlsConfig(extra = {}) {
  return { tls: { certificate_file: pki.certificate, private_key_file: pki.key, ...extra } };
}

function portOf(target) { return Number(new URL(target.baseUrl).port); }

// Opens a TLS connection with Node's client; resolves with the socket once the handshake is done.
function handshake(port, options = {}) {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, ca: pki.pem, ...options }, () => resolve(socket));
    socket.on('error', reject);
  });
}

// The error a handshake ends with (it must not succeed).
async function handshakeError(port, options) {
  try {
    const socket = await handshake(port, options);
    socket.destroy();
  } catch (error) {
    return error;
  }
  assert.fail(`the handshake with ${JSON.stringify({ ...options, ca: undefined })} succeeded`);
}

// Everything the server sends on a raw TCP connection after we send `bytes`, until it closes.
function rawExchange(port, bytes, timeoutMs = 10000) {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect({ host: '127.0.0.1', port }, () => { if (bytes) socket.write(bytes); });
    const chunks = [];
    const timer = setTimeout(() => { socket.destroy(); reject(new Error('the server kept the connection open')); }, timeoutMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => {});  // a reset counts as closed
    socket.on('close', () => { clearTimeout(timer); resolve(Buffer.concat(chunks)); });
  });
}

before(async () => {
  pki = makeCertificate(mkdtempSync(join(tmpdir(), 'corridor-tls-')));
  server = await startCorridor({ platforms: 1, ca: pki.pem, config: tlsConfig({ handshake_timeout_ms: 300 }) });
  strict = await startCorridor({ platforms: 0, ca: pki.pem, config: tlsConfig({ min_version: '1.3' }) });
});

after(async () => {
  if (server) await stopCorridor(server);
  if (strict) await stopCorridor(strict);
  if (pki) rmSync(pki.dir, { recursive: true, force: true });
});

test('serve prints an https:// address and answers over TLS', async () => {
  assert.match(server.baseUrl, /^https:\/\/127\.0\.0\.1:\d+$/);
  const live = await call(server, null, 'GET', '/healthz', undefined, { raw: true });
  assert.equal(live.status, 200);
  assert.equal(live.body.status, 'ok');
  const config = await call(server, server.platforms[0].sandbox, 'GET', '/config');
  assert.equal(config.status, 200, config.text);
  assert.ok(Array.isArray(config.body.supportedCurrencies), config.text);
  const anonymous = await call(server, null, 'GET', '/config');
  assert.equal(anonymous.status, 401);
});

test('the server presents the configured certificate, without needing SNI', async () => {
  // Node sends no server name for an IP address, so this handshake has no SNI.
  const socket = await handshake(portOf(server));
  try {
    assert.equal(socket.servername, false);
    assert.equal(socket.getPeerCertificate().fingerprint256, new X509Certificate(pki.pem).fingerprint256);
    assert.equal(socket.getProtocol(), 'TLSv1.3');
  } finally {
    socket.destroy();
  }
});

test('ALPN settles on http/1.1; a client offering only h2 is refused', async () => {
  const socket = await handshake(portOf(server), { ALPNProtocols: ['h2', 'http/1.1'] });
  assert.equal(socket.alpnProtocol, 'http/1.1');
  socket.destroy();
  const error = await handshakeError(portOf(server), { ALPNProtocols: ['h2'] });
  assert.equal(error.code, 'ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL', error.message);
});

test('TLS 1.2 is served at the default minimum; TLS 1.1 is refused by the server', async () => {
  const socket = await handshake(portOf(server), { maxVersion: 'TLSv1.2' });
  assert.equal(socket.getProtocol(), 'TLSv1.2');
  assert.match(socket.getCipher().name, /^ECDHE-(ECDSA|RSA)-(AES\d+-GCM|CHACHA20-POLY1305)/);
  socket.destroy();
  // SECLEVEL=0 lets this client offer TLS 1.1 at all, so the refusal is the server's protocol_version alert.
  const error = await handshakeError(portOf(server),
    { minVersion: 'TLSv1.1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' });
  assert.equal(error.code, 'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION', error.message);
});

test('tls.min_version 1.3 refuses TLS 1.2 and serves TLS 1.3', async () => {
  const error = await handshakeError(portOf(strict), { maxVersion: 'TLSv1.2' });
  assert.equal(error.code, 'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION', error.message);
  const socket = await handshake(portOf(strict));
  assert.equal(socket.getProtocol(), 'TLSv1.3');
  socket.destroy();
  const live = await call(strict, null, 'GET', '/healthz', undefined, { raw: true });
  assert.equal(live.status, 200);
});

test('plain HTTP to the TLS port gets no HTTP answer', async () => {
  const port = portOf(server);
  const reply = await rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  assert.ok(!reply.toString('latin1').startsWith('HTTP/'), `answered in plain HTTP: ${reply.toString('latin1')}`);
  // What comes back, if anything, is a TLS alert record (content type 21).
  if (reply.length > 0) assert.equal(reply[0], 21, `first byte ${reply[0]}`);
  await assert.rejects(fetch(`http://127.0.0.1:${port}/healthz`));
  // The listener is unharmed.
  assert.equal((await call(server, null, 'GET', '/healthz', undefined, { raw: true })).status, 200);
});

test('a client that never starts the handshake is closed after tls.handshake_timeout_ms', async () => {
  const reply = await rawExchange(portOf(server), null);
  assert.equal(reply.length, 0);
});

test('the bulk upload streams to disk over TLS, after a 100-continue', async () => {
  const header = 'umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,addressLine2,city,state,postalCode,country,businessLegalName,businessRegistrationNumber,businessTaxId,email,platformAccountId,description';
  const rows = [];
  for (let i = 0; i < 300; i++) {
    const id = `tls${process.pid}x${i}`;
    rows.push([`$${id}@platform0.example.test`, id, 'INDIVIDUAL', `Person ${id}`, '1985-06-01', '1 Main St', '',
      'Springfield', 'IL', '62701', 'US', '', '', '', '', '', 'x'.repeat(100)].join(','));
  }
  // About 60 kB: several TLS records, read by the file-streaming path.
  const built = multipartBody([{ name: 'file', filename: 'customers.csv', data: [header, ...rows].join('\n') + '\n' }]);
  const credentials = server.platforms[0].sandbox;
  const accepted = await call(server, credentials, 'POST', '/customers/bulk/csv', built.body,
    { 'content-type': built.contentType, expect: '100-continue' });
  assert.equal(accepted.status, 202, accepted.text);
  const jobPath = `/customers/bulk/jobs/${encodeURIComponent(accepted.body.jobId)}`;
  let job;
  for (let polls = 0; polls < 600; polls++) {
    job = (await call(server, credentials, 'GET', jobPath)).body;
    if (job.status === 'COMPLETED' || job.status === 'FAILED') break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.equal(job.status, 'COMPLETED', JSON.stringify(job));
  assert.deepEqual(job.progress, { total: 300, processed: 300, successful: 300, failed: 0 });
});

// A TCP relay between a client and the server that keeps every byte the server sent.
function relay(port) {
  return new Promise((resolve) => {
    const fromServer = [];
    const relayServer = createServer((client) => {
      const upstream = tcpConnect({ host: '127.0.0.1', port });
      client.pipe(upstream);
      upstream.on('data', (chunk) => { fromServer.push(chunk); client.write(chunk); });
      upstream.on('end', () => client.end());
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    relayServer.listen(0, '127.0.0.1', () => resolve({ relayServer, port: relayServer.address().port, fromServer }));
  });
}

// The content types of the TLS records in `bytes` (5-byte headers: type, version, length).
function recordTypes(bytes) {
  const types = [];
  for (let at = 0; at + 5 <= bytes.length; at += 5 + bytes.readUInt16BE(at + 3)) types.push(bytes[at]);
  return types;
}

test('SIGTERM sends close_notify to an idle TLS connection and exits 0', async () => {
  const { relayServer, port, fromServer } = await relay(portOf(server));
  try {
    // TLS 1.2 leaves the record type of an alert in clear, so the relay can see the close_notify.
    const socket = await handshake(port, { maxVersion: 'TLSv1.2' });
    const closed = new Promise((resolve) => socket.on('close', resolve));
    socket.on('error', () => {});
    const result = await stopCorridor(server, { keepFiles: true });
    await closed;
    assert.equal(result.code, 0, `exit ${JSON.stringify(result)}`);
    const types = recordTypes(Buffer.concat(fromServer));
    assert.ok(types.length >= 2, `records ${types}`);
    assert.equal(types.at(-1), 21, `the server's last record should be an alert: ${types}`);
  } finally {
    relayServer.close();
  }
});

test('a certificate file that cannot be read stops start-up naming tls.certificate_file', async () => {
  const config = JSON.parse(readFileSync(server.configPath, 'utf8'));
  config.tls.certificate_file = join(pki.dir, 'missing.pem');
  writeFileSync(server.configPath, JSON.stringify(config));
  await assert.rejects(launch(server), (error) => {
    assert.match(error.message, /tls\.certificate_file/);
    assert.match(error.message, /missing\.pem.*cannot be read/);
    return true;
  });
  const result = await server.exited;
  assert.equal(result.code, 1);
  rmSync(server.dir, { recursive: true, force: true });
  server = null;
});
