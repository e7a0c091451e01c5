// Our CPF/CNPJ verdicts compared with `cpf-cnpj-validator` on generated valid and invalid numbers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpf, cnpj } from 'cpf-cnpj-validator';
import { runToolLines } from './lib/formats_tool.mjs';

// Deterministic pseudo-random numbers (a linear congruential generator) so failures reproduce.
function generator(seed) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function mutate(text, random) {
  const at = Math.floor(random() * text.length);
  const digit = Number.isNaN(Number(text[at])) ? 0 : Number(text[at]);
  return text.slice(0, at) + String((digit + 1 + Math.floor(random() * 9)) % 10) + text.slice(at + 1);
}

function randomDigits(count, random) {
  let out = '';
  for (let i = 0; i < count; i++) out += String(Math.floor(random() * 10));
  return out;
}

test('CPF and CNPJ verdicts agree with cpf-cnpj-validator', () => {
  const random = generator(20260310);
  const inputs = [];
  for (let i = 0; i < 300; i++) {
    const validCpf = cpf.generate();
    const validCnpj = cnpj.generate();  // alphanumeric CNPJs included
    inputs.push(validCpf, validCnpj, mutate(validCpf, random), mutate(validCnpj, random));
    inputs.push(randomDigits(11, random), randomDigits(14, random));
  }
  inputs.push('11111111111', '00000000000', '11111111111111', '12ABC34501DE35', '12ABC34501DE36');
  const verdicts = runToolLines(['tax-id-check'], inputs);
  assert.equal(verdicts.length, inputs.length);
  let valid = 0;
  let invalid = 0;
  for (const [i, verdict] of verdicts.entries()) {
    const input = inputs[i];
    assert.equal(verdict.input, input);
    const theirs = input.length === 11 ? cpf.isValid(input) : cnpj.isValid(input);
    assert.equal(verdict.valid, theirs, `${input}: ours ${verdict.valid} (${verdict.code}), theirs ${theirs}`);
    if (theirs) valid++;
    else invalid++;
  }
  assert.ok(valid >= 600 && invalid >= 600, `valid ${valid}, invalid ${invalid}`);
});

test('the one documented difference: the library blacklists 12345678909', () => {
  const [verdict] = runToolLines(['tax-id-check'], ['12345678909']);
  assert.equal(verdict.valid, true);  // its check digits are right
  assert.equal(cpf.isValid('12345678909'), false);
});
