// What a sending UMA provider does with a receiver's published keys, in plain Node: encrypt
// travel-rule data to its encryption key (ECIES in the eciesjs format: ephemeral uncompressed point,
// 16-byte nonce, 16-byte tag, AES-256-GCM under HKDF-SHA256 of ephemeral point || shared point) and
// verify its signatures with its signing key. node:crypto's ECDH yields only the shared x
// coordinate, so the point arithmetic is done here.
import { createCipheriv, createPublicKey, hkdfSync, randomBytes, verify } from 'node:crypto';

const P = 2n ** 256n - 2n ** 32n - 977n;
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const G = [0x79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798n,
  0x483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8n];

const mod = (a) => ((a % P) + P) % P;
function power(base, exponent) {
  let result = 1n;
  let b = mod(base);
  for (let e = exponent; e > 0n; e >>= 1n) {
    if (e & 1n) result = mod(result * b);
    b = mod(b * b);
  }
  return result;
}
const inverse = (a) => power(a, P - 2n);

function add(p, q) {
  if (!p) return q;
  if (!q) return p;
  if (p[0] === q[0] && mod(p[1] + q[1]) === 0n) return null;
  const slope = p[0] === q[0]
    ? mod(3n * p[0] * p[0] * inverse(2n * p[1]))
    : mod((q[1] - p[1]) * inverse(q[0] - p[0]));
  const x = mod(slope * slope - p[0] - q[0]);
  return [x, mod(slope * (p[0] - x) - p[1])];
}

function multiply(k, point) {
  let result = null;
  let addend = point;
  for (let e = k; e > 0n; e >>= 1n) {
    if (e & 1n) result = add(result, addend);
    addend = add(addend, addend);
  }
  return result;
}

const hex32 = (n) => n.toString(16).padStart(64, '0');
const encodePoint = ([x, y]) => Buffer.from(`04${hex32(x)}${hex32(y)}`, 'hex');
function decodePoint(hex) {
  const bytes = Buffer.from(hex, 'hex');
  if (bytes.length !== 65 || bytes[0] !== 4) throw new Error(`not an uncompressed point: ${hex}`);
  return [BigInt(`0x${bytes.subarray(1, 33).toString('hex')}`), BigInt(`0x${bytes.subarray(33).toString('hex')}`)];
}

// Hex of the ECIES encryption of `plaintext` to the uncompressed public key `pubHex`.
export function eciesEncrypt(pubHex, plaintext) {
  let scalar = 0n;
  while (scalar === 0n) scalar = BigInt(`0x${randomBytes(32).toString('hex')}`) % N;
  const ephemeral = encodePoint(multiply(scalar, G));
  const shared = encodePoint(multiply(scalar, decodePoint(pubHex)));
  const key = Buffer.from(hkdfSync('sha256', Buffer.concat([ephemeral, shared]), Buffer.alloc(0), Buffer.alloc(0), 32));
  const nonce = randomBytes(16);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  const body = Buffer.concat([cipher.update(Buffer.from(plaintext, 'utf8')), cipher.final()]);
  return Buffer.concat([ephemeral, nonce, cipher.getAuthTag(), body]).toString('hex');
}

// Whether the hex DER ECDSA signature `signatureHex` over SHA-256 of `payload` verifies with the
// uncompressed secp256k1 public key `pubHex`.
export function verifiesWith(pubHex, payload, signatureHex) {
  const [x, y] = decodePoint(pubHex);
  const b64 = (n) => Buffer.from(hex32(n), 'hex').toString('base64url');
  const key = createPublicKey({ key: { kty: 'EC', crv: 'secp256k1', x: b64(x), y: b64(y) }, format: 'jwk' });
  return verify('sha256', Buffer.from(payload), { key, dsaEncoding: 'der' }, Buffer.from(signatureHex, 'hex'));
}
