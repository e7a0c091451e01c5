// A sending UMA provider on its own loopback port, as far as a receiver needs it: the key document
// at /.well-known/lnurlpubkey (one key for both roles) and a 404 for everything else.
import { createServer } from 'node:http';
import { generateKeyPairSync } from 'node:crypto';

// A secp256k1 key pair: the private key for node:crypto, the public key as UMA publishes it
// (uncompressed SEC1, hex).
export function keyPair() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
  const jwk = publicKey.export({ format: 'jwk' });
  const coordinate = (text) => Buffer.from(text, 'base64url').toString('hex').padStart(64, '0');
  return { privateKey, pubHex: `04${coordinate(jwk.x)}${coordinate(jwk.y)}` };
}

// Serves pubHex as both keys; `beforeAnswer` (optional, may be async) runs on each key request
// before the document is sent. Resolves with { server, domain } (domain is `127.0.0.1:port`).
export async function startKeyServer(pubHex, beforeAnswer = () => {}) {
  const body = JSON.stringify({ signingPubKey: pubHex, encryptionPubKey: pubHex });
  const server = createServer(async (request, response) => {
    if (request.url !== '/.well-known/lnurlpubkey') {
      response.writeHead(404);
      response.end();
      return;
    }
    await beforeAnswer();
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, domain: `127.0.0.1:${server.address().port}` };
}
