// Customers: creation of both shapes, UMA addresses, validation, every list filter, pagination,
// GET, PATCH, DELETE, and races for one address.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCorridor, stopCorridor, call, walkPages } from './lib/harness.mjs';
import { expectError, expectStatus, createCustomer, inBatches, assertCompleteWalk, ISO_TIMESTAMP } from './lib/expect.mjs';

let server;
let sandbox;    // platform 0 (unregulated), sandbox: most tests
let regulated;  // platform 1 (regulated), sandbox
let walker;     // platform 2, production: only the pagination set
const domain = 'platform0.example.test';

before(async () => {
  server = await startCorridor({ platforms: 3, regulated: [false, true, false] });
  sandbox = server.platforms[0].sandbox;
  regulated = server.platforms[1].sandbox;
  walker = server.platforms[2].production;
});
after(async () => { if (server) await stopCorridor(server); });

const path = (id) => `/customers/${encodeURIComponent(id)}`;
const post = (body, credentials = sandbox) => call(server, credentials, 'POST', '/customers', body);
const get = async (id) => expectStatus(await call(server, sandbox, 'GET', path(id)), 200);
const patchCustomer = (id, body) => call(server, sandbox, 'PATCH', path(id), body);
const count = async (query = '') => expectStatus(await call(server, sandbox, 'GET', `/customers${query}`), 200).totalCount;
const listIds = async (query, credentials = sandbox) => {
  const separator = query.includes('?') ? '&' : '?';
  const body = expectStatus(await call(server, credentials, 'GET', `/customers${query}${separator}limit=1`), 200);
  const walk = await walkPages(server, credentials, `/customers${query}`, 100);
  assert.equal(body.totalCount, walk.items.length, `totalCount of ${query}`);
  return walk.items.map((c) => c.id).sort();
};
const pastYear = (years) => `${new Date().getUTCFullYear() - years}-03-15`;

const fullAddress = { line1: '1 Main St', line2: 'Apt 2', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };

test('POST /customers creates an INDIVIDUAL with generated umaAddress and platformCustomerId', async () => {
  const minimal = expectStatus(await post({ customerType: 'INDIVIDUAL' }), 201);
  assert.match(minimal.id, /^Customer:[0-9a-f-]{36}$/);
  assert.equal(minimal.customerType, 'INDIVIDUAL');
  assert.match(minimal.umaAddress, new RegExp(`^\\$[a-z0-9._+-]+@${domain.replace(/\./g, '\\.')}$`));
  assert.ok(minimal.umaAddress.split('@')[0].length <= 64, 'the user part with its $ is at most 64 characters');
  assert.equal(typeof minimal.platformCustomerId, 'string');
  assert.ok(minimal.platformCustomerId.length > 0);
  assert.equal(minimal.kycStatus, 'PENDING_REVIEW');
  assert.equal(minimal.isDeleted, false);
  assert.match(minimal.createdAt, ISO_TIMESTAMP);
  assert.match(minimal.updatedAt, ISO_TIMESTAMP);
  assert.deepEqual(await get(minimal.id), minimal);

  const second = expectStatus(await post({ customerType: 'INDIVIDUAL' }), 201);
  assert.notEqual(second.umaAddress, minimal.umaAddress);
  assert.notEqual(second.platformCustomerId, minimal.platformCustomerId);

  const birthDate = pastYear(30);
  const full = expectStatus(await post({
    customerType: 'INDIVIDUAL', platformCustomerId: 'ind-001', fullName: 'Ada Lovelace', birthDate,
    nationality: 'GB', address: fullAddress, unknownField: 'ignored',
  }), 201);
  assert.equal(full.platformCustomerId, 'ind-001');
  assert.equal(full.fullName, 'Ada Lovelace');
  assert.equal(full.birthDate, birthDate);
  assert.equal(full.nationality, 'GB');
  assert.deepEqual(full.address, fullAddress);
  assert.ok(!('unknownField' in full));
  assert.deepEqual(await get(full.id), full);

  // A regulated platform verifies its own customers.
  const approved = expectStatus(await post({ customerType: 'INDIVIDUAL' }, regulated), 201);
  assert.equal(approved.kycStatus, 'APPROVED');
  assert.match(approved.umaAddress, /@platform1\.example\.test$/);
});

test('POST /customers creates a BUSINESS with its own fields', async () => {
  const owner = {
    fullName: 'Grace Hopper', individualType: 'DIRECTOR', emailAddress: 'grace@example.test', phoneNumber: '+14155550100',
    taxId: '123-45-6789', title: 'CEO', birthDate: pastYear(50), nationality: 'US', address: fullAddress, percentageOwnership: 51.5,
  };
  const body = {
    customerType: 'BUSINESS', platformCustomerId: 'biz-001', address: { line1: '2 Market St', postalCode: '94105', country: 'US' },
    businessInfo: { legalName: 'Hopper Compilers Inc', registrationNumber: 'C1234567', taxId: '94-1234567' },
    beneficialOwners: [owner, { fullName: 'Second Owner', individualType: 'CONTROL_PERSON' }],
  };
  const business = expectStatus(await post(body), 201);
  assert.equal(business.customerType, 'BUSINESS');
  assert.equal(business.platformCustomerId, 'biz-001');
  assert.deepEqual(business.businessInfo, body.businessInfo);
  assert.deepEqual(business.address, body.address);
  assert.deepEqual(business.beneficialOwners, body.beneficialOwners);
  assert.ok(!('fullName' in business));
  assert.match(business.umaAddress, /@platform0\.example\.test$/);
  assert.deepEqual(await get(business.id), business);
  const minimal = expectStatus(await post({ customerType: 'BUSINESS', businessInfo: { legalName: 'Tiny LLC' } }), 201);
  assert.deepEqual(minimal.businessInfo, { legalName: 'Tiny LLC' });

  expectError(await post({ customerType: 'BUSINESS' }), 400, 'INVALID_INPUT', 'businessInfo');
  expectError(await post({ customerType: 'BUSINESS', businessInfo: {} }), 400, 'INVALID_INPUT', 'businessInfo.legalName');
  expectError(await post({ customerType: 'BUSINESS', businessInfo: 'Tiny LLC' }), 400, 'INVALID_INPUT', 'businessInfo');
  const withOwner = (fields) => ({ customerType: 'BUSINESS', businessInfo: { legalName: 'X' }, beneficialOwners: [{ fullName: 'O', individualType: 'TRUSTEE', ...fields }] });
  expectError(await post(withOwner({ individualType: 'CEO' })), 400, 'INVALID_INPUT', 'beneficialOwners[0].individualType');
  expectError(await post(withOwner({ fullName: undefined })), 400, 'INVALID_INPUT', 'beneficialOwners[0].fullName');
  expectError(await post(withOwner({ phoneNumber: '555-0100' })), 400, 'INVALID_INPUT', 'beneficialOwners[0].phoneNumber');
  expectError(await post(withOwner({ emailAddress: 'not-an-email' })), 400, 'INVALID_INPUT', 'beneficialOwners[0].emailAddress');
  expectError(await post(withOwner({ percentageOwnership: 101 })), 400, 'INVALID_INPUT', 'beneficialOwners[0].percentageOwnership');
  expectError(await post(withOwner({ nationality: 'XX' })), 400, 'INVALID_INPUT', 'beneficialOwners[0].nationality');
  expectError(await post(withOwner({ address: { line1: 'x', country: 'US' } })), 400, 'INVALID_INPUT', 'beneficialOwners[0].address.postalCode');
  expectError(await post({ ...withOwner({}), beneficialOwners: {} }), 400, 'INVALID_INPUT', 'beneficialOwners');
});

test('a given umaAddress is validated, normalised to lower case and unique per domain', async () => {
  const given = expectStatus(await post({ customerType: 'INDIVIDUAL', umaAddress: '$Alice.Smith@Platform0.Example.TEST' }), 201);
  assert.equal(given.umaAddress, '$alice.smith@platform0.example.test');
  const symbols = expectStatus(await post({ customerType: 'INDIVIDUAL', umaAddress: `$a-b_c.d+e9@${domain}` }), 201);
  assert.equal(symbols.umaAddress, `$a-b_c.d+e9@${domain}`);

  const badShapes = [`alice@${domain}`, `$@${domain}`, `$al ice@${domain}`, '$alice', `$alice@`, `$a@b@${domain}`,
    `$alice!@${domain}`, `$ålice@${domain}`, `$${'a'.repeat(64)}@${domain}`, '', `$alice@${domain}/x`, `$alice@-${domain}`];
  for (const umaAddress of badShapes) {
    expectError(await post({ customerType: 'INDIVIDUAL', umaAddress }), 400, 'INVALID_UMA_ADDRESS', 'umaAddress');
  }
  for (const umaAddress of ['$alice@platform1.example.test', '$alice@example.test', `$alice@sub.${domain}`]) {
    expectError(await post({ customerType: 'INDIVIDUAL', umaAddress }), 400, 'INVALID_UMA_ADDRESS', 'umaAddress');
  }
  expectError(await post({ customerType: 'INDIVIDUAL', umaAddress: 42 }), 400, 'INVALID_INPUT', 'umaAddress');

  const before = await count('?isIncludingDeleted=true');
  for (const umaAddress of ['$alice.smith@platform0.example.test', '$ALICE.SMITH@platform0.example.test', '$Alice.Smith@PLATFORM0.example.test']) {
    expectError(await post({ customerType: 'INDIVIDUAL', umaAddress }), 409, 'UMA_ADDRESS_EXISTS');
  }
  expectError(await post({ customerType: 'BUSINESS', businessInfo: { legalName: 'Same Address Inc' }, umaAddress: given.umaAddress }), 409, 'UMA_ADDRESS_EXISTS');
  assert.equal(await count('?isIncludingDeleted=true'), before);
});

test('a duplicate platformCustomerId is 409', async () => {
  const first = expectStatus(await post({ customerType: 'INDIVIDUAL', platformCustomerId: 'dup-1' }), 201);
  const before = await count();
  const again = await post({ customerType: 'BUSINESS', businessInfo: { legalName: 'Dup' }, platformCustomerId: 'dup-1' });
  expectError(again, 409, 'PLATFORM_CUSTOMER_ID_EXISTS');
  assert.equal(again.body.details.field, 'platformCustomerId');
  assert.equal(await count(), before);
  // The address asked for by the refused request was not taken either.
  expectStatus(await post({ customerType: 'INDIVIDUAL', umaAddress: `$dup-loser@${domain}`, platformCustomerId: 'dup-2' }), 201);
  expectError(await post({ customerType: 'INDIVIDUAL', umaAddress: `$dup-winner@${domain}`, platformCustomerId: 'dup-1' }), 409, 'PLATFORM_CUSTOMER_ID_EXISTS');
  expectStatus(await post({ customerType: 'INDIVIDUAL', umaAddress: `$dup-winner@${domain}` }), 201);
  expectError(await post({ customerType: 'INDIVIDUAL', platformCustomerId: '' }), 400, 'INVALID_INPUT', 'platformCustomerId');
  assert.equal((await get(first.id)).platformCustomerId, 'dup-1');
});

test('customer fields are validated and each failure names its field', async () => {
  const before = await count('?isIncludingDeleted=true');
  const individual = (fields) => ({ customerType: 'INDIVIDUAL', ...fields });
  const business = (fields) => ({ customerType: 'BUSINESS', businessInfo: { legalName: 'B' }, ...fields });
  const nextYear = `${new Date().getUTCFullYear() + 1}-01-01`;
  const cases = [
    [{}, 'customerType'],
    [{ customerType: 'PERSON' }, 'customerType'],
    [{ customerType: 'individual' }, 'customerType'],
    [{ customerType: 1 }, 'customerType'],
    [individual({ birthDate: '1990-02-30' }), 'birthDate'],
    [individual({ birthDate: '1990-13-01' }), 'birthDate'],
    [individual({ birthDate: '1990-1-1' }), 'birthDate'],
    [individual({ birthDate: '01/02/1990' }), 'birthDate'],
    [individual({ birthDate: '1990-01-01T00:00:00Z' }), 'birthDate'],
    [individual({ birthDate: nextYear }), 'birthDate'],
    [individual({ birthDate: '1850-01-01' }), 'birthDate'],
    [individual({ birthDate: 19900101 }), 'birthDate'],
    [individual({ nationality: 'USA' }), 'nationality'],
    [individual({ nationality: 'us' }), 'nationality'],
    [individual({ nationality: 'XX' }), 'nationality'],
    [individual({ nationality: 1 }), 'nationality'],
    [individual({ address: { postalCode: '1', country: 'US' } }), 'address.line1'],
    [individual({ address: { line1: 'x', country: 'US' } }), 'address.postalCode'],
    [individual({ address: { line1: 'x', postalCode: '1' } }), 'address.country'],
    [individual({ address: { line1: 'x', postalCode: '1', country: 'ZZ' } }), 'address.country'],
    [individual({ address: { line1: 7, postalCode: '1', country: 'US' } }), 'address.line1'],
    [individual({ address: { line1: 'x', postalCode: '1', country: 'US', city: ['a'] } }), 'address.city'],
    [individual({ address: '1 Main St' }), 'address'],
    [individual({ address: [] }), 'address'],
    [individual({ fullName: 42 }), 'fullName'],
    [individual({ fullName: '' }), 'fullName'],
    [individual({ fullName: 'x'.repeat(5000) }), 'fullName'],
    [individual({ platformCustomerId: 7 }), 'platformCustomerId'],
    [individual({ businessInfo: { legalName: 'Nope' } }), 'businessInfo'],
    [individual({ beneficialOwners: [] }), 'beneficialOwners'],
    [business({ fullName: 'Not For Business' }), 'fullName'],
    [business({ birthDate: '1990-01-01' }), 'birthDate'],
    [business({ nationality: 'US' }), 'nationality'],
  ];
  for (const [body, field] of cases) {
    const response = await post(body);
    expectError(response, 400, 'INVALID_INPUT', field);
  }
  assert.equal(await count('?isIncludingDeleted=true'), before);
  // Today and a date of a leap year are fine.
  const today = new Date().toISOString().slice(0, 10);
  expectStatus(await post(individual({ birthDate: today })), 201);
  expectStatus(await post(individual({ birthDate: '2000-02-29' })), 201);
});

test('GET /customers/{id}: unknown ids are 404 USER_NOT_FOUND', async () => {
  const real = await createCustomer(server, sandbox);
  // A real id followed by anything is another (unknown) id, even after a NUL.
  for (const suffix of ['x', '%00', '%00x', '%20']) {
    const response = await call(server, sandbox, 'GET', `${path(real.id)}${suffix}`);
    assert.equal(response.status, 404, `${suffix}: ${response.text}`);
  }
  for (const id of ['Customer:01900000-0000-7000-8000-000000000000', 'nope', 'Token:01900000-0000-7000-8000-000000000000']) {
    expectError(await call(server, sandbox, 'GET', path(id)), 404, 'USER_NOT_FOUND');
    expectError(await patchCustomer(id, { customerType: 'INDIVIDUAL' }), 404, 'USER_NOT_FOUND');
    expectError(await call(server, sandbox, 'DELETE', path(id)), 404, 'USER_NOT_FOUND');
  }
});

test('PATCH /customers/{id} updates fields; customerType is required and must match', async () => {
  const birthDate = pastYear(40);
  const created = await createCustomer(server, sandbox, { fullName: 'Before Name', birthDate, nationality: 'FR', address: fullAddress, platformCustomerId: 'patch-me' });
  await new Promise((resolve) => setTimeout(resolve, 5));
  expectError(await patchCustomer(created.id, { fullName: 'No Type' }), 400, 'INVALID_INPUT', 'customerType');
  expectError(await patchCustomer(created.id, { customerType: 'BUSINESS', businessInfo: { legalName: 'Wrong' } }), 400, 'INVALID_INPUT', 'customerType');
  expectError(await patchCustomer(created.id, { customerType: 'INDIVIDUAL', platformCustomerId: 'changed' }), 400, 'INVALID_INPUT', 'platformCustomerId');
  expectError(await patchCustomer(created.id, { customerType: 'INDIVIDUAL', birthDate: '2001-02-29' }), 400, 'INVALID_INPUT', 'birthDate');
  expectError(await patchCustomer(created.id, { customerType: 'INDIVIDUAL', businessInfo: { legalName: 'X' } }), 400, 'INVALID_INPUT', 'businessInfo');
  expectError(await patchCustomer(created.id, { customerType: 'INDIVIDUAL', address: { line1: 'only' } }), 400, 'INVALID_INPUT', 'address.postalCode');
  assert.deepEqual(await get(created.id), created, 'refused PATCHes changed the customer');

  const newAddress = { line1: '9 Rue de Rivoli', postalCode: '75001', country: 'FR' };
  const updated = expectStatus(await patchCustomer(created.id, { customerType: 'INDIVIDUAL', fullName: 'After Name', address: newAddress }), 200);
  assert.equal(updated.fullName, 'After Name');
  assert.deepEqual(updated.address, newAddress);
  assert.equal(updated.birthDate, birthDate);
  assert.equal(updated.nationality, 'FR');
  assert.equal(updated.platformCustomerId, 'patch-me');
  assert.equal(updated.umaAddress, created.umaAddress);
  assert.equal(updated.createdAt, created.createdAt);
  assert.ok(Date.parse(updated.updatedAt) > Date.parse(created.updatedAt));
  assert.deepEqual(await get(created.id), updated);

  const business = await createCustomer(server, sandbox, { customerType: 'BUSINESS', businessInfo: { legalName: 'Keep Me Ltd', registrationNumber: 'R1' } });
  expectError(await patchCustomer(business.id, { customerType: 'BUSINESS', fullName: 'Nope' }), 400, 'INVALID_INPUT', 'fullName');
  expectError(await patchCustomer(business.id, { customerType: 'INDIVIDUAL' }), 400, 'INVALID_INPUT', 'customerType');
  const taxed = expectStatus(await patchCustomer(business.id, { customerType: 'BUSINESS', businessInfo: { taxId: 'T-99' } }), 200);
  assert.equal(taxed.businessInfo.taxId, 'T-99');
  assert.equal(taxed.businessInfo.legalName, 'Keep Me Ltd', 'a partial businessInfo must not drop the legal name');
  assert.equal(taxed.businessInfo.registrationNumber, 'R1');
  const renamed = expectStatus(await patchCustomer(business.id, { customerType: 'BUSINESS', businessInfo: { legalName: 'New Name Ltd' } }), 200);
  assert.deepEqual(renamed.businessInfo, { legalName: 'New Name Ltd', registrationNumber: 'R1', taxId: 'T-99' });
  expectError(await patchCustomer(business.id, { customerType: 'BUSINESS', businessInfo: { legalName: '' } }), 400, 'INVALID_INPUT', 'businessInfo.legalName');
});

test('PATCH replaces the umaAddress, with the same rules as creation', async () => {
  const one = await createCustomer(server, sandbox, { umaAddress: `$patch-one@${domain}` });
  const two = await createCustomer(server, sandbox, { umaAddress: `$patch-two@${domain}` });
  const moved = expectStatus(await patchCustomer(one.id, { customerType: 'INDIVIDUAL', umaAddress: `$Patch-Moved@${domain}` }), 200);
  assert.equal(moved.umaAddress, `$patch-moved@${domain}`);
  assert.deepEqual(await listIds(`?umaAddress=${encodeURIComponent(`$patch-one@${domain}`)}`), []);
  assert.deepEqual(await listIds(`?umaAddress=${encodeURIComponent(`$patch-moved@${domain}`)}`), [one.id]);
  // The released address can be taken by someone else.
  const three = await createCustomer(server, sandbox, { umaAddress: `$patch-one@${domain}` });
  assert.equal(three.umaAddress, `$patch-one@${domain}`);

  expectError(await patchCustomer(one.id, { customerType: 'INDIVIDUAL', umaAddress: `$PATCH-TWO@${domain}`, fullName: 'Not Written' }), 409, 'UMA_ADDRESS_EXISTS');
  assert.ok(!('fullName' in await get(one.id)), 'a refused PATCH wrote its other fields');
  expectError(await patchCustomer(one.id, { customerType: 'INDIVIDUAL', umaAddress: '$patch-x@platform1.example.test' }), 400, 'INVALID_UMA_ADDRESS', 'umaAddress');
  expectError(await patchCustomer(one.id, { customerType: 'INDIVIDUAL', umaAddress: 'patch-x' }), 400, 'INVALID_UMA_ADDRESS', 'umaAddress');
  // Setting its own address again is no conflict.
  expectStatus(await patchCustomer(two.id, { customerType: 'INDIVIDUAL', umaAddress: two.umaAddress }), 200);
  assert.equal((await get(one.id)).umaAddress, `$patch-moved@${domain}`);
  assert.equal((await get(two.id)).umaAddress, `$patch-two@${domain}`);
});

test('DELETE is 200 with isDeleted, then 410 CUSTOMER_DELETED; deleted customers leave the lists', async () => {
  const doomed = await createCustomer(server, sandbox, { fullName: 'Doomed', platformCustomerId: 'doomed-1' });
  const listed = await count();
  const deleted = await call(server, sandbox, 'DELETE', path(doomed.id));
  const body = expectStatus(deleted, 200);
  assert.equal(body.id, doomed.id);
  assert.equal(body.isDeleted, true);
  assert.equal(body.fullName, 'Doomed');
  expectError(await call(server, sandbox, 'DELETE', path(doomed.id)), 410, 'CUSTOMER_DELETED');
  expectError(await patchCustomer(doomed.id, { customerType: 'INDIVIDUAL', fullName: 'Revived' }), 410, 'CUSTOMER_DELETED');
  assert.equal(await count(), listed - 1);
  assert.ok(!(await listIds('')).includes(doomed.id));
  assert.ok((await listIds('?isIncludingDeleted=true')).includes(doomed.id));
  assert.ok(!(await listIds('?isIncludingDeleted=false')).includes(doomed.id));
  const included = expectStatus(await call(server, sandbox, 'GET', '/customers?isIncludingDeleted=true&platformCustomerId=doomed-1'), 200);
  assert.equal(included.totalCount, 1);
  assert.equal(included.data[0].isDeleted, true);
  assert.equal(included.data[0].fullName, 'Doomed');
  assert.equal(await count('?platformCustomerId=doomed-1'), 0);
});

test('every list filter of GET /customers', async () => {
  const tag = `filter-${Date.now()}`;
  const made = [];
  for (let i = 0; i < 6; i++) {
    const fields = i % 2
      ? { customerType: 'BUSINESS', businessInfo: { legalName: `${tag} ${i}` } }
      : { customerType: 'INDIVIDUAL', fullName: `${tag} ${i}` };
    made.push(await createCustomer(server, sandbox, { ...fields, platformCustomerId: `${tag}-${i}`, umaAddress: `$${tag}-${i}@${domain}` }));
    await new Promise((resolve) => setTimeout(resolve, 3));
  }
  await new Promise((resolve) => setTimeout(resolve, 5));
  const touched = expectStatus(await patchCustomer(made[0].id, { customerType: 'INDIVIDUAL', fullName: `${tag} touched` }), 200);
  const gone = expectStatus(await call(server, sandbox, 'DELETE', path(made[5].id)), 200);

  const everyone = (await walkPages(server, sandbox, '/customers?isIncludingDeleted=true', 100)).items;
  const live = everyone.filter((c) => !c.isDeleted);
  const expect = (items, predicate) => items.filter(predicate).map((c) => c.id).sort();
  const q = encodeURIComponent;

  assert.deepEqual(await listIds(`?platformCustomerId=${tag}-2`), [made[2].id]);
  assert.deepEqual(await listIds(`?platformCustomerId=${tag}`), []);
  assert.deepEqual(await listIds(`?platformCustomerId=${tag}-5`), []);
  assert.deepEqual(await listIds(`?platformCustomerId=${tag}-5&isIncludingDeleted=true`), [made[5].id]);

  assert.deepEqual(await listIds('?customerType=BUSINESS'), expect(live, (c) => c.customerType === 'BUSINESS'));
  assert.deepEqual(await listIds('?customerType=INDIVIDUAL'), expect(live, (c) => c.customerType === 'INDIVIDUAL'));
  assert.deepEqual(await listIds('?customerType=BUSINESS&isIncludingDeleted=true'), expect(everyone, (c) => c.customerType === 'BUSINESS'));
  assert.ok((await listIds('?customerType=BUSINESS')).length > 0);

  assert.deepEqual(await listIds(`?umaAddress=${q(made[3].umaAddress)}`), [made[3].id]);
  assert.deepEqual(await listIds(`?umaAddress=${q(made[3].umaAddress.toUpperCase())}`), [made[3].id]);
  assert.deepEqual(await listIds(`?umaAddress=${q(`$nobody@${domain}`)}`), []);
  assert.deepEqual(await listIds(`?umaAddress=${q(made[5].umaAddress)}`), []);
  assert.deepEqual(await listIds(`?umaAddress=${q(made[5].umaAddress)}&isIncludingDeleted=true`), [made[5].id]);

  const pivot = made[2].createdAt;
  const at = Date.parse(pivot);
  assert.deepEqual(await listIds(`?createdAfter=${q(pivot)}`), expect(live, (c) => Date.parse(c.createdAt) >= at));
  assert.deepEqual(await listIds(`?createdBefore=${q(pivot)}`), expect(live, (c) => Date.parse(c.createdAt) <= at));
  assert.deepEqual(await listIds(`?createdAfter=${q(pivot)}&createdBefore=${q(pivot)}`), expect(live, (c) => c.createdAt === pivot));
  assert.ok((await listIds(`?createdAfter=${q(pivot)}&createdBefore=${q(pivot)}`)).includes(made[2].id));
  const justAfter = new Date(at + 1).toISOString();
  assert.ok(!(await listIds(`?createdAfter=${q(justAfter)}`)).includes(made[2].id));
  assert.deepEqual(await listIds(`?createdAfter=${q(pivot)}&isIncludingDeleted=true`), expect(everyone, (c) => Date.parse(c.createdAt) >= at));

  const touchedAt = Date.parse(touched.updatedAt);
  assert.deepEqual(await listIds(`?updatedAfter=${q(touched.updatedAt)}`), expect(live, (c) => Date.parse(c.updatedAt) >= touchedAt));
  assert.ok((await listIds(`?updatedAfter=${q(touched.updatedAt)}`)).includes(made[0].id));
  assert.ok(!(await listIds(`?createdAfter=${q(touched.updatedAt)}`)).includes(made[0].id));
  assert.deepEqual(await listIds(`?updatedBefore=${q(touched.updatedAt)}`), expect(live, (c) => Date.parse(c.updatedAt) <= touchedAt));
  assert.deepEqual(await listIds(`?updatedAfter=${q(gone.updatedAt)}&isIncludingDeleted=true`), expect(everyone, (c) => Date.parse(c.updatedAt) >= Date.parse(gone.updatedAt)));
  assert.ok((await listIds(`?updatedAfter=${q(gone.updatedAt)}&isIncludingDeleted=true`)).includes(made[5].id));

  // Combined filters.
  assert.deepEqual(await listIds(`?customerType=INDIVIDUAL&createdAfter=${q(made[1].createdAt)}&createdBefore=${q(made[4].createdAt)}`),
    expect(live, (c) => c.customerType === 'INDIVIDUAL' && Date.parse(c.createdAt) >= Date.parse(made[1].createdAt) && Date.parse(c.createdAt) <= Date.parse(made[4].createdAt)));

  // Bad filter values.
  for (const [query, field] of [['customerType=PERSON', 'customerType'], ['customerType=business', 'customerType'],
    ['isIncludingDeleted=yes', 'isIncludingDeleted'], ['isIncludingDeleted=1', 'isIncludingDeleted'],
    ['createdAfter=yesterday', 'createdAfter'], ['createdBefore=2025-02-30T00:00:00Z', 'createdBefore'],
    ['updatedAfter=1700000000', 'updatedAfter'], ['updatedBefore=2025-10-13T10:00', 'updatedBefore']]) {
    expectError(await call(server, sandbox, 'GET', `/customers?${query}`), 400, 'INVALID_INPUT', field);
  }
  expectError(await call(server, sandbox, 'GET', `/customers?umaAddress=${q('not-an-address')}`), 400, 'INVALID_UMA_ADDRESS', 'umaAddress');
});

test('GET /customers pages through 45 customers with limit 7: no duplicate, no gap', async () => {
  const created = await inBatches(45, 5, (i) => createCustomer(server, walker, i % 3 ? {} : { customerType: 'BUSINESS', businessInfo: { legalName: `Walk ${i}` } }));
  const ids = created.map((c) => c.id);
  const walk = await walkPages(server, walker, '/customers', 7);
  assertCompleteWalk(walk, ids);
  assert.equal(walk.totals.length, 7);
  assert.equal(walk.totals[0], 45);
  const businesses = created.filter((c) => c.customerType === 'BUSINESS').map((c) => c.id);
  const filtered = await walkPages(server, walker, '/customers?customerType=BUSINESS', 4);
  assertCompleteWalk(filtered, businesses);
  assert.equal(filtered.totals[0], 15);

  const first = expectStatus(await call(server, walker, 'GET', '/customers'), 200);
  assert.equal(first.data.length, 20);
  assert.equal(first.totalCount, 45);
  assert.equal(first.hasMore, true);

  for (const limit of ['0', '101', 'abc', '-3', '']) {
    expectError(await call(server, walker, 'GET', `/customers?limit=${limit}`), 400, 'INVALID_INPUT', 'limit');
  }
  for (const cursor of ['forged', Buffer.from('k1|Customer:\'--').toString('base64url'), '====']) {
    expectError(await call(server, walker, 'GET', `/customers?cursor=${encodeURIComponent(cursor)}`), 400, 'INVALID_INPUT', 'cursor');
  }
});

test('concurrent creates racing for one umaAddress: exactly one wins', async () => {
  for (const [label, body] of [
    ['address', (i) => ({ customerType: 'INDIVIDUAL', umaAddress: i % 2 ? `$Race@${domain}` : `$race@${domain}`, fullName: `racer ${i}` })],
    ['platformCustomerId', (i) => ({ customerType: 'INDIVIDUAL', platformCustomerId: 'race-id', fullName: `racer ${i}` })],
  ]) {
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => post(body(i))));
    const statuses = responses.map((r) => r.status).sort();
    assert.equal(statuses.filter((s) => s === 201).length, 1, `${label}: ${statuses.join(',')} ${responses.find((r) => r.status >= 500)?.text ?? ''}`);
    for (const response of responses.filter((r) => r.status !== 201)) {
      expectError(response, 409, label === 'address' ? 'UMA_ADDRESS_EXISTS' : 'PLATFORM_CUSTOMER_ID_EXISTS');
    }
  }
  const byAddress = expectStatus(await call(server, sandbox, 'GET', `/customers?umaAddress=${encodeURIComponent(`$race@${domain}`)}`), 200);
  assert.equal(byAddress.totalCount, 1);
  assert.equal(byAddress.data.length, 1);
  assert.equal(await count('?platformCustomerId=race-id'), 1);

  // PATCHes racing to take one address.
  const contenders = await inBatches(10, 5, () => createCustomer(server, sandbox));
  const patched = await Promise.all(contenders.map((c) => patchCustomer(c.id, { customerType: 'INDIVIDUAL', umaAddress: `$patch-race@${domain}` })));
  assert.equal(patched.filter((r) => r.status === 200).length, 1, patched.map((r) => r.status).join(','));
  for (const response of patched.filter((r) => r.status !== 200)) expectError(response, 409, 'UMA_ADDRESS_EXISTS');
  assert.equal(await count(`?umaAddress=${encodeURIComponent(`$patch-race@${domain}`)}`), 1);
});

test('concurrent DELETEs of one customer: exactly one 200, the rest 410; no PATCH lands after it', async () => {
  for (let round = 0; round < 3; round++) {
    const target = await createCustomer(server, sandbox, { fullName: 'Before' });
    const deletes = await Promise.all(Array.from({ length: 10 }, () => call(server, sandbox, 'DELETE', path(target.id))));
    assert.equal(deletes.filter((r) => r.status === 200).length, 1, deletes.map((r) => r.status).join(','));
    for (const response of deletes.filter((r) => r.status !== 200)) expectError(response, 410, 'CUSTOMER_DELETED');

    // DELETE and PATCH racing: whatever PATCH answered 200 happened before the one DELETE, so the
    // deleted customer carries the name of one of them or the original one, and later ones are 410.
    const mixed = await createCustomer(server, sandbox, { fullName: 'Before' });
    const requests = Array.from({ length: 10 }, (_, i) => (i % 2
      ? call(server, sandbox, 'DELETE', path(mixed.id))
      : patchCustomer(mixed.id, { customerType: 'INDIVIDUAL', fullName: `After ${i}` })));
    const answers = await Promise.all(requests);
    const deleted = answers.filter((r, i) => i % 2 && r.status === 200);
    assert.equal(deleted.length, 1, answers.map((r) => r.status).join(','));
    for (const response of answers.filter((r) => r.status !== 200)) expectError(response, 410, 'CUSTOMER_DELETED');
    const final = (await walkPages(server, sandbox, `/customers?isIncludingDeleted=true&umaAddress=${encodeURIComponent(mixed.umaAddress)}`, 10)).items;
    assert.equal(final.length, 1);
    assert.equal(final[0].isDeleted, true);
    assert.equal(final[0].fullName, deleted[0].body.fullName, 'a PATCH changed the customer after its deletion');
  }
});

// Every field of the customer bodies is type-checked before the customer type picks the ones that
// apply: the wrong type is named as such, for POST and PATCH alike, and nothing is written.
test('every defined customer field of the wrong type is 400 naming it, on POST and PATCH', async () => {
  const wrong = [
    ['platformCustomerId', 5], ['customerType', 1], ['umaAddress', 42], ['fullName', ['x']],
    ['birthDate', 19900101], ['nationality', 1], ['address', 'Main St'], ['address.line1', 1],
    ['address.line2', 1], ['address.city', 1], ['address.state', 1], ['address.postalCode', 62701],
    ['address.country', 1], ['businessInfo', 'Acme'], ['businessInfo.legalName', 1],
    ['businessInfo.registrationNumber', 1], ['businessInfo.taxId', 1], ['beneficialOwners', {}],
    ['beneficialOwners[0]', 'owner'], ['beneficialOwners[0].fullName', 1],
    ['beneficialOwners[0].percentageOwnership', '50'], ['beneficialOwners[0].address.city', 2],
  ];
  const set = (body, path, value) => {
    const keys = path.replace(/\[(\d+)\]/g, '.$1').split('.');
    let at = body;
    for (const key of keys.slice(0, -1)) {
      if (at[key] === undefined) at[key] = /^\d+$/.test(keys[keys.indexOf(key) + 1]) ? [] : {};
      at = at[key];
    }
    at[keys.at(-1)] = value;
    return body;
  };
  const owner = () => ({ fullName: 'Olga Owner', individualType: 'DIRECTOR', address: { ...fullAddress } });
  const existing = expectStatus(await post({ customerType: 'INDIVIDUAL', fullName: 'Typed Person' }), 201);
  const before = await count('?isIncludingDeleted=true');
  for (const [path, value] of wrong) {
    // An INDIVIDUAL body: the business fields do not apply to it, and are still checked.
    const body = () => set({ customerType: 'INDIVIDUAL', fullName: 'Typed', address: { ...fullAddress },
      businessInfo: { legalName: 'Acme' }, beneficialOwners: [owner()] }, path, value);
    const created = await post(body());
    expectError(created, 400, 'INVALID_INPUT', path);
    assert.ok(created.body.message.startsWith(`${path}: must be`), created.text);
    const patched = await patchCustomer(existing.id, body());
    expectError(patched, 400, 'INVALID_INPUT', path);
    assert.ok(patched.body.message.startsWith(`${path}: must be`), patched.text);
  }
  assert.equal(await count('?isIncludingDeleted=true'), before);
  assert.equal((await get(existing.id)).fullName, 'Typed Person');
});
