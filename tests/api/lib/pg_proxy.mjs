// A TCP proxy between Corridor and PostgreSQL that can lose a ledger batch's COMMIT the way a
// restart or a network cut does. It reads the frontend protocol (the client's side) message by
// message: a connection's transaction is "marked" once it writes into ledger_batches (the ledger
// writer's batch marker, so only the writer's commits are touched) and into ledger_transfers (money
// moved: a batch that wrote nothing, such as the upkeep's, leaves no marker row and is learnt as
// not committed, which would blur the count of cuts), and its COMMIT (a simple Query, or the
// Execute of a bound COMMIT, alone or in a pipeline) is what the proxy may cut:
//   'after':  the COMMIT goes to the server, its answer is read and dropped, and then the client's
//             socket is closed. The batch committed but Corridor did not hear it.
//   'before': both sockets are closed instead of sending the COMMIT. The batch never commits.
// outage(ms) closes every connection and refuses new ones for a while, as a restart does.
// startPgProxy(target) returns { port, cutCommits(plan), stopCutting(), outage(ms), stats(), close() },
// each method a promise answered by the child.
// The proxy runs in a child process of its own: the harness runs CLI commands synchronously
// (execFileSync), which would stall a proxy living on the test's event loop.
import { createServer, connect } from 'node:net';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const MARKER_INSERT = /INSERT INTO ledger_batches \(id, committed_at_ms\) (VALUES|SELECT)/i;
const TRANSFER_INSERT = /INSERT INTO ledger_transfers\b/i;

// What a statement is to the proxy: 'marker', 'transfer', 'commit', 'rollback' or null.
function kindOf(sql) {
  if (MARKER_INSERT.test(sql)) return 'marker';
  if (TRANSFER_INSERT.test(sql)) return 'transfer';
  const bare = sql.trim().replace(/;$/, '').toUpperCase();
  if (bare === 'COMMIT' || bare === 'END') return 'commit';
  if (bare === 'ROLLBACK') return 'rollback';
  return null;
}
// ReadyForQuery in the transaction-idle state ('Z', length 5, 'I'): the server is done with the
// COMMIT's transaction.
const READY_FOR_QUERY = Buffer.from([0x5a, 0, 0, 0, 5, 0x49]);

function cstring(buffer, offset) {
  const end = buffer.indexOf(0, offset);
  return { text: buffer.toString('utf8', offset, end), next: end + 1 };
}

async function runProxy(target) {
  const proxy = {
    port: 0,
    refusing: false,
    connections: new Set(),
    markedCommits: 0,  // COMMITs of marked transactions seen
    cuts: { after: 0, before: 0 },
    plan: null,        // { every, modes, left }
    cutCommits(plan) { this.plan = { ...plan, left: plan.max ?? Infinity, seen: 0 }; },
    stopCutting() { this.plan = null; },
    outage(ms) {
      this.refusing = true;
      for (const conn of [...this.connections]) drop(this, conn);
      return new Promise((resolve) => setTimeout(() => { this.refusing = false; resolve(); }, ms));
    },
    close() {
      for (const conn of [...this.connections]) drop(this, conn);
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };

  const server = createServer((client) => {
    if (proxy.refusing) {
      client.destroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    // No Nagle delay: each of the protocol's small round trips would wait on a delayed ACK.
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    const conn = {
      client, upstream, pending: Buffer.alloc(0), started: false, cut: false,
      namedKinds: new Map(), unnamedKind: null, commitAtSync: false, marked: false, wrote: false,
    };
    proxy.connections.add(conn);
    client.on('error', () => {});
    upstream.on('error', () => {});
    client.on('data', (chunk) => fromClient(proxy, conn, chunk));
    upstream.on('data', (chunk) => {
      if (conn.cut) {
        // Dropped. Once the server is ready for the next query it has answered the COMMIT (a
        // pipelined one too, whose statements it may still have been running when the COMMIT
        // went by): only then does Corridor lose the connection, its COMMIT unanswered.
        if (chunk.includes(READY_FOR_QUERY)) {
          client.destroy();
          upstream.end();
        }
        return;
      }
      client.write(chunk);
    });
    client.on('close', () => { if (!conn.cut) drop(proxy, conn); });
    upstream.on('close', () => drop(proxy, conn));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.port = server.address().port;
  return proxy;
}

function drop(proxy, conn) {
  conn.client.destroy();
  conn.upstream.destroy();
  proxy.connections.delete(conn);
}

// What to do at a marked transaction's COMMIT: null (let it through), 'after' or 'before'.
function decide(proxy) {
  proxy.markedCommits += 1;
  const plan = proxy.plan;
  if (!plan || plan.left <= 0) return null;
  plan.seen += 1;
  if (plan.seen % plan.every !== 0) return null;
  plan.left -= 1;
  const mode = plan.modes[(proxy.cuts.after + proxy.cuts.before) % plan.modes.length];
  proxy.cuts[mode] += 1;
  return mode;
}

// Takes a marked transaction's end: whether its COMMIT is one the proxy may cut (it wrote its
// marker and moved money).
function endTransaction(conn) {
  const cuttable = conn.marked && conn.wrote;
  conn.marked = conn.wrote = false;
  return cuttable;
}

function sawStatement(conn, kind) {
  if (kind === 'marker') conn.marked = true;
  if (kind === 'transfer') conn.wrote = true;
  if (kind === 'rollback') endTransaction(conn);
}

// Looks at one whole frontend message; returns the cut to make at it, if any.
function inspect(proxy, conn, type, message) {
  const body = 5;  // type byte and length
  if (type === 'Q') {
    // A simple query may carry several statements (savepoint control); only a lone COMMIT ends.
    const sql = cstring(message, body).text;
    const kind = kindOf(sql);
    if (kind === 'commit') return endTransaction(conn) ? decide(proxy) : null;
    sawStatement(conn, kind ?? (TRANSFER_INSERT.test(sql) ? 'transfer' : null));
    return null;
  }
  if (type === 'P') {
    const name = cstring(message, body);
    const kind = kindOf(cstring(message, name.next).text);
    if (name.text === '') conn.unnamedKind = kind;
    else conn.namedKinds.set(name.text, kind);
    return null;
  }
  if (type === 'B') {
    const portal = cstring(message, body);
    const statement = cstring(message, portal.next).text;
    const kind = statement === '' ? conn.unnamedKind : conn.namedKinds.get(statement) ?? null;
    if (kind === 'commit') conn.commitAtSync = true;
    else sawStatement(conn, kind);
    return null;
  }
  // The server runs an Execute as it arrives, without waiting for the Sync: a pipelined COMMIT
  // (sent with the batch's flush, one Sync after it) is cut 'before' at its Execute, and 'after'
  // once the Sync that closes the pipeline has gone to the server too.
  if (type === 'E' && conn.commitAtSync) {
    conn.commitAtSync = false;
    const cut = endTransaction(conn) ? decide(proxy) : null;
    if (cut === 'after') conn.cutAtSync = true;
    return cut === 'before' ? cut : null;
  }
  if (type === 'S' && conn.cutAtSync) {
    conn.cutAtSync = false;
    return 'after';
  }
  return null;
}

function fromClient(proxy, conn, chunk) {
  if (conn.cut) return;
  conn.pending = Buffer.concat([conn.pending, chunk]);
  const out = [];
  const flush = () => { if (out.length) conn.upstream.write(Buffer.concat(out.splice(0))); };
  for (;;) {
    const buffer = conn.pending;
    if (!conn.started) {
      // Startup-phase messages carry no type byte: length, then a code.
      if (buffer.length < 8) break;
      const length = buffer.readInt32BE(0);
      if (buffer.length < length) break;
      const code = buffer.readInt32BE(4);
      if (code !== SSL_REQUEST && code !== GSSENC_REQUEST) conn.started = true;
      out.push(buffer.subarray(0, length));
      conn.pending = buffer.subarray(length);
      continue;
    }
    if (buffer.length < 5) break;
    const type = String.fromCharCode(buffer[0]);
    const length = buffer.readInt32BE(1);
    if (buffer.length < 1 + length) break;
    const message = buffer.subarray(0, 1 + length);
    conn.pending = buffer.subarray(1 + length);
    const cut = inspect(proxy, conn, type, message);
    if (cut === 'before') {
      flush();
      conn.cut = true;
      drop(proxy, conn);
      return;
    }
    out.push(message);
    if (cut === 'after') {
      flush();
      conn.cut = true;  // the server's answer is dropped and the client cut when it comes
      proxy.connections.delete(conn);
      setTimeout(() => { conn.client.destroy(); conn.upstream.destroy(); }, 5000).unref();
      return;
    }
  }
  flush();
}

export async function startPgProxy(target) {
  const child = fork(fileURLToPath(import.meta.url), ['--child', target.host, String(target.port)],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let serial = 0;
  const waiting = new Map();
  const ready = new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`pg proxy exited with ${code}`)));
    child.on('message', (message) => {
      if (message.ready) resolve(message.port);
      const answer = waiting.get(message.serial);
      if (answer) {
        waiting.delete(message.serial);
        answer(message.value);
      }
    });
  });
  const ask = (op, arg) => new Promise((resolve) => {
    serial += 1;
    waiting.set(serial, resolve);
    child.send({ serial, op, arg });
  });
  const port = await ready;
  return {
    port,
    cutCommits: (plan) => ask('cutCommits', plan),
    stopCutting: () => ask('stopCutting'),
    outage: (ms) => ask('outage', ms),
    stats: () => ask('stats'),
    close: async () => {
      await ask('close');
      child.kill();
    },
  };
}

if (process.argv[2] === '--child' && process.send) {
  const proxy = await runProxy({ host: process.argv[3], port: Number(process.argv[4]) });
  process.on('message', async ({ serial, op, arg }) => {
    let value = null;
    if (op === 'cutCommits') proxy.cutCommits(arg);
    else if (op === 'stopCutting') proxy.stopCutting();
    else if (op === 'outage') await proxy.outage(arg);
    else if (op === 'stats') value = { cuts: { ...proxy.cuts }, markedCommits: proxy.markedCommits };
    else if (op === 'close') await proxy.close();
    process.send({ serial, value });
  });
  process.on('disconnect', () => process.exit(0));
  process.send({ ready: true, port: proxy.port });
}
