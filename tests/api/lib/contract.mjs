// The published contract, enforced: every response a suite receives from Corridor's public
// listener is checked against api/openapi.json. The path and method must be in the document, the
// status documented for them, the body must match the schema of that status and media type, and
// the headers the document lists must be there (and match) where it says they are required. A
// response the document does not describe throws, naming the route, the status and the first
// schema error, so the test that received it fails.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const documentPath = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'api', 'openapi.json');
export const openapi = JSON.parse(readFileSync(documentPath, 'utf8'));

// Clients must ignore fields they do not know, so the document leaves its objects open; the suites
// are stricter: a field the document does not name fails, so that the document names every field
// Corridor sends. Each object schema that does not say otherwise gets unevaluatedProperties:
// false, at the level where all its parts are seen (a composition, not its members).
function closeObjects(components, paths, webhooks) {
  const members = new Set();  // component schemas used as parts of a composition
  const visit = (node, fn, member = false) => {
    if (!node || typeof node !== 'object' || Array.isArray(node)) return;
    fn(node, member);
    for (const key of ['allOf', 'oneOf', 'anyOf']) for (const part of node[key] || []) visit(part, fn, true);
    for (const value of Object.values(node.properties || {})) visit(value, fn);
    if (node.items) visit(node.items, fn);
    if (typeof node.additionalProperties === 'object') visit(node.additionalProperties, fn);
  };
  const schemas = [...Object.values(components.schemas)];
  const mediaSchemas = (content) => Object.values(content || {}).map((media) => media.schema).filter(Boolean);
  for (const item of [...Object.values(paths), ...Object.values(webhooks)]) {
    for (const operation of Object.values(item)) {
      for (const response of Object.values(operation.responses || {})) schemas.push(...mediaSchemas(response.content));
      schemas.push(...mediaSchemas(operation.requestBody?.content));
    }
  }
  for (const response of Object.values(components.responses)) schemas.push(...mediaSchemas(response.content));
  for (const schema of schemas) {
    visit(schema, (node, member) => {
      if (!member) return;
      if (node.$ref) members.add(node.$ref);
    });
  }
  const close = (node) => {
    // A direct use of a schema that is elsewhere a part: closed here, where it is whole.
    if (node.$ref && members.has(node.$ref) && Object.keys(node).length === 1) {
      node.allOf = [{ $ref: node.$ref }];
      delete node.$ref;
      node.unevaluatedProperties = false;
      return;
    }
    if ('additionalProperties' in node || 'unevaluatedProperties' in node) return;
    const composite = node.allOf || node.oneOf || node.anyOf;
    if (composite || node.properties) node.unevaluatedProperties = false;
  };
  for (const [name, schema] of Object.entries(components.schemas)) {
    const memberOfSomething = members.has(`#/components/schemas/${name}`);
    visit(schema, (node, member) => { if (!member && !(node === schema && memberOfSomething)) close(node); });
  }
  for (const schema of schemas.slice(Object.keys(components.schemas).length)) {
    visit(schema, (node, member) => { if (!member) close(node); });
  }
}

const ROOT = 'https://corridor.invalid/openapi.json';
const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
addFormats(ajv);
const closed = structuredClone({ components: openapi.components, paths: openapi.paths, webhooks: openapi.webhooks || {} });
closeObjects(closed.components, closed.paths, closed.webhooks);
// The document as one schema resource, so every '#/components/...' reference resolves in it.
ajv.addSchema({ $id: ROOT, ...closed });

const pointer = (parts) => '#/' + parts.map((p) => String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
const compiled = new Map();
function validatorAt(parts) {
  const key = pointer(parts);
  if (!compiled.has(key)) compiled.set(key, ajv.compile({ $ref: `${ROOT}${key}` }));
  return compiled.get(key);
}

// Follows a local $ref (responses, headers) to the object and the pointer parts where it lives.
function resolve(node, parts) {
  while (node && node.$ref) {
    parts = node.$ref.replace(/^#\//, '').split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    node = parts.reduce((at, part) => at?.[part], openapi);
  }
  return { node, parts };
}

// Templates ordered so that literal segments win over parameters (/customers/kyc-link before
// /customers/{customerId}).
const templates = Object.keys(openapi.paths).map((template) => ({
  template,
  segments: template.split('/').slice(1),
})).sort((a, b) => {
  for (let i = 0; i < Math.min(a.segments.length, b.segments.length); i++) {
    const pa = a.segments[i].startsWith('{');
    const pb = b.segments[i].startsWith('{');
    if (pa !== pb) return pa ? 1 : -1;
  }
  return 0;
});

export function matchTemplate(pathname) {
  const segments = pathname.split('/').slice(1);
  for (const { template, segments: pattern } of templates) {
    if (pattern.length !== segments.length) continue;
    if (pattern.every((p, i) => (p.startsWith('{') ? segments[i] !== '' : p === segments[i]))) return template;
  }
  return undefined;
}

function firstError(validate) {
  const error = validate.errors?.[0];
  if (!error) return 'invalid';
  const extra = error.params && Object.keys(error.params).length ? ` ${JSON.stringify(error.params)}` : '';
  return `${error.instancePath || '(body)'} ${error.message}${extra}`;
}

function checkBody(where, response, content, status, parts, problems) {
  const type = (response.headers.get('content-type') || '').split(';')[0].trim().toLowerCase();
  if (!content) {
    if (response.text) problems.push(`${where}: the document describes no body, got ${type || 'a body'} (${response.text.slice(0, 80)})`);
    return;
  }
  if (!content[type]) {
    problems.push(`${where}: Content-Type ${type || '(none)'} is not documented (${Object.keys(content).join(', ')})`);
    return;
  }
  if (type !== 'application/json') return;  // HTML and text: the media type is the contract
  let body;
  try {
    body = JSON.parse(response.text);
  } catch {
    problems.push(`${where}: the body is not JSON: ${response.text.slice(0, 80)}`);
    return;
  }
  const validate = validatorAt([...parts, 'content', type, 'schema']);
  if (!validate(body)) problems.push(`${where}: ${firstError(validate)}`);
}

function checkHeaders(where, response, headers, problems) {
  for (const [name, declared] of Object.entries(headers || {})) {
    const { node: header, parts } = resolve(declared, []);
    const value = response.headers.get(name);
    if (value === null) {
      if (header.required) problems.push(`${where}: header ${name} is required`);
      continue;
    }
    if (parts.length && header.schema) {
      const validate = validatorAt([...parts, 'schema']);
      if (!validate(value)) problems.push(`${where}: header ${name}: ${firstError(validate)}`);
    }
  }
}

// The problems of one response (empty when the document describes it). response: { status,
// headers (a Headers or anything with get()), text }.
export function contractProblems(method, url, response) {
  const { pathname } = new URL(url, 'http://corridor.invalid');
  method = method.toLowerCase();
  const status = String(response.status);
  const template = matchTemplate(pathname);
  const problems = [];
  if (!template) {
    // No route: the dispatcher's 404 (NOT_FOUND, or UNSUPPORTED_API_VERSION naming the supported
    // version), which the document describes once as components.responses.Error404.
    const where = `${method.toUpperCase()} ${pathname} (no route) -> ${status}`;
    if (status !== '404') return [`${where}: the path is not in the document`];
    checkBody(where, response, openapi.components.responses.Error404.content, status, ['components', 'responses', 'Error404'], problems);
    return problems;
  }
  const item = openapi.paths[template];
  if (!item[method]) {
    // The path exists for other methods: 405 with Allow (components.responses.Error405). A 404
    // is the dispatcher's no-route answer to a path that only looks like the template (a segment
    // that does not percent-decode to clean text matches no route).
    const where = `${method.toUpperCase()} ${template} (method not in the document) -> ${status}`;
    if (status === '404') {
      checkBody(where, response, openapi.components.responses.Error404.content, status, ['components', 'responses', 'Error404'], problems);
      return problems;
    }
    if (status !== '405') return [`${where}: the method is not in the document`];
    checkHeaders(where, response, openapi.components.responses.Error405.headers, problems);
    checkBody(where, response, openapi.components.responses.Error405.content, status, ['components', 'responses', 'Error405'], problems);
    return problems;
  }
  const where = `${method.toUpperCase()} ${template} -> ${status}`;
  const responses = item[method].responses;
  const declared = responses[status] ?? responses[`${status[0]}XX`] ?? responses.default;
  if (!declared) return [`${where}: status ${status} is not documented (${Object.keys(responses).join(', ')})`];
  const key = responses[status] ? status : responses[`${status[0]}XX`] ? `${status[0]}XX` : 'default';
  const { node, parts } = resolve(declared, ['paths', template, method, 'responses', key]);
  checkHeaders(where, response, node.headers, problems);
  checkBody(where, response, node.content, status, parts, problems);
  return problems;
}

export function assertContract(method, url, response) {
  const problems = contractProblems(method, url, response);
  if (problems.length) {
    // Also on stderr: code between the response and the test (an SDK, a fake provider answering
    // 500) may swallow the exception, and the reason must still be seen.
    console.error(`contract: ${problems.join('; ')}`);
    throw new Error(`response not described by api/openapi.json: ${problems[0]}` +
      (problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''));
  }
}

// fetch() that checks every response from the origins registered here (the public listeners of
// the servers the harness launched) against the contract. Other origins (the admin listener, a
// suite's own webhook receiver, other hosts) pass through unchecked.
const checkedOrigins = new Set();
export function checkResponsesFrom(baseUrl) {
  checkedOrigins.add(new URL(baseUrl).origin);
}

const plainFetch = globalThis.fetch;
globalThis.fetch = async function contractCheckedFetch(input, init = {}) {
  const response = await plainFetch(input, init);
  const requested = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  // After a redirect (a hosted page's 303) the response is the one of the URL it led to, by GET.
  const url = response.redirected && response.url ? response.url : requested;
  if (!checkedOrigins.has(new URL(url).origin)) return response;
  const method = response.redirected ? 'GET' : init.method || (typeof input === 'object' && input.method) || 'GET';
  const text = await response.clone().text();
  assertContract(method, url, { status: response.status, headers: response.headers, text });
  return response;
};

// Webhooks: the schema of each event type, from the document's `webhooks` (their request bodies
// name the payload schema, whose `type` is a const).
const webhookSchemas = new Map();
for (const item of Object.values(openapi.webhooks || {})) {
  const schemaRef = item.post.requestBody.content['application/json'].schema.$ref;
  const { node } = resolve({ $ref: schemaRef }, []);
  webhookSchemas.set(node.properties.type.const, schemaRef.replace(/^#\//, '').split('/'));
}

// The problems of one webhook delivery as the receiver got it (raw body bytes, headers).
export function webhookProblems(headers, raw) {
  let body;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return ['the webhook body is not JSON'];
  }
  const parts = webhookSchemas.get(body?.type);
  if (!parts) return [`webhook type ${body?.type} is not in the document's webhooks`];
  const problems = [];
  const signature = headers['x-service-signature'];
  if (!signature || !/^\{"v":"1","s":"[A-Za-z0-9+/=]+"\}$/.test(signature)) {
    problems.push(`webhook ${body.type}: X-Service-Signature is not {"v":"1","s":"<base64>"}: ${signature}`);
  }
  const validate = validatorAt(parts);
  if (!validate(body)) problems.push(`webhook ${body.type}: ${firstError(validate)}`);
  return problems;
}
