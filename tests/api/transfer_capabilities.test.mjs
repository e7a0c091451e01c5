// Rails declare what they can do (rail ABI 1.1 capabilities). In production PIX is served by the
// pix rail, which cannot pull: POST /transfer-in from a PIX account is refused up front with 400
// naming source.accountId and pointing to the funding instructions. The sandbox never widens what
// production allows (sandbox parity): the same request in the sandbox is refused the same way,
// although the simulator itself could pull. External account creation asks the rail serving the
// account type to check the details by its own rules, in the sandbox the rail production would use.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCorridor, stopCorridor, call } from './lib/harness.mjs';
import { expectError } from './lib/expect.mjs';
import { platformAccounts, eventually } from './lib/money.mjs';

let server;

const pixSettings = {
  ispb: '12345678', pix_key: '11222333000181', pix_key_type: 'CNPJ', tax_id: '11222333000181',
  merchant_name: 'CORRIDOR TEST', merchant_city: 'SAO PAULO',
};

before(async () => {
  server = await startCorridor({
    platforms: 1,
    config: {
      external_accounts: { screening_delay_ms: 100 },
      rails: { drive_interval_ms: 20 },
    },
    plugins: { rails: ['sandbox', 'pix'], settings: { pix: pixSettings } },
  });
});
after(async () => { if (server) await stopCorridor(server); });

async function activePix(credentials) {
  const response = await call(server, credentials, 'POST', '/platform/external-accounts', {
    currency: 'BRL',
    accountInfo: {
      accountType: 'PIX', pixKeyType: 'EMAIL', pixKey: 'fulano@example.com.br', taxId: '52998224725',
      beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Fulano de Tal', birthDate: '1990-04-01', nationality: 'BR' },
    },
  });
  assert.equal(response.status, 201, response.text);
  return eventually(async () => {
    const found = await call(server, credentials, 'GET', `/platform/external-accounts/${response.body.id}`);
    return found.body?.status === 'ACTIVE' ? found.body : null;
  });
}

test('a production transfer-in from a PIX account is refused: the pix rail cannot pull', async () => {
  const production = server.platforms[0].production;
  const external = await activePix(production);
  const brl = (await platformAccounts(server, production)).BRL;
  const response = await call(server, production, 'POST', '/transfer-in', {
    source: { accountId: external.id }, destination: { accountId: brl.id }, amount: 1000,
  });
  expectError(response, 400, 'INVALID_INPUT', 'source.accountId');
  assert.match(response.body.message, /cannot be pulled/);
  assert.match(response.body.message, /fundingPaymentInstructions/);
  const listed = await call(server, production, 'GET', '/transactions?limit=1');
  assert.equal(listed.body.totalCount, 0);
});

test('the sandbox refuses the same pull as production: the simulator does not widen it', async () => {
  const sandbox = server.platforms[0].sandbox;
  const external = await activePix(sandbox);
  const brl = (await platformAccounts(server, sandbox)).BRL;
  const response = await call(server, sandbox, 'POST', '/transfer-in', {
    source: { accountId: external.id }, destination: { accountId: brl.id }, amount: 1000,
  });
  expectError(response, 400, 'INVALID_INPUT', 'source.accountId');
  assert.match(response.body.message, /cannot be pulled from PIX accounts \(rail pix has no pull\)/);
  const listed = await call(server, sandbox, 'GET', '/transactions?limit=1');
  assert.equal(listed.body.totalCount, 0);
});

test('external account creation asks the rail serving the type: pix refuses a CPF key of another holder', async () => {
  const production = server.platforms[0].production;
  const body = {
    currency: 'BRL',
    accountInfo: {
      accountType: 'PIX', pixKeyType: 'CPF', pixKey: '52998224725', taxId: '11144477735',
      beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Beltrano Silva', birthDate: '1985-02-03', nationality: 'BR' },
    },
  };
  const before = (await call(server, production, 'GET', '/platform/external-accounts')).body.totalCount;
  const refused = await call(server, production, 'POST', '/platform/external-accounts', body);
  expectError(refused, 400, 'INVALID_BANK_ACCOUNT', 'accountInfo.pixKey');
  assert.match(refused.body.message, /rail pix/);
  assert.equal((await call(server, production, 'GET', '/platform/external-accounts')).body.totalCount, before);
  // The same key with its own holder's taxId is accepted.
  const accepted = await call(server, production, 'POST', '/platform/external-accounts', {
    ...body, accountInfo: { ...body.accountInfo, taxId: '52998224725' },
  });
  assert.equal(accepted.status, 201, accepted.text);
  // The sandbox applies the rule of the rail production would use, not the simulator's looser one.
  const sandbox = await call(server, server.platforms[0].sandbox, 'POST', '/platform/external-accounts', body);
  expectError(sandbox, 400, 'INVALID_BANK_ACCOUNT', 'accountInfo.pixKey');
  assert.equal(sandbox.body.message, refused.body.message);
});
