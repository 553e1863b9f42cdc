// Reads card documents with @a2a-js/sdk 1.3.0's DefaultAgentCardResolver (fetch, then
// response.json()), for a2abind's card-reading differential test.
//
//   node resolve.mjs CARD_URL...
//
// Output: one JSON line per URL, in order: {"url", "ok", "error"?}: ok is true when
// resolve() returned a card, false with the error message when it threw.

import { load } from './deps.mjs';

const { DefaultAgentCardResolver } = load('@a2a-js/sdk/client');

const resolver = new DefaultAgentCardResolver({
  fetchImpl: (url, init) => fetch(url, { ...init, signal: AbortSignal.timeout(10000) }),
});
for (const u of process.argv.slice(2)) {
  const url = new URL(u);
  try {
    await resolver.resolve(url.origin, url.pathname);
    process.stdout.write(JSON.stringify({ url: u, ok: true }) + '\n');
  } catch (e) {
    process.stdout.write(JSON.stringify({ url: u, ok: false, error: String(e?.message ?? e) }) + '\n');
  }
}
