// Bulk customer import: the upload (multipart, limits, header checks), the job's progress and
// per-row errors for valid, invalid and mixed files, the BULK_UPLOAD event, tenancy, and a job that
// survives a crash of its process in the middle and resumes without creating a customer twice.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCorridor, stopCorridor, launch, call } from './lib/harness.mjs';
import { expectError, expectStatus, ISO_TIMESTAMP } from './lib/expect.mjs';
import { uploadCsv } from './lib/multipart.mjs';
import { outboxEvents } from './lib/database.mjs';

let server;
let sandbox;   // platform 0, sandbox
let other;     // platform 1, sandbox
const domain = 'platform0.example.test';
const uploadLimit = 4 * 1024 * 1024;

before(async () => {
  server = await startCorridor({
    platforms: 2,
    config: {
      limits: { request_body_bytes_max: 1048576, bulk_upload_bytes_max: uploadLimit },
      bulk_import: { batch_rows: 50, poll_interval_ms: 50 },
    },
  });
  sandbox = server.platforms[0].sandbox;
  other = server.platforms[1].sandbox;
});
after(async () => { if (server) await stopCorridor(server); });

const header = 'umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,addressLine2,city,state,postalCode,country,businessLegalName,businessRegistrationNumber,businessTaxId,email,platformAccountId,description';
let serial = 0;
const unique = (prefix) => `${prefix}${process.pid}x${++serial}`;
const individual = (id, overrides = {}) => {
  const row = { uma: `$${id}@${domain}`, id, type: 'INDIVIDUAL', name: `Person ${id}`, birth: '1985-06-01', line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal: '62701', country: 'US', legal: '', reg: '', tax: '', email: '', account: '', description: '', ...overrides };
  return [row.uma, row.id, row.type, row.name, row.birth, row.line1, row.line2, row.city, row.state, row.postal, row.country, row.legal, row.reg, row.tax, row.email, row.account, row.description].join(',');
};
const business = (id) => [`$${id}@${domain}`, id, 'BUSINESS', '', '', '9 Market St', '', 'Austin', 'TX', '73301', 'US', `Acme ${id} LLC`, 'REG-1', 'TAX-1', '', 'acct-1', 'a business'].join(',');

async function waitForJob(jobId, credentials = sandbox, timeoutMs = 60000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = expectStatus(await call(server, credentials, 'GET', `/customers/bulk/jobs/${encodeURIComponent(jobId)}`), 200);
    if (job.status === 'COMPLETED' || job.status === 'FAILED') return job;
    assert.ok(Date.now() < deadline, `job ${jobId} still ${job.status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function importCsv(csv, credentials = sandbox) {
  const accepted = await uploadCsv(server, credentials, csv);
  assert.equal(accepted.status, 202, accepted.text);
  assert.deepEqual(Object.keys(accepted.body).sort(), ['jobId', 'status']);
  assert.match(accepted.body.jobId, /^BulkCustomerImportJob:[0-9a-f-]{36}$/);
  assert.ok(['PENDING', 'PROCESSING'].includes(accepted.body.status));
  return waitForJob(accepted.body.jobId, credentials);
}

async function customerByPlatformId(id, credentials = sandbox) {
  const page = expectStatus(await call(server, credentials, 'GET', `/customers?platformCustomerId=${encodeURIComponent(id)}`), 200);
  return page.data[0];
}

test('a valid file with a BOM, CRLF line ends, quoted commas, quotes and newlines imports every row', async () => {
  const a = unique('valid'), b = unique('valid'), c = unique('valid');
  const quoted = individual(c).replace('1 Main St', '"Flat 3, ""Rose"" House\nHigh Street"');
  const csv = '\uFEFF' + [header, individual(a), business(b), quoted].join('\r\n') + '\r\n';
  const job = await importCsv(csv);
  assert.equal(job.status, 'COMPLETED');
  assert.deepEqual(job.progress, { total: 3, processed: 3, successful: 3, failed: 0 });
  assert.equal(job.errors, undefined);
  assert.match(job.completedAt, ISO_TIMESTAMP);

  const person = await customerByPlatformId(a);
  assert.equal(person.customerType, 'INDIVIDUAL');
  assert.equal(person.umaAddress, `$${a}@${domain}`);
  assert.equal(person.fullName, `Person ${a}`);
  assert.equal(person.birthDate, '1985-06-01');
  assert.deepEqual(person.address, { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' });
  assert.equal(person.kycStatus, 'APPROVED', 'the harness platform is regulated');
  const company = await customerByPlatformId(b);
  assert.deepEqual(company.businessInfo, { legalName: `Acme ${b} LLC`, registrationNumber: 'REG-1', taxId: 'TAX-1' });
  assert.equal(company.address.city, 'Austin');
  const multiline = await customerByPlatformId(c);
  assert.equal(multiline.address.line1, 'Flat 3, "Rose" House\nHigh Street');
  // The header's BOM did not become part of the first column's name: every umaAddress was read.
  assert.equal(multiline.umaAddress, `$${c}@${domain}`);
});

test('a mixed file: bad rows fail with their own errors, good rows are created, counts add up', async () => {
  const good1 = unique('mix'), good2 = unique('mix'), dup = unique('mix'), badDate = unique('mix');
  const noName = unique('mix'), badType = unique('mix'), short = unique('mix'), badCountry = unique('mix');
  const rows = [
    individual(good1),                                           // row 2
    individual(badDate, { birth: '1985-02-30' }),                 // row 3: not a date
    individual(dup, { uma: `$${good1}@${domain}` }),              // row 4: duplicate umaAddress
    individual(noName, { name: '' }),                             // row 5: fullName missing
    individual(badType, { type: 'ROBOT' }),                       // row 6
    `$${short}@${domain},${short},INDIVIDUAL`,                     // row 7: too few fields
    individual('', { uma: `$nobody${process.pid}@${domain}` }),  // row 8: no platformCustomerId
    individual(badCountry, { country: 'USA' }),                   // row 9
    individual(good2, { birth: '2001-12-31' }),                   // row 10
    `$x@${domain},"unterminated,INDIVIDUAL`,                      // row 11: malformed quoting to EOF
  ];
  const job = await importCsv([header, ...rows].join('\n') + '\n');
  assert.equal(job.status, 'COMPLETED');
  assert.deepEqual(job.progress, { total: 10, processed: 10, successful: 2, failed: 8 });
  const byRow = Object.fromEntries(job.errors.map((error) => [error.details.rowNumber, error]));
  assert.deepEqual(Object.keys(byRow).map(Number).sort((x, y) => x - y), [3, 4, 5, 6, 7, 8, 9, 11]);
  for (const error of job.errors) {
    assert.deepEqual(Object.keys(error).sort(), ['code', 'correlationId', 'details', 'message']);
    assert.equal(typeof error.message, 'string');
  }
  assert.equal(byRow[3].code, 'INVALID_INPUT');
  assert.equal(byRow[3].details.field, 'birthDate');
  assert.equal(byRow[3].correlationId, badDate);
  assert.equal(byRow[4].code, 'UMA_ADDRESS_EXISTS');
  assert.equal(byRow[4].correlationId, dup);
  assert.equal(byRow[5].details.field, 'fullName');
  assert.equal(byRow[6].details.field, 'customerType');
  assert.match(byRow[7].message, /fields/);
  assert.equal(byRow[8].details.field, 'platformCustomerId');
  assert.equal(byRow[8].correlationId, '8', 'without a platformCustomerId the row number correlates');
  assert.equal(byRow[9].details.field, 'country');
  assert.equal(byRow[9].code, 'INVALID_INPUT');
  assert.match(byRow[11].message, /malformed CSV/);
  for (const id of [good1, good2]) assert.ok(await customerByPlatformId(id), `${id} was created`);
  for (const id of [badDate, dup, noName, badType, short, badCountry]) {
    assert.equal(await customerByPlatformId(id), undefined, `${id} must not exist`);
  }
});

test('a platformCustomerId repeated in the file or already taken fails that row only', async () => {
  const first = unique('pcid'), second = unique('pcid');
  const job = await importCsv([header, individual(first), individual(first, { uma: `$${second}@${domain}` })].join('\n'));
  assert.deepEqual(job.progress, { total: 2, processed: 2, successful: 1, failed: 1 });
  assert.equal(job.errors[0].code, 'PLATFORM_CUSTOMER_ID_EXISTS');
  assert.equal(job.errors[0].details.rowNumber, 3);
});

test('collisions with existing customers and across batches fail their own rows, in file order', async () => {
  // The suite imports 50 rows per batch: the file spans three, and rows of a later batch collide
  // with rows of an earlier one and with customers created through the API before the import.
  const existing = unique('old');
  expectStatus(await call(server, sandbox, 'POST', '/customers', {
    customerType: 'INDIVIDUAL', platformCustomerId: existing, umaAddress: `$${existing}@${domain}`,
    fullName: 'Old Timer', birthDate: '1970-01-01',
  }), 201);
  const ids = Array.from({ length: 120 }, () => unique('span'));
  const rows = ids.map((id) => individual(id));
  rows[10] = individual(ids[10], { uma: `$${existing}@${domain}` });  // row 12: address held by the API customer
  rows[20] = individual(existing, { uma: `$${ids[20]}@${domain}` });  // row 22: its platformCustomerId
  rows[70] = individual(ids[70], { uma: `$${ids[5]}@${domain}` });   // row 72: address of row 7, one batch earlier
  rows[110] = individual(ids[60], { uma: `$${ids[110]}@${domain}` }); // row 112: platformCustomerId of row 62
  // Row 115 loses its platformCustomerId, so its address stays free for row 116.
  rows[113] = individual(ids[1], { uma: `$free${ids[113]}@${domain}` });
  rows[114] = individual(ids[114], { uma: `$free${ids[113]}@${domain}` });
  const job = await importCsv([header, ...rows].join('\n') + '\n');
  assert.equal(job.status, 'COMPLETED');
  assert.deepEqual(job.progress, { total: 120, processed: 120, successful: 115, failed: 5 });
  assert.deepEqual(job.errors.map((error) => [error.details.rowNumber, error.code, error.correlationId]), [
    [12, 'UMA_ADDRESS_EXISTS', ids[10]],
    [22, 'PLATFORM_CUSTOMER_ID_EXISTS', existing],
    [72, 'UMA_ADDRESS_EXISTS', ids[70]],
    [112, 'PLATFORM_CUSTOMER_ID_EXISTS', ids[60]],
    [115, 'PLATFORM_CUSTOMER_ID_EXISTS', ids[1]],
  ]);
  const winner = await customerByPlatformId(ids[114]);
  assert.equal(winner.umaAddress, `$free${ids[113]}@${domain}`);
  const last = await customerByPlatformId(ids[119]);
  assert.equal(last.fullName, `Person ${ids[119]}`);
  const accounts = expectStatus(await call(server, sandbox, 'GET', `/customers/internal-accounts?customerId=${encodeURIComponent(last.id)}&limit=100`), 200);
  const config = expectStatus(await call(server, sandbox, 'GET', '/config'), 200);
  const codes = config.supportedCurrencies.map((item) => item.currencyCode).sort();
  assert.ok(codes.length >= 2);
  assert.deepEqual(accounts.data.map((account) => account.balance.currency.code).sort(), codes,
    'an imported customer has one internal account per supported currency');
  for (const account of accounts.data) assert.equal(account.balance.amount, 0);
  // Imported accounts' funding references have the usual form, are not shared by two accounts
  // (here across customers of two batches), and a deposit is reconciled to its account by one.
  const first = await customerByPlatformId(ids[0]);
  const firstAccounts = expectStatus(await call(server, sandbox, 'GET', `/customers/internal-accounts?customerId=${encodeURIComponent(first.id)}&limit=100`), 200);
  const referenced = [...accounts.data, ...firstAccounts.data].flatMap((account) =>
    account.fundingPaymentInstructions.map((instruction) => [account.id, instruction.accountOrWalletInfo.reference]));
  assert.ok(referenced.length >= 2 * 2, JSON.stringify(accounts.data[0]));
  for (const [, reference] of referenced) assert.match(reference, /^CR[A-Z2-7]{14}$/);
  const byReference = new Map(referenced.map(([id, reference]) => [reference, id]));
  assert.equal(byReference.size, new Set(referenced.map(([id]) => id)).size, 'one reference per account');
  const [fundedId, fundedReference] = referenced[0];
  expectStatus(await call(server, sandbox, 'POST', `/sandbox/internal-accounts/${encodeURIComponent(fundedId)}/fund`, { amount: 4321 }), 200);
  const deposits = expectStatus(await call(server, sandbox, 'GET', `/transactions?reference=${fundedReference}`), 200);
  assert.equal(deposits.data.length, 1, JSON.stringify(deposits));
  assert.equal(deposits.data[0].destination.accountId, fundedId);
  assert.equal(deposits.data[0].receivedAmount.amount, 4321);
  assert.equal(await customerByPlatformId(ids[10]), undefined);
  assert.equal((await customerByPlatformId(existing)).fullName, 'Old Timer');
});

test('a file imported again fails each row it already created and creates only its new rows', async () => {
  // 50 rows per batch: the second import's first two batches hold only rows of the first file,
  // its third both kinds, its fourth only new rows. On PostgreSQL a batch is first written without
  // looking its keys up: a taken key sends the batch back to the lookups, with the same outcomes.
  const ids = Array.from({ length: 120 }, () => unique('again'));
  const fresh = Array.from({ length: 80 }, () => unique('fresh'));
  const first = await importCsv([header, ...ids.map((id) => individual(id))].join('\n'));
  assert.deepEqual(first.progress, { total: 120, processed: 120, successful: 120, failed: 0 });
  const before = await customerByPlatformId(ids[119]);
  const second = await importCsv([header, ...[...ids, ...fresh].map((id) => individual(id))].join('\n'));
  assert.equal(second.status, 'COMPLETED');
  assert.deepEqual(second.progress, { total: 200, processed: 200, successful: 80, failed: 120 });
  assert.deepEqual(second.errors.map((error) => [error.details.rowNumber, error.code, error.correlationId]),
    ids.map((id, i) => [i + 2, 'UMA_ADDRESS_EXISTS', id]));
  // Nothing was created twice, and the first import's customers are untouched.
  for (const id of [ids[0], ids[60], ids[119]]) {
    const page = expectStatus(await call(server, sandbox, 'GET', `/customers?platformCustomerId=${encodeURIComponent(id)}`), 200);
    assert.equal(page.data.length, 1, id);
  }
  assert.deepEqual(await customerByPlatformId(ids[119]), before);
  for (const id of [fresh[0], fresh[29], fresh[30], fresh[79]]) {
    assert.equal((await customerByPlatformId(id)).umaAddress, `$${id}@${domain}`);
  }
});

test('non-UTF-8 bytes fail their row, naming the column; the rest of the file imports', async () => {
  const good = unique('utf'), bad = unique('utf');
  const csv = Buffer.concat([
    Buffer.from(`${header}\n${individual(good, { name: 'José Ñúñez' })}\n`),
    Buffer.from(individual(bad, { name: 'Jos@' }).replace('Jos@', 'Jos\xff'), 'latin1'),
    Buffer.from('\n'),
  ]);
  const job = await importCsv(csv);
  assert.deepEqual(job.progress, { total: 2, processed: 2, successful: 1, failed: 1 });
  assert.equal(job.errors[0].code, 'INVALID_INPUT');
  assert.equal(job.errors[0].details.field, 'fullName');
  assert.match(job.errors[0].message, /UTF-8/);
  assert.equal((await customerByPlatformId(good)).fullName, 'José Ñúñez');
});

test('a header without a required column is refused at upload, naming the columns; nothing is queued', async () => {
  const response = await uploadCsv(server, sandbox, 'platformCustomerId,fullName\nx,y\n');
  expectError(response, 400, 'INVALID_INPUT', 'file');
  assert.match(response.body.message, /umaAddress/);
  assert.match(response.body.message, /customerType/);
  // A column needed only by one customer type is checked per row.
  const id = unique('nobirth');
  const job = await importCsv(`umaAddress,platformCustomerId,customerType,fullName,addressLine1,city,state,postalCode,country\n$${id}@${domain},${id},INDIVIDUAL,N,1 A St,C,S,1,US\n`);
  assert.equal(job.progress.failed, 1);
  assert.equal(job.errors[0].details.field, 'birthDate');
  expectError(await uploadCsv(server, sandbox, 'umaAddress,umaAddress,platformCustomerId,customerType\n'), 400, 'INVALID_INPUT', 'file');
});

test('a header-only file completes with no rows; an empty one is refused', async () => {
  const job = await importCsv(`${header}\n`);
  assert.deepEqual(job.progress, { total: 0, processed: 0, successful: 0, failed: 0 });
  assert.equal(job.status, 'COMPLETED');
  expectError(await uploadCsv(server, sandbox, ''), 400, 'INVALID_INPUT', 'file');
});

test('the upload must be multipart with a file part', async () => {
  expectError(await uploadCsv(server, sandbox, '', { parts: [{ name: 'other', data: 'x' }] }), 400, 'INVALID_INPUT', 'file');
  const twice = [{ name: 'file', data: `${header}\n` }, { name: 'file', data: `${header}\n` }];
  expectError(await uploadCsv(server, sandbox, '', { parts: twice }), 400, 'INVALID_INPUT', 'file');
  expectError(await uploadCsv(server, sandbox, `${header}\n`, { contentType: 'text/csv' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  const truncated = await fetch(`${server.api}/customers/bulk/csv`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${sandbox.clientId}:${sandbox.clientSecret}`).toString('base64')}`, 'content-type': 'multipart/form-data; boundary=abc' },
    body: `--abc\r\nContent-Disposition: form-data; name="file"\r\n\r\n${header}\n`,
  });
  assert.equal(truncated.status, 400);
  assert.match((await truncated.json()).message, /multipart/);
});

test('uploads stream past the 1 MiB body limit of other routes, up to their own limit (413 above)', async () => {
  // About 1.5 MiB in a few hundred long rows: refused as a JSON body elsewhere, accepted here.
  const rows = [];
  let size = header.length;
  while (size < 1.5 * 1024 * 1024) {
    const row = individual(unique('big'), { description: 'x'.repeat(8000) });
    rows.push(row);
    size += row.length + 1;
  }
  const accepted = await uploadCsv(server, sandbox, [header, ...rows].join('\n'));
  assert.equal(accepted.status, 202, accepted.text);
  const job = await waitForJob(accepted.body.jobId);
  assert.deepEqual(job.progress, { total: rows.length, processed: rows.length, successful: rows.length, failed: 0 });

  const oversizedJson = await call(server, sandbox, 'POST', '/customers', JSON.stringify({ customerType: 'INDIVIDUAL', pad: 'x'.repeat(1.5 * 1024 * 1024) }));
  expectError(oversizedJson, 413, 'PAYLOAD_TOO_LARGE');
  const tooBig = await uploadCsv(server, sandbox, header + '\n' + 'x'.repeat(uploadLimit + 1));
  expectError(tooBig, 413, 'PAYLOAD_TOO_LARGE');
});

test('jobs belong to their tenant; unknown ids are 404 BULK_UPLOAD_JOB_NOT_FOUND', async () => {
  const job = await importCsv(`${header}\n${individual(unique('tenant'))}\n`);
  expectError(await call(server, other, 'GET', `/customers/bulk/jobs/${encodeURIComponent(job.id)}`), 404, 'BULK_UPLOAD_JOB_NOT_FOUND');
  expectError(await call(server, server.platforms[0].production, 'GET', `/customers/bulk/jobs/${encodeURIComponent(job.id)}`), 404, 'BULK_UPLOAD_JOB_NOT_FOUND');
  expectError(await call(server, sandbox, 'GET', '/customers/bulk/jobs/BulkCustomerImportJob:nope'), 404, 'BULK_UPLOAD_JOB_NOT_FOUND');
  const unauthenticated = await fetch(`${server.api}/customers/bulk/csv`, { method: 'POST', body: 'x' });
  assert.equal(unauthenticated.status, 401);
});

test('a finished job records one BULK_UPLOAD event carrying the job', async () => {
  const bad = unique('event');
  const job = await importCsv(`${header}\n${individual(unique('event'))}\n${individual(bad, { birth: 'yesterday' })}\n`);
  const events = outboxEvents(server, 'BULK_UPLOAD').filter((event) => event.bulkCustomerImportJob.id === job.id);
  assert.equal(events.length, 1);
  assert.deepEqual(events[0].bulkCustomerImportJob, job);
});

test('a job resumes after its process is killed mid-way, creating every customer exactly once', async () => {
  const rows = 5000;  // enough that the job cannot finish between two polls, even on a starved machine
  const crash = await startCorridor({
    platforms: 1,
    config: { bulk_import: { batch_rows: 10, poll_interval_ms: 20, lease_ms: 500 } },
  });
  try {
    const credentials = crash.platforms[0].sandbox;
    const lines = [header];
    for (let i = 0; i < rows; i++) lines.push(individual(`crash${i}`).replaceAll(domain, 'platform0.example.test'));
    const accepted = await uploadCsv(crash, credentials, lines.join('\n'));
    assert.equal(accepted.status, 202, accepted.text);
    const jobPath = `/customers/bulk/jobs/${encodeURIComponent(accepted.body.jobId)}`;
    let seen;
    for (;;) {
      seen = expectStatus(await call(crash, credentials, 'GET', jobPath), 200);
      if (seen.progress.processed > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    crash.process.kill('SIGKILL');
    await crash.exited;
    assert.ok(seen.progress.processed < rows, `killed at ${seen.progress.processed} of ${rows}`);
    await launch(crash);
    let job;
    for (let waited = 0; ; waited += 50) {
      job = expectStatus(await call(crash, credentials, 'GET', jobPath), 200);
      if (job.status === 'COMPLETED') break;
      assert.ok(waited < 120000, `job still ${job.status} ${JSON.stringify(job.progress)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // A row imported twice would have failed as a duplicate: none did, and each customer exists once.
    assert.deepEqual(job.progress, { total: rows, processed: rows, successful: rows, failed: 0 });
    const count = expectStatus(await call(crash, credentials, 'GET', '/customers?limit=1'), 200).totalCount;
    assert.equal(count, rows);
  } finally {
    await stopCorridor(crash);
  }
});

test('a process stopped with SIGTERM mid-job hands the job back at once; the next one finishes it', async () => {
  const rows = 5000;  // as above
  // A lease far longer than the test: only the hand-back at shutdown lets the restart continue.
  const stopping = await startCorridor({
    platforms: 1,
    config: { bulk_import: { batch_rows: 10, poll_interval_ms: 20, lease_ms: 600000 } },
  });
  try {
    const credentials = stopping.platforms[0].sandbox;
    const lines = [header];
    for (let i = 0; i < rows; i++) lines.push(individual(`term${i}`));
    const accepted = await uploadCsv(stopping, credentials, lines.join('\n'));
    assert.equal(accepted.status, 202, accepted.text);
    const jobPath = `/customers/bulk/jobs/${encodeURIComponent(accepted.body.jobId)}`;
    for (;;) {
      const seen = expectStatus(await call(stopping, credentials, 'GET', jobPath), 200);
      if (seen.progress.processed > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    stopping.process.kill('SIGTERM');
    assert.equal((await stopping.exited).code, 0);
    await launch(stopping);
    const resumed = expectStatus(await call(stopping, credentials, 'GET', jobPath), 200);
    assert.ok(resumed.progress.processed < rows, `stopped at ${resumed.progress.processed} of ${rows}`);
    let job;
    for (let waited = 0; ; waited += 50) {
      job = expectStatus(await call(stopping, credentials, 'GET', jobPath), 200);
      if (job.status === 'COMPLETED') break;
      assert.ok(waited < 120000, `job still ${job.status} ${JSON.stringify(job.progress)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.deepEqual(job.progress, { total: rows, processed: rows, successful: rows, failed: 0 });
  } finally {
    await stopCorridor(stopping);
  }
});
