// HTTP/1.1 over a plain TCP socket, for what fetch hides: several requests on one connection,
// malformed requests, oversized headers and bodies, and reading a response the server sends before
// the request is complete.
import net from 'node:net';
import { assertContract } from './contract.mjs';

function endpoint(server) {
  const url = new URL(server.baseUrl);
  return { host: url.hostname, port: Number(url.port) };
}

// Parses as many complete responses as `buffer` holds; returns them and the unused rest.
function parseResponses(buffer) {
  const responses = [];
  let rest = buffer;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const head = rest.subarray(0, end).toString('latin1').split('\r\n');
    const [, status] = head[0].match(/^HTTP\/1\.[01] (\d{3})/) ?? [];
    if (!status) throw new Error(`not an HTTP response: ${head[0]}`);
    const headers = {};
    for (const line of head.slice(1)) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    if (rest.length < end + 4 + length) break;
    const text = rest.subarray(end + 4, end + 4 + length).toString('utf8');
    let body;
    try { body = text ? JSON.parse(text) : undefined; } catch { body = undefined; }
    responses.push({ status: Number(status), headers: { get: (name) => headers[name.toLowerCase()] ?? null }, body, text });
    rest = rest.subarray(end + 4 + length);
  }
  return { responses, rest };
}

export class RawConnection {
  constructor(server) {
    this.socket = net.connect(endpoint(server));
    this.buffer = Buffer.alloc(0);
    this.queue = [];
    this.requests = [];
    this.contractErrors = [];
    this.waiters = [];
    this.ended = false;
    this.opened = new Promise((resolve, reject) => {
      this.socket.once('connect', resolve);
      this.socket.once('error', reject);
    });
    this.socket.on('data', (chunk) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      const { responses, rest } = parseResponses(this.buffer);
      this.buffer = rest;
      for (const response of responses) this.check(response);
      this.queue.push(...responses);
      this.wake();
    });
    this.closed = new Promise((resolve) => this.socket.once('close', () => { this.ended = true; this.wake(); resolve(); }));
    this.socket.on('error', () => {});  // a reset after the response is the server's right
  }

  wake() {
    while (this.waiters.length && (this.queue.length || this.ended)) {
      const waiter = this.waiters.shift();
      if (this.queue.length) waiter.resolve(this.queue.shift());
      else waiter.reject(new Error('connection closed before a response arrived'));
    }
  }

  // Responses are checked against api/openapi.json like every other (lib/contract.mjs), matched in
  // order with the request lines sent. A response with no request line before it answers bytes
  // that were not a request (garbage, a truncated head): it is the HTTP parser's, not the API's,
  // and the contract does not describe it, so it is not checked. A response the server sends
  // before the whole request is read (an oversized body) is the API's and is checked.
  check(response) {
    const request = this.requests.shift();
    if (!request) return;
    try {
      assertContract(request.method, request.target, response);
    } catch (error) {
      response.contractError = error;
      this.contractErrors.push(error);
    }
  }

  async send(data) {
    const text = Buffer.isBuffer(data) ? data.toString('latin1') : String(data);
    for (const match of text.matchAll(/(?:^|\r\n\r\n)([A-Z]+) (\/\S*) HTTP\/1\.[01]\r\n/g)) {
      this.requests.push({ method: match[1], target: match[2] });
    }
    await this.opened;
    if (!this.socket.writable) return;
    await new Promise((resolve) => this.socket.write(data, () => resolve()));
  }

  // The next complete response, or an error when the connection closes first.
  next(timeoutMs = 10000) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no response in time')), timeoutMs);
      this.waiters.push({
        resolve: (value) => { clearTimeout(timer); if (value.contractError) reject(value.contractError); else resolve(value); },
        reject: (error) => { clearTimeout(timer); reject(error); },
      });
      this.wake();
    });
  }

  close() { this.socket.destroy(); }
}

// A request as text. headers: object of name -> value; Host and Content-Length are added.
export function requestText(method, target, { headers = {}, body } = {}) {
  const lines = [`${method} ${target} HTTP/1.1`, 'Host: 127.0.0.1'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (body !== undefined) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return lines.join('\r\n') + '\r\n\r\n' + (body ?? '');
}

// Sends one request on a new connection and returns the first response.
export async function rawRequest(server, data) {
  const connection = new RawConnection(server);
  try {
    await connection.send(data);
    return await connection.next();
  } finally {
    connection.close();
  }
}
