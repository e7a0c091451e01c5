// Table-driven wrong-type checks of a request body: each case puts one value of the wrong JSON type
// at one field path of a valid body ("amount", "source.accountId", "supportedCurrencies[0].minAmount")
// and expects the uniform refusal: 400 INVALID_INPUT, details.field the path, a message starting
// with "<path>: must be".
import assert from 'node:assert/strict';
import { assertErrorShape } from './expect.mjs';

// A copy of `body` with `value` at `path`; the objects and arrays along the path must exist.
export function withValue(body, path, value) {
  const copy = structuredClone(body);
  const steps = path.match(/[^.[\]]+/g).map((step) => (/^\d+$/.test(step) ? Number(step) : step));
  let target = copy;
  for (const step of steps.slice(0, -1)) target = target[step];
  target[steps.at(-1)] = value;
  return copy;
}

// send(body) -> response of the harness's call(); cases: [[path, value], ...].
export async function expectWrongTypes(send, valid, cases) {
  for (const [path, value] of cases) {
    const response = await send(withValue(valid, path, value));
    const where = `${path}=${JSON.stringify(value)}: ${response.status} ${response.text}`;
    assert.equal(response.status, 400, where);
    assertErrorShape(response);
    assert.equal(response.body.code, 'INVALID_INPUT', where);
    assert.equal(response.body.details.field, path, where);
    assert.ok(response.body.message.startsWith(`${path}: must be`), where);
  }
}
