// The OpenAPI lint (ctest openapi_lint): api/openapi.json is a valid OpenAPI 3.1 document by a
// third-party validator working offline from the official schema, every $ref resolves, and the
// committed file is what api/generate.mjs writes (so the two never drift apart).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const file = join(root, 'api', 'openapi.json');
const committed = readFileSync(file, 'utf8');
const document = JSON.parse(committed);
let failed = false;

const validator = new Validator();
const result = await validator.validate(document);
if (document.openapi !== '3.1.0' || validator.version !== '3.1') {
  console.error(`expected an OpenAPI 3.1 document, got ${document.openapi} (validated as ${validator.version})`);
  failed = true;
}
if (!result.valid) {
  console.error('api/openapi.json is not a valid OpenAPI 3.1 document:');
  console.error(JSON.stringify(result.errors, null, 2));
  failed = true;
}

// Every local $ref points at something.
const unresolved = [];
(function walk(node, where) {
  if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${where}/${i}`));
  if (!node || typeof node !== 'object') return;
  if (typeof node.$ref === 'string') {
    let target = document;
    for (const part of node.$ref.replace(/^#\//, '').split('/')) target = target?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (target === undefined) unresolved.push(`${where}: ${node.$ref}`);
  }
  for (const [key, value] of Object.entries(node)) walk(value, `${where}/${key}`);
})(document, '#');
if (unresolved.length) {
  console.error(`unresolved $ref:\n${unresolved.join('\n')}`);
  failed = true;
}

const { text } = await import(join(root, 'api', 'generate.mjs'));
if (text !== committed) {
  console.error('api/openapi.json differs from what api/generate.mjs writes: run `node api/generate.mjs`');
  failed = true;
}

const operations = Object.values(document.paths).reduce((n, item) => n + Object.keys(item).length, 0);
console.log(`${failed ? 0 : 1} passed, ${failed ? 1 : 0} failed: api/openapi.json (${operations} operations, ${Object.keys(document.webhooks).length} webhooks)`);
process.exit(failed ? 1 : 0);
