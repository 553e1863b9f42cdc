// Signs and verifies AgentCards with @a2a-js/sdk 1.3.0 (generateAgentCardSignature,
// verifyAgentCardSignature, canonicalizeAgentCard; JOSE by the SDK's own `jose`), for
// a2abind's signature interop tests.
//
//   node signature.mjs < requests.json
//
// stdin is a JSON array of requests, run in order in one process (the SDK loads once);
// stdout is the JSON array of their results. Each request has a "mode":
//   keygen     {"alg"}                        -> {"private": JWK, "public": JWK}
//   sign       {"card", "jwk", "alg", "kid", "jku"?}  -> the signed card
//   verify     {"card", "jwks"? , "jwksUrl"?} -> {"ok": true} or {"ok": false, "error"}
//              keys are looked up by the protected header's kid in jwks, or in the JWKS
//              fetched from jwksUrl (the test names it; the header's jku is not followed).
//   canonical  {"card"}                       -> {"canonical": canonicalizeAgentCard(card)}
//
// A request that throws yields {"error"}. Exit 0 unless stdin is not a JSON array.

import { load, sdkVersion } from './deps.mjs';

const sdk = load('@a2a-js/sdk');
const jose = load('jose');

// verifyAgentCardSignature logs each failed entry with console.debug, on stdout.
console.debug = (...args) => process.stderr.write(args.map(String).join(' ') + '\n');

async function readStdin() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

async function keysFrom(req) {
  if (req.jwks) return req.jwks.keys;
  if (req.jwksUrl) {
    const res = await fetch(req.jwksUrl, { signal: AbortSignal.timeout(10000) });
    if (!res.ok) throw new Error(`GET ${req.jwksUrl}: HTTP ${res.status}`);
    return (await res.json()).keys;
  }
  throw new Error('verify needs jwks or jwksUrl');
}

const modes = {
  async keygen(req) {
    const opts = req.alg === 'EdDSA' ? { crv: 'Ed25519', extractable: true } : { extractable: true };
    const { privateKey, publicKey } = await jose.generateKeyPair(req.alg, opts);
    return { private: await jose.exportJWK(privateKey), public: await jose.exportJWK(publicKey) };
  },
  async sign(req) {
    const key = await jose.importJWK(req.jwk, req.alg);
    const header = { alg: req.alg, kid: req.kid, typ: 'JOSE' };
    if (req.jku) header.jku = req.jku;
    return sdk.generateAgentCardSignature(key, header)(req.card);
  },
  async verify(req) {
    const keys = await keysFrom(req);
    const verifier = sdk.verifyAgentCardSignature(async (kid) => {
      const jwk = keys.find((k) => k.kid === kid);
      if (!jwk) throw new Error(`no key with kid ${kid}`);
      return jose.importJWK(jwk, jwk.alg);
    });
    try {
      await verifier(req.card);
      return { ok: true, sdk: sdkVersion };
    } catch (e) {
      return { ok: false, sdk: sdkVersion, error: String(e?.message ?? e) };
    }
  },
  async canonical(req) {
    return { canonical: sdk.canonicalizeAgentCard(req.card) };
  },
};

const requests = await readStdin();
if (!Array.isArray(requests)) {
  process.stderr.write('signature.mjs: stdin must be a JSON array of requests\n');
  process.exit(2);
}
const results = [];
for (const req of requests) {
  const mode = modes[req.mode];
  try {
    if (!mode) throw new Error(`unknown mode ${req.mode}; want ${Object.keys(modes).join(', ')}`);
    results.push(await mode(req));
  } catch (e) {
    results.push({ error: String(e?.message ?? e) });
  }
}
process.stdout.write(JSON.stringify(results) + '\n');
