// The platform dashboard's security, driven over HTTP as a browser would: the operator's user
// commands and setup links, the password policy, cookie flags and headers on every page, a new
// session id at sign-in, CSRF (token and origin), roles enforced on the server, another platform's
// ids read as not found, disabled users, two-step verification (enrolment, codes used once, a
// platform that requires it), the audit log, and sign-in slowing per account and per address.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startOnOwnPort, startCorridor, stopCorridor, call } from './lib/harness.mjs';
import { DashboardClient, field, userCli, createUser, totpCode, currentStep } from './lib/dashboard_client.mjs';

let server;
const password = 'violet-anchor-tuesday-42';
const platformId = (i) => server.platforms[i].platformId;

before(async () => {
  server = await startOnOwnPort({ platforms: 2, config: { outbound: { allow_private_addresses: true } } });
  createUser(server, platformId(0), 'admin@zero.test', 'admin', password);
  createUser(server, platformId(0), 'dev@zero.test', 'developer', password);
  createUser(server, platformId(0), 'viewer@zero.test', 'viewer', password);
  createUser(server, platformId(1), 'admin@one.test', 'admin', password);
});
after(async () => { if (server) await stopCorridor(server); });

async function signedIn(email) {
  const client = new DashboardClient(server);
  const answer = await client.signIn(email, password);
  assert.equal(answer.status, 303, answer.text);
  assert.equal(answer.location, '/dashboard/tokens');
  return client;
}

test('user commands: create with a setup link or a password file, list, bad input refused', async () => {
  const invited = userCli(server, ['create', '--platform', platformId(0), '--email', 'New.Person@Zero.test', '--role', 'viewer', '--json']);
  assert.equal(invited.code, 0, invited.stderr);
  const created = JSON.parse(invited.stdout);
  assert.equal(created.email, 'new.person@zero.test');
  assert.equal(created.state, 'invited');
  assert.match(created.setupUrl, new RegExp(`^${server.baseUrl}/dashboard/setup/setup-[0-9a-f]{64}$`));
  assert.ok(Date.parse(created.setupExpiresAt) > Date.now());

  const listed = JSON.parse(userCli(server, ['list', '--platform', platformId(0), '--json']).stdout);
  assert.deepEqual(listed.users.map((u) => u.email).sort(),
    ['admin@zero.test', 'dev@zero.test', 'new.person@zero.test', 'viewer@zero.test']);
  assert.equal(listed.users.find((u) => u.email === 'admin@zero.test').state, 'active');

  const refused = [
    [['create', '--platform', platformId(0), '--email', 'x@zero.test', '--role', 'owner'], 2, /--role must be admin, developer or viewer/],
    [['create', '--platform', platformId(0), '--email', 'not-an-address', '--role', 'viewer'], 2, /--email must be an e-mail address/],
    [['create', '--platform', platformId(0), '--role', 'viewer'], 2, /--email is required/],
    [['create', '--platform', 'Platform:nope', '--email', 'y@zero.test', '--role', 'viewer'], 1, /no platform Platform:nope/],
    [['create', '--platform', platformId(1), '--email', 'ADMIN@zero.test', '--role', 'viewer'], 1, /already exists/],
    [['disable', 'not-an-id'], 2, /DashboardUser:<uuid>/],
    [['list'], 2, /--platform is required/],
  ];
  for (const [args, code, pattern] of refused) {
    const run = userCli(server, args);
    assert.equal(run.code, code, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, pattern);
  }
  const weak = userCli(server, ['create', '--platform', platformId(0), '--email', 'weak@zero.test', '--role', 'viewer', '--password-file', '/dev/null']);
  assert.equal(weak.code, 1);
  assert.match(weak.stderr, /at least 10 characters/);

  // The setup link: the password policy, then single use.
  const link = new URL(created.setupUrl).pathname;
  const client = new DashboardClient(server);
  const page = await client.get(link);
  assert.equal(page.status, 200);
  assert.match(page.text, /new\.person@zero\.test/);
  for (const [chosen, pattern] of [['short', /at least 10 characters/], ['password123', /most common passwords/], ['Dragon2024!!', /most common passwords/]]) {
    const answer = await client.post(link, { password: chosen, confirm: chosen });
    assert.equal(answer.status, 400);
    assert.match(answer.text, pattern);
  }
  const mismatch = await client.post(link, { password, confirm: `${password}x` });
  assert.equal(mismatch.status, 400);
  assert.match(mismatch.text, /differ/);
  const set = await client.post(link, { password, confirm: password });
  assert.equal(set.status, 303);
  assert.equal(set.location, '/dashboard/sign-in?password_set=1');
  assert.equal((await client.get(link)).status, 404);
  assert.equal((await client.post(link, { password, confirm: password })).status, 404);
  await signedIn('new.person@zero.test');
});

test('cookie flags, a new session id at sign-in, sign-out ends the session', async () => {
  const client = new DashboardClient(server);
  const form = await client.get('/dashboard/sign-in');
  const first = await client.post('/dashboard/sign-in', { sign_in_token: field(form.text, 'sign_in_token'), email: 'dev@zero.test', password, next: '/dashboard/webhooks' });
  assert.equal(first.status, 303);
  assert.equal(first.location, '/dashboard/webhooks');
  const cookie = first.setCookies.find((c) => c.startsWith('corridor_session='));
  assert.ok(cookie, first.setCookies.join(' | '));
  assert.match(cookie, /; HttpOnly/);
  assert.match(cookie, /; SameSite=Strict/);
  assert.match(cookie, /; Path=\/dashboard/);
  assert.doesNotMatch(cookie, /Secure/);  // plain HTTP here; tls.test covers nothing of this, so see README
  const firstId = client.cookies.get('corridor_session');
  assert.match(firstId, /^[0-9a-f]{64}$/);
  assert.equal((await client.get('/dashboard/tokens')).status, 200);

  // Fixation: signing in again, with the old id still sent, yields a new id; the old one is dead.
  const second = await client.signIn('dev@zero.test', password);
  assert.equal(second.status, 303);
  const secondId = client.cookies.get('corridor_session');
  assert.notEqual(secondId, firstId);
  const stale = new DashboardClient(server);
  stale.cookies.set('corridor_session', firstId);
  const refused = await stale.get('/dashboard/tokens');
  assert.equal(refused.status, 303);
  assert.equal(refused.location, '/dashboard/sign-in?next=/dashboard/tokens');
  // An id the visitor made up is never adopted: it does not sign anyone in.
  const planted = new DashboardClient(server);
  planted.cookies.set('corridor_session', 'a'.repeat(64));
  assert.equal((await planted.get('/dashboard/tokens')).status, 303);

  const csrf = await client.csrf();
  const out = await client.post('/dashboard/sign-out', { csrf });
  assert.equal(out.status, 303);
  assert.equal(out.location, '/dashboard/sign-in?signed_out=1');
  assert.ok(!client.cookies.has('corridor_session'));
  const reuse = new DashboardClient(server);
  reuse.cookies.set('corridor_session', secondId);
  assert.equal((await reuse.get('/dashboard/tokens')).status, 303);
});

test('every dashboard response carries the security headers', async () => {
  const admin = await signedIn('admin@zero.test');
  const viewer = await signedIn('viewer@zero.test');
  const anonymous = new DashboardClient(server);
  const responses = [
    await anonymous.get('/dashboard/sign-in'),
    await anonymous.get('/dashboard/tokens'),
    await anonymous.get('/dashboard/setup/0123'),
    await anonymous.get('/dashboard/assets/style.css'),
    await admin.get('/dashboard/tokens'),
    await admin.get('/dashboard/webhooks'),
    await admin.get('/dashboard/users'),
    await admin.get('/dashboard/audit'),
    await admin.get('/dashboard/security'),
    await viewer.get('/dashboard/users'),
    await viewer.post('/dashboard/tokens', { csrf: await viewer.csrf(), name: 'x', view: '1' }),
  ];
  for (const response of responses) {
    const csp = response.headers.get('content-security-policy');
    assert.ok(csp, `no CSP on a ${response.status}`);
    for (const directive of ["default-src 'none'", "style-src 'self'", "form-action 'self'", "frame-ancestors 'none'"]) {
      assert.ok(csp.includes(directive), `${directive} missing from ${csp}`);
    }
    assert.equal(response.headers.get('x-frame-options'), 'DENY');
    assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(response.headers.get('cache-control'), 'no-store');
  }
  // Pages load nothing from elsewhere.
  for (const response of responses.filter((r) => r.headers.get('content-type')?.startsWith('text/html'))) {
    assert.doesNotMatch(response.text, /(src|href)="(https?:)?\/\//);
  }
});

test('CSRF: a form from another origin, without the token or with a stale one, is refused', async () => {
  const dev = await signedIn('dev@zero.test');
  const csrf = await dev.csrf();
  const attempts = [
    [{ csrf, name: 'evil-origin', view: '1' }, { origin: 'https://evil.example' }],
    [{ csrf, name: 'evil-null', view: '1' }, { origin: 'null', 'sec-fetch-site': 'cross-site' }],
    [{ csrf, name: 'evil-site', view: '1' }, { 'sec-fetch-site': 'cross-site' }],
    [{ name: 'no-token', view: '1' }, {}],
    [{ csrf: '0'.repeat(64), name: 'wrong-token', view: '1' }, {}],
  ];
  for (const [form, headers] of attempts) {
    const answer = await dev.post('/dashboard/tokens', form, headers);
    assert.equal(answer.status, 403, `${form.name}: ${answer.status}`);
  }
  // The same form from our own origin works, also as browsers post it from a no-referrer page.
  const own = await dev.post('/dashboard/tokens', { csrf, name: 'own-origin', view: '1' }, { origin: server.baseUrl, 'sec-fetch-site': 'same-origin' });
  assert.equal(own.status, 201);
  const nullOrigin = await dev.post('/dashboard/tokens', { csrf, name: 'own-null-origin', view: '1' }, { origin: 'null', 'sec-fetch-site': 'same-origin' });
  assert.equal(nullOrigin.status, 201);
  const listed = await call(server, server.platforms[0].sandbox, 'GET', '/tokens?limit=100');
  const names = listed.body.data.map((t) => t.name);
  assert.ok(names.includes('own-origin'));
  for (const [form] of attempts) assert.ok(!names.includes(form.name), `${form.name} was created`);
  // Sign-in itself is tied to the form this browser loaded.
  const other = new DashboardClient(server);
  const forged = await other.post('/dashboard/sign-in', { sign_in_token: 'f'.repeat(32), email: 'dev@zero.test', password });
  assert.equal(forged.status, 403);
  assert.ok(!other.cookies.has('corridor_session'));
  const crossSite = await other.post('/dashboard/sign-in', { email: 'dev@zero.test', password }, { origin: 'https://evil.example' });
  assert.equal(crossSite.status, 403);
});

test('roles are enforced on the server: a viewer sees no token control and a forged POST is refused', async () => {
  const viewer = await signedIn('viewer@zero.test');
  const page = await viewer.get('/dashboard/tokens');
  assert.equal(page.status, 200);
  assert.doesNotMatch(page.text, /Create token/);
  assert.doesNotMatch(page.text, /Revoke/);
  const csrf = field(page.text, 'csrf');
  const forged = await viewer.post('/dashboard/tokens', { csrf, name: 'by-viewer', view: '1' });
  assert.equal(forged.status, 403);
  assert.match(forged.text, /needs the developer role/);
  for (const path of ['/dashboard/users', '/dashboard/audit']) assert.equal((await viewer.get(path)).status, 403);
  const invite = await viewer.post('/dashboard/users', { csrf, email: 'sneaky@zero.test', role: 'admin' });
  assert.equal(invite.status, 403);
  const dev = await signedIn('dev@zero.test');
  assert.equal((await dev.get('/dashboard/users')).status, 403);
  assert.equal((await dev.post('/dashboard/security/policy', { csrf: await dev.csrf(), totp_required: 'yes' })).status, 403);
  const users = JSON.parse(userCli(server, ['list', '--platform', platformId(0), '--json']).stdout).users;
  assert.ok(!users.some((u) => u.email === 'sneaky@zero.test'));
});

test("another platform's ids read as not found", async () => {
  const admin = await signedIn('admin@zero.test');
  const csrf = await admin.csrf();
  const otherAdmin = JSON.parse(userCli(server, ['list', '--platform', platformId(1), '--json']).stdout).users[0];
  const disable = await admin.post(`/dashboard/users/${encodeURIComponent(otherAdmin.userId)}/disable`, { csrf });
  assert.equal(disable.status, 404);
  const otherToken = server.platforms[1].sandbox.tokenId;
  const revoke = await admin.post(`/dashboard/tokens/${encodeURIComponent(otherToken)}/revoke`, { csrf });
  assert.equal(revoke.status, 404);
  assert.equal((await call(server, server.platforms[1].sandbox, 'GET', '/tokens')).status, 200);
  const resend = await admin.post(`/dashboard/webhooks/${encodeURIComponent('Webhook:0190c0de-0000-7000-8000-000000000000')}/resend`, { csrf });
  assert.equal(resend.status, 404);
  assert.match(resend.text, /No finished event Webhook:0190c0de-0000-7000-8000-000000000000 to resend/);
  // A malformed id, or an id of another type, names no event: the same 404, never a 500.
  for (const bad of ['Webhook:nope', 'nope', 'Transaction:0190c0de-0000-7000-8000-000000000000',
    '0190c0de-0000-7000-8000-000000000000', 'Webhook:0190c0de-0000-7000-8000-0000000000000', "Webhook:'<x>"]) {
    const refused = await admin.post(`/dashboard/webhooks/${encodeURIComponent(bad)}/resend`, { csrf });
    assert.equal(refused.status, 404, `${bad}: ${refused.text}`);
    assert.match(refused.text, /No finished event .* to resend in this environment/, bad);
    assert.ok(!refused.text.includes('<x>'), bad);
  }
  const otherUser = JSON.parse(userCli(server, ['list', '--platform', platformId(1), '--json']).stdout).users[0];
  assert.equal(otherUser.state, 'active');
});

test('an admin invites a user with a setup link and disables users; a disabled user is signed out and refused', async () => {
  const admin = await signedIn('admin@zero.test');
  const invite = await admin.post('/dashboard/users', { csrf: await admin.csrf('/dashboard/users'), email: 'Invited@Zero.test', role: 'developer' });
  assert.equal(invite.status, 201, invite.text);
  const link = invite.text.match(/id="setup-link" class="secret">([^<]+)</)[1];
  assert.match(link, /\/dashboard\/setup\/setup-[0-9a-f]{64}$/);
  // A lost link is replaced by a new one while the user has no password.
  const pending = JSON.parse(userCli(server, ['list', '--platform', platformId(0), '--json']).stdout).users
    .find((u) => u.email === 'invited@zero.test');
  assert.equal(pending.state, 'invited');
  const renewPath = `/dashboard/users/${encodeURIComponent(pending.userId)}/setup-link`;
  const renewed = await admin.post(renewPath, { csrf: await admin.csrf('/dashboard/users') });
  assert.equal(renewed.status, 201, renewed.text);
  const newLink = renewed.text.match(/id="setup-link" class="secret">([^<]+)</)[1];
  assert.notEqual(newLink, link);
  const invited = new DashboardClient(server);
  assert.equal((await invited.post(new URL(newLink).pathname, { password, confirm: password })).status, 303);
  assert.equal((await admin.post(renewPath, { csrf: await admin.csrf('/dashboard/users') })).status, 409);
  const otherAdmin = JSON.parse(userCli(server, ['list', '--platform', platformId(1), '--json']).stdout).users[0];
  const foreign = await admin.post(`/dashboard/users/${encodeURIComponent(otherAdmin.userId)}/setup-link`, { csrf: await admin.csrf('/dashboard/users') });
  assert.equal(foreign.status, 404);
  const session = await signedIn('invited@zero.test');
  assert.equal((await session.get('/dashboard/tokens')).status, 200);

  const users = JSON.parse(userCli(server, ['list', '--platform', platformId(0), '--json']).stdout).users;
  const target = users.find((u) => u.email === 'invited@zero.test');
  assert.equal(target.role, 'developer');
  const disabled = await admin.post(`/dashboard/users/${encodeURIComponent(target.userId)}/disable`, { csrf: await admin.csrf('/dashboard/users') });
  assert.equal(disabled.status, 303);
  const kicked = await session.get('/dashboard/tokens');
  assert.equal(kicked.status, 303);
  const again = await new DashboardClient(server).signIn('invited@zero.test', password);
  assert.equal(again.status, 401);
  assert.match(again.text, /e-mail or password is not right/);

  // The operator's command does the same.
  const viaCli = userCli(server, ['create', '--platform', platformId(0), '--email', 'temp@zero.test', '--role', 'viewer', '--json']);
  const temp = JSON.parse(viaCli.stdout);
  assert.equal(userCli(server, ['disable', temp.userId]).code, 0);
  const twice = userCli(server, ['disable', temp.userId]);
  assert.equal(twice.code, 1);
  assert.match(twice.stderr, /already disabled/);
  // A disabled user's setup link no longer works.
  assert.equal((await new DashboardClient(server).get(new URL(temp.setupUrl).pathname)).status, 404);
});

test('two-step verification: enrolment, a code per sign-in used once, and a platform that requires it', async () => {
  createUser(server, platformId(0), 'totp@zero.test', 'developer', password);
  const client = await signedIn('totp@zero.test');
  const page = await client.get('/dashboard/security');
  const secret = field(page.text, 'secret');
  assert.match(secret, /^[A-Z2-7]{32}$/);
  const wrong = await client.post('/dashboard/security/totp', { csrf: field(page.text, 'csrf'), secret, code: '000000' === totpCode(secret, currentStep()) ? '111111' : '000000' });
  assert.equal(wrong.status, 400);
  const enrolled = await client.post('/dashboard/security/totp', { csrf: field(page.text, 'csrf'), secret, code: totpCode(secret, currentStep()) });
  assert.equal(enrolled.status, 303);

  const fresh = new DashboardClient(server);
  const first = await fresh.signIn('totp@zero.test', password);
  assert.equal(first.status, 303);
  assert.match(first.location, /^\/dashboard\/sign-in\/code/);
  // Half signed in is not signed in.
  assert.equal((await fresh.get('/dashboard/tokens')).location, '/dashboard/sign-in/code');
  const codePage = await fresh.get('/dashboard/sign-in/code');
  const csrf = field(codePage.text, 'csrf');
  assert.equal((await fresh.post('/dashboard/sign-in/code', { csrf, code: '12345' })).status, 401);
  // The step used at enrolment is spent: the next one is accepted (one step ahead is allowed).
  const pendingId = fresh.cookies.get('corridor_session');
  const code = totpCode(secret, currentStep() + 1);
  const ok = await fresh.post('/dashboard/sign-in/code', { csrf, code, next: '/dashboard/tokens' });
  assert.equal(ok.status, 303, ok.text);
  assert.equal(ok.location, '/dashboard/tokens');
  assert.notEqual(fresh.cookies.get('corridor_session'), pendingId);
  assert.equal((await fresh.get('/dashboard/tokens')).status, 200);
  // The same code again, in another sign-in: refused.
  const replay = new DashboardClient(server);
  await replay.signIn('totp@zero.test', password);
  const replayPage = await replay.get('/dashboard/sign-in/code');
  const replayed = await replay.post('/dashboard/sign-in/code', { csrf: field(replayPage.text, 'csrf'), code });
  assert.equal(replayed.status, 401);
  assert.match(replayed.text, /already used/);

  // The admin requires it: a user without it is sent to set it up before anything else.
  const admin = await signedIn('admin@zero.test');
  const policy = await admin.post('/dashboard/security/policy', { csrf: await admin.csrf(), totp_required: 'yes' });
  assert.equal(policy.status, 303);
  const viewer = await signedIn('viewer@zero.test');
  const sent = await viewer.get('/dashboard/tokens');
  assert.equal(sent.status, 303);
  assert.equal(sent.location, '/dashboard/security');
  const security = await viewer.get('/dashboard/security');
  assert.equal(security.status, 200);
  assert.match(security.text, /requires two-step verification/);
  // The admin (without a second factor either) turns it back off from the security page.
  const adminSecurity = await admin.get('/dashboard/security');
  const off = await admin.post('/dashboard/security/policy', { csrf: field(adminSecurity.text, 'csrf'), totp_required: 'no' });
  assert.equal(off.status, 303);
  assert.equal((await viewer.get('/dashboard/tokens')).status, 200);
});

test('the audit log records who did what, when and from where; admins read it', async () => {
  const admin = await signedIn('admin@zero.test');
  const page = await admin.get('/dashboard/audit');
  assert.equal(page.status, 200);
  for (const action of ['signed in', 'signed out', 'token created', 'user invited', 'user disabled', 'password set', 'setup link issued',
    'two-step verification turned on', 'two-step verification policy', 'sign-in refused']) {
    assert.ok(page.text.includes(`<td>${action}</td>`), `no "${action}" entry`);
  }
  assert.match(page.text, /<td>dev@zero\.test<\/td><td>token created<\/td><td>Token:[0-9a-f-]+ &quot;own-origin&quot; VIEW \(sandbox\)<\/td><td>127\.0\.0\.1<\/td>/);
  assert.match(page.text, /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/);
  // Another platform's admin sees none of it.
  const other = await signedIn('admin@one.test');
  const theirs = await other.get('/dashboard/audit');
  assert.doesNotMatch(theirs.text, /zero\.test/);
});

test('sign-in failures are slowed per account, then per address', async () => {
  createUser(server, platformId(0), 'slow@zero.test', 'viewer', password);
  const client = new DashboardClient(server);
  for (let i = 0; i < 4; i++) assert.equal((await client.signIn('slow@zero.test', 'wrong-password-1')).status, 401);
  // Now even the right password waits, and the page says how long.
  const blocked = await client.signIn('slow@zero.test', password);
  assert.equal(blocked.status, 429);
  assert.match(blocked.text, /Try again in \d+ seconds?/);
  assert.ok(Number(blocked.headers.get('retry-after')) >= 1);
  assert.ok(!client.cookies.has('corridor_session'));
  // Other accounts are not held up by it.
  assert.equal((await new DashboardClient(server).signIn('dev@zero.test', password)).status, 303);
  await new Promise((resolve) => setTimeout(resolve, 1100));
  assert.equal((await client.signIn('slow@zero.test', password)).status, 303);

  // Many accounts guessed from one address: the address waits too, whichever account it tries.
  let status;
  for (let i = 0; i < 12 && status !== 429; i++) status = (await client.signIn(`nobody${i}@zero.test`, 'guess-guess-guess')).status;
  assert.equal(status, 429);
  assert.equal((await client.signIn('dev@zero.test', password)).status, 429);
});

test('served as https the cookie is Secure; an idle session ends', async () => {
  const other = await startCorridor({
    platforms: 1,
    config: { public_base_url: 'https://dash.example.test', dashboard: { session_idle_ms: 1500 } },
  });
  try {
    createUser(other, other.platforms[0].platformId, 'ana@secure.test', 'viewer', password);
    const client = new DashboardClient(other);
    const answer = await client.signIn('ana@secure.test', password);
    assert.equal(answer.status, 303, answer.text);
    const cookie = answer.setCookies.find((c) => c.startsWith('corridor_session='));
    assert.match(cookie, /; Secure/);
    assert.equal((await client.get('/dashboard/tokens')).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 800));
    assert.equal((await client.get('/dashboard/tokens')).status, 200);  // use keeps it alive
    await new Promise((resolve) => setTimeout(resolve, 1800));
    const expired = await client.get('/dashboard/tokens');
    assert.equal(expired.status, 303);
    assert.match(expired.location, /^\/dashboard\/sign-in/);
  } finally {
    await stopCorridor(other);
  }
});
