// Uploads for the bulk CSV route: a multipart/form-data body built by hand, so tests control every
// byte (BOMs, non-UTF-8 bytes, missing parts) and the size of the upload.
import { basic } from './harness.mjs';

export function multipartBody(parts, boundary = `----corridor${Date.now()}`) {
  const chunks = [];
  for (const part of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"` +
      `${part.filename ? `; filename="${part.filename}"` : ''}\r\nContent-Type: ${part.type ?? 'text/csv'}\r\n\r\n`));
    chunks.push(Buffer.isBuffer(part.data) ? part.data : Buffer.from(part.data, 'utf8'));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export async function uploadCsv(server, credentials, csv, { parts, contentType } = {}) {
  const built = multipartBody(parts ?? [{ name: 'file', filename: 'customers.csv', data: csv }]);
  const response = await fetch(`${server.api}/customers/bulk/csv`, {
    method: 'POST',
    headers: { authorization: basic(credentials), 'content-type': contentType ?? built.contentType },
    body: built.body,
  });
  const text = await response.text();
  let body;
  try { body = JSON.parse(text); } catch { body = undefined; }
  return { status: response.status, headers: response.headers, body, text };
}
