// Our NACHA files parsed by `@ach/ach`, and checked by a strict checker written here, because
// @ach/ach checks neither hashes nor totals nor blocking.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { runTool } from './lib/formats_tool.mjs';

const require = createRequire(import.meta.url);
const ach = require('@ach/ach')();

function parseWithAch(text) {
  return new Promise((resolve, reject) => {
    const parser = ach.getParser('ach');
    parser.on('data', resolve);
    parser.on('error', reject);
    Readable.from([text]).pipe(parser);
  });
}

function routingValid(routing) {
  const weights = [3, 7, 1, 3, 7, 1, 3, 7, 1];
  if (!/^[0-9]{9}$/.test(routing)) return false;
  const sum = [...routing].reduce((total, digit, i) => total + Number(digit) * weights[i], 0);
  return sum % 10 === 0;
}

// Recomputes every control from the raw lines and returns what it found.
function strictCheck(text) {
  const lines = text.split('\n');
  assert.equal(lines.pop(), '', 'the file ends with a newline');
  for (const [i, line] of lines.entries()) assert.equal(line.length, 94, `line ${i + 1} length`);
  assert.equal(lines.length % 10, 0, 'blocking factor 10');
  const field = (line, first, last) => line.slice(first - 1, last);
  const number = (line, first, last) => {
    const text = field(line, first, last);
    assert.match(text, /^[0-9]+$/, `numeric field ${first}-${last} of ${line}`);
    return BigInt(text);
  };
  assert.equal(lines[0][0], '1');
  assert.equal(field(lines[0], 35, 40), '094101');
  const traces = new Set();
  const file = { batches: 0, records: 0n, hash: 0n, debit: 0n, credit: 0n };
  let i = 1;
  while (lines[i][0] === '5') {
    const header = lines[i++];
    const serviceClass = field(header, 2, 4);
    const batch = { records: 0n, hash: 0n, debit: 0n, credit: 0n };
    while (lines[i][0] === '6') {
      const entry = lines[i++];
      const code = Number(field(entry, 2, 3));
      assert.ok([22, 27, 32, 37].includes(code), `transaction code ${code}`);
      assert.ok(routingValid(field(entry, 4, 12)), `routing ${field(entry, 4, 12)}`);
      const amount = number(entry, 30, 39);
      assert.ok(amount > 0n);
      if (code % 10 <= 4) batch.credit += amount;
      else batch.debit += amount;
      if (serviceClass === '220') assert.ok(code % 10 <= 4, 'credits-only batch');
      if (serviceClass === '225') assert.ok(code % 10 > 4, 'debits-only batch');
      batch.hash += BigInt(field(entry, 4, 11));
      batch.records += 1n;
      const trace = field(entry, 80, 94);
      assert.ok(!traces.has(trace), `trace ${trace} is unique`);
      traces.add(trace);
      assert.equal(field(trace, 1, 8), field(header, 80, 87), 'trace starts with the ODFI');
      if (entry[78] === '1') {
        const addenda = lines[i++];
        assert.equal(field(addenda, 1, 3), '705');
        assert.equal(field(addenda, 88, 94), field(trace, 9, 15), 'addenda points at its entry');
        batch.records += 1n;
      }
    }
    const control = lines[i++];
    assert.equal(control[0], '8');
    assert.equal(field(control, 2, 4), serviceClass);
    assert.equal(number(control, 5, 10), batch.records, 'batch entry/addenda count');
    assert.equal(number(control, 11, 20), batch.hash % 10000000000n, 'batch entry hash');
    assert.equal(number(control, 21, 32), batch.debit, 'batch debit total');
    assert.equal(number(control, 33, 44), batch.credit, 'batch credit total');
    assert.equal(field(control, 88, 94), field(header, 88, 94), 'batch number');
    file.batches += 1;
    file.records += batch.records;
    file.hash = (file.hash + (batch.hash % 10000000000n)) % 10000000000n;
    file.debit += batch.debit;
    file.credit += batch.credit;
  }
  const control = lines[i++];
  assert.equal(control[0], '9');
  assert.equal(Number(field(control, 2, 7)), file.batches, 'file batch count');
  assert.equal(Number(field(control, 8, 13)), lines.length / 10, 'block count');
  assert.equal(number(control, 14, 21), file.records, 'file entry/addenda count');
  assert.equal(number(control, 22, 31), file.hash, 'file entry hash');
  assert.equal(number(control, 32, 43), file.debit, 'file debit total');
  assert.equal(number(control, 44, 55), file.credit, 'file credit total');
  for (; i < lines.length; i++) assert.equal(lines[i], '9'.repeat(94), 'filler');
  return { ...file, entries: traces.size };
}

for (const size of [1, 9, 40, 1000]) {
  test(`a NACHA file of ${size} mixed entries passes the strict check and @ach/ach agrees`, async () => {
    const text = runTool(['nacha-sample', String(size)]);
    const ours = strictCheck(text);
    assert.equal(ours.entries, size);
    const parsed = await parseWithAch(text);
    const footer = parsed.file.footer;
    assert.equal(parsed.batches.length, ours.batches);
    assert.equal(footer.batchCount, ours.batches);
    assert.equal(BigInt(footer.entryHash), ours.hash);
    assert.equal(BigInt(footer.totalDebit), ours.debit);
    assert.equal(BigInt(footer.totalCredit), ours.credit);
    assert.equal(BigInt(footer.entryAndAddendaCount), ours.records);
    let entries = 0;
    let debit = 0n;
    let credit = 0n;
    for (const batch of parsed.batches) {
      assert.ok(['PPD', 'CCD', 'WEB'].includes(batch.entryClassCode));
      for (const entry of batch.entries) {
        entries++;
        const code = Number(entry.transactionCode);
        if (code % 10 <= 4) credit += BigInt(entry.amount);
        else debit += BigInt(entry.amount);
        if (batch.entryClassCode === 'WEB') assert.ok(['S', 'R'].includes(entry.paymentTypeCode));
      }
    }
    assert.equal(entries, size);
    assert.equal(debit, ours.debit);
    assert.equal(credit, ours.credit);
    if (size >= 40) assert.ok(ours.debit > 0n && ours.credit > 0n, 'credits and debits mixed');
  });
}

test('the strict checker is not a rubber stamp: it catches a changed amount', () => {
  const text = runTool(['nacha-sample', '9']);
  const lines = text.split('\n');
  const at = lines.findIndex((line) => line[0] === '6');
  lines[at] = lines[at].slice(0, 38) + (lines[at][38] === '9' ? '8' : '9') + lines[at].slice(39);
  assert.throws(() => strictCheck(lines.join('\n')), /total/);
});
