// Reads card documents with the card resolvers of @a2a-js/sdk 1.3.0 and 0.3.14
// (DefaultAgentCardResolver: fetch, then response.json()), for a2abind's card-reading
// differential test.
//
//   node resolve.mjs CARD_URL...
//
// Output: one JSON line per URL, in order: {"url", "sdk": {"1.3.0": VERDICT, "0.3.14":
// VERDICT}}, where VERDICT is {"ok": true} when resolve() returned a card and
// {"ok": false, "error"} when it threw.

import { load } from './deps.mjs';

const fetchImpl = (url, init) => fetch(url, { ...init, signal: AbortSignal.timeout(10000) });
const resolvers = {
  '1.3.0': new (load('@a2a-js/sdk/client').DefaultAgentCardResolver)({ fetchImpl }),
  '0.3.14': new (load('a2a-js-03/client').DefaultAgentCardResolver)({ fetchImpl }),
};
for (const u of process.argv.slice(2)) {
  const url = new URL(u);
  const sdk = {};
  for (const [version, resolver] of Object.entries(resolvers)) {
    try {
      await resolver.resolve(url.origin, url.pathname);
      sdk[version] = { ok: true };
    } catch (e) {
      sdk[version] = { ok: false, error: String(e?.message ?? e) };
    }
  }
  process.stdout.write(JSON.stringify({ url: u, sdk }) + '\n');
}
