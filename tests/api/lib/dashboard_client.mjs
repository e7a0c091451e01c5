// A browser-like client of the platform dashboard for the Node suites: keeps cookies, posts forms,
// follows nothing by itself (redirects are asserted), and reads hidden form fields.
import { spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function field(html, name) {
  const match = html.match(new RegExp(`name="${name}" value="([^"]*)"`));
  return match ? match[1] : undefined;
}

export class DashboardClient {
  constructor(server) {
    this.base = server.baseUrl;
    this.cookies = new Map();
  }

  async request(method, path, { form, headers = {} } = {}) {
    const sent = { ...headers };
    if (this.cookies.size) sent.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    let body;
    if (form) {
      body = new URLSearchParams(form).toString();
      sent['content-type'] = 'application/x-www-form-urlencoded';
    }
    const response = await fetch(this.base + path, { method, headers: sent, body, redirect: 'manual' });
    const setCookies = response.headers.getSetCookie();
    for (const cookie of setCookies) {
      const pair = cookie.split(';')[0];
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      if (/;\s*Max-Age=0/i.test(cookie)) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(at + 1));
    }
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, setCookies, location: response.headers.get('location') };
  }

  get(path, headers) { return this.request('GET', path, { headers }); }
  post(path, form, headers) { return this.request('POST', path, { form, headers }); }

  // Signs in through the form; returns the POST's response (303 on success).
  async signIn(email, password, next = '/dashboard/tokens') {
    const page = await this.get('/dashboard/sign-in');
    return this.post('/dashboard/sign-in', { sign_in_token: field(page.text, 'sign_in_token'), next, email, password });
  }

  // The CSRF token of a page the client may load.
  async csrf(path = '/dashboard/tokens') {
    const page = await this.get(path);
    return field(page.text, 'csrf');
  }
}

// `corridor user ...` against the server's configuration; never throws.
export function userCli(server, args) {
  const run = spawnSync(server.bin, ['user', ...args, '--config', server.configPath], { encoding: 'utf8', timeout: 30000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

// Creates a dashboard user with a password (through --password-file); returns its JSON.
export function createUser(server, platformId, email, role, password) {
  const file = join(server.dir, `password-${email}`);
  writeFileSync(file, `${password}\n`, { mode: 0o600 });
  const run = userCli(server, ['create', '--platform', platformId, '--email', email, '--role', role, '--password-file', file, '--json']);
  if (run.code !== 0) throw new Error(`user create: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

// RFC 6238 code (SHA-1, 6 digits, 30 s) for a base32 secret at `step`.
export function totpCode(secretBase32, step) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of secretBase32.replace(/=+$/, '')) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  const bytes = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(parseInt(bits.slice(i, i + 8), 2));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', Buffer.from(bytes)).update(counter).digest();
  const offset = mac[mac.length - 1] & 0xf;
  const value = (mac.readUInt32BE(offset) & 0x7fffffff) % 1000000;
  return String(value).padStart(6, '0');
}

export const currentStep = () => Math.floor(Date.now() / 1000 / 30);
