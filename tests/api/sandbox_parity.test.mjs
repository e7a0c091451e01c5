// Sandbox parity: the sandbox accepts an operation only if production would, with the same loaded
// rails. The expected answer of every case comes from the rails the server reports it loaded
// (`corridor plugins list --json`: account types and capabilities), and the sandbox's answer is
// compared with production's for the same request: accepted in both, or refused in both with the
// same status, code, field and message. Directions: transfer-out (payout), transfer-in (pull) and a
// quote to an external account (a payout through the rails). With the simulator as the only rail,
// the interface's rule governs: payouts to every account type, pulls only from a US_ACCOUNT.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCorridor, stopCorridor, call, runCli } from './lib/harness.mjs';
import { platformAccounts, fund, quoteBody, idempotencyKey, eventually } from './lib/money.mjs';

const beneficiary = { beneficiaryType: 'INDIVIDUAL', fullName: 'Parity Payee', birthDate: '1990-04-01', nationality: 'US' };

// One account of each interface account type the shipped rails and the simulator know.
const accounts = [
  ['US_ACCOUNT', 'USD', { accountNumber: '123456789', routingNumber: '021000021', accountCategory: 'CHECKING' }],
  ['PIX', 'BRL', { pixKeyType: 'EMAIL', pixKey: 'fulano@example.com.br', taxId: '52998224725' }],
  ['IBAN', 'EUR', { iban: 'DE89370400440532013000', swiftBic: 'DEUTDEFF' }],
  ['CLABE', 'MXN', { clabeNumber: '032180000118359719' }],
  ['UPI', 'INR', { vpa: '9876543210@paytm' }],
  ['USD_ACCOUNT', 'USD', { accountNumber: '99887766', routingNumber: '011000015', accountCategory: 'SAVINGS' }],
];

// What production accepts per the loaded rails: some rail other than the simulator serves the
// type with the capability. With no such rail loaded, production takes nothing and the sandbox
// follows the interface's rule instead.
function capabilityTable(server) {
  const listed = JSON.parse(runCli(server, ['plugins', 'list', '--json']));
  const real = listed.rails.filter((rail) => rail.name !== 'sandbox' && !rail.error);
  const production = (type, capability) =>
    real.some((rail) => rail.accountTypes.includes(type) && rail.capabilities.includes(capability));
  const interfaceRule = (type, capability) => capability === 'PAYOUT' || type === 'US_ACCOUNT';
  return {
    realRails: real.length,
    production,
    sandbox: (type, capability) =>
      real.length > 0 ? production(type, capability) : interfaceRule(type, capability),
  };
}

async function activeAccount(server, credentials, type, currency, info) {
  const response = await call(server, credentials, 'POST', '/platform/external-accounts', {
    currency, accountInfo: { accountType: type, ...info, beneficiary },
  });
  assert.equal(response.status, 201, `${type}: ${response.text}`);
  return eventually(async () => {
    const found = await call(server, credentials, 'GET', `/platform/external-accounts/${response.body.id}`);
    return found.body?.status === 'ACTIVE' ? found.body : null;
  });
}

// A refusal without the ids that differ between the environments.
function refusal(response) {
  const message = (response.body?.message ?? '').replace(/ExternalAccount:[0-9a-f-]+/g, 'ExternalAccount:*');
  return { status: response.status, code: response.body?.code, field: response.body?.details?.field, message };
}

// Per environment: its platform internal accounts and one external account per type.
async function setUp(server, environment) {
  const credentials = server.platforms[0][environment];
  const internal = await platformAccounts(server, credentials);
  const external = {};
  for (const [type, currency, info] of accounts) {
    external[type] = await activeAccount(server, credentials, type, currency, info);
  }
  return { credentials, internal, external };
}

const operations = {
  // A payout from the internal account of the same currency.
  async payout(server, env, type, currency) {
    return call(server, env.credentials, 'POST', '/transfer-out', {
      source: { accountId: env.internal[currency].id },
      destination: { accountId: env.external[type].id },
      amount: 1000,
    }, { 'idempotency-key': idempotencyKey() });
  },
  // A pull into the internal account of the same currency.
  async pull(server, env, type, currency) {
    return call(server, env.credentials, 'POST', '/transfer-in', {
      source: { accountId: env.external[type].id },
      destination: { accountId: env.internal[currency].id },
      amount: 1000,
    }, { 'idempotency-key': idempotencyKey() });
  },
  // A cross-currency quote paying out to the external account.
  async quote(server, env, type, currency) {
    const from = currency === 'USD' ? 'EUR' : 'USD';
    return call(server, env.credentials, 'POST', '/quotes',
      quoteBody(env.internal[from].id, env.external[type].id, 10000), { 'idempotency-key': idempotencyKey() });
  },
};
const capabilityOf = { payout: 'PAYOUT', pull: 'PULL', quote: 'PAYOUT' };
const acceptedStatus = { payout: 201, pull: 201, quote: 201 };
const fieldOf = { payout: 'destination.accountId', pull: 'source.accountId', quote: 'destination.accountId' };

// Runs every case on one server: the same request in production and in the sandbox.
function parityCases(label, options) {
  describe(label, () => {
    let server;
    let table;
    let production;
    let sandbox;
    before(async () => {
      server = await startCorridor({
        platforms: 1,
        config: { external_accounts: { screening_delay_ms: 50 }, rails: { drive_interval_ms: 20 } },
        ...options,
      });
      table = capabilityTable(server);
      production = await setUp(server, 'production');
      sandbox = await setUp(server, 'sandbox');
      // Funded sandbox sources, so an accepted payout is a created transaction; production's
      // sources stay empty, so there an accepted payout stops at the balance (which comes after
      // the rail checks).
      for (const account of Object.values(sandbox.internal)) await fund(server, sandbox.credentials, account.id, 10_000_000);
    });
    after(async () => { if (server) await stopCorridor(server); });

    for (const [type, currency] of accounts) {
      for (const operation of Object.keys(operations)) {
        test(`${operation} with ${type}`, async () => {
          const capability = capabilityOf[operation];
          const allowedInSandbox = table.sandbox(type, capability);
          const allowedInProduction = table.production(type, capability);
          const inProduction = await operations[operation](server, production, type, currency);
          const inSandbox = await operations[operation](server, sandbox, type, currency);

          if (allowedInSandbox) {
            assert.equal(inSandbox.status, acceptedStatus[operation], inSandbox.text);
          } else {
            assert.equal(inSandbox.status, 400, inSandbox.text);
            assert.equal(inSandbox.body.code, 'INVALID_INPUT');
            assert.equal(inSandbox.body.details.field, fieldOf[operation]);
            assert.ok(inSandbox.body.message.includes(type), inSandbox.body.message);
          }
          // Production's answer is the rails' own: accepted (or stopped only by the empty
          // balance), or refused naming the external account's field.
          const productionRefusedByRails =
            inProduction.status === 400 && inProduction.body.details?.field === fieldOf[operation];
          assert.equal(productionRefusedByRails, !allowedInProduction, inProduction.text);
          if (table.realRails > 0) {
            // With real rails loaded the sandbox answers exactly as production does.
            assert.equal(allowedInSandbox, allowedInProduction);
            if (!allowedInSandbox) assert.deepEqual(refusal(inSandbox), refusal(inProduction));
          }
        });
      }
    }
  });
}

parityCases('with the shipped rails (sandbox, ach, pix, spark)', {});
parityCases('with the simulator alone (the default installation)', { plugins: { rails: ['sandbox'] } });

test('the IBAN pull of the issue is refused in both environments with the shipped rails', async () => {
  const server = await startCorridor({
    platforms: 1,
    config: { external_accounts: { screening_delay_ms: 50 } },
  });
  try {
    const answers = [];
    for (const environment of ['production', 'sandbox']) {
      const credentials = server.platforms[0][environment];
      const eur = (await platformAccounts(server, credentials)).EUR;
      const iban = await activeAccount(server, credentials, 'IBAN', 'EUR', accounts[2][2]);
      const response = await call(server, credentials, 'POST', '/transfer-in', {
        source: { accountId: iban.id }, destination: { accountId: eur.id }, amount: 1000,
      });
      assert.equal(response.status, 400, response.text);
      assert.equal(response.body.code, 'INVALID_INPUT');
      assert.equal(response.body.details.field, 'source.accountId');
      assert.match(response.body.message, /IBAN/);
      answers.push(refusal(response));
      const listed = await call(server, credentials, 'GET', '/transactions?limit=1');
      assert.equal(listed.body.totalCount, 0, 'a refused pull writes nothing');
    }
    assert.deepEqual(answers[1], answers[0]);
  } finally {
    await stopCorridor(server);
  }
});
