// Loads the npm packages of interop/js/package.json from wherever they were installed.
//
// The packages live outside the source tree (./test.sh installs them into
// .cache/node/node_modules), so plain `import '@a2a-js/sdk'` cannot find them from this
// directory; ESM ignores NODE_PATH. Every package is loaded through one createRequire
// rooted at the install directory, so the SDK, express and grpc-js are single instances.
//
// Where: $A2ABIND_NODE_MODULES (a node_modules directory) if set, else
// <repo>/.cache/node/node_modules, else interop/js/node_modules (an in-place npm install).

import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

function modulesDir() {
  const candidates = [
    process.env.A2ABIND_NODE_MODULES,
    path.resolve(here, '..', '..', '.cache', 'node', 'node_modules'),
    path.resolve(here, 'node_modules'),
  ].filter(Boolean);
  for (const dir of candidates) {
    if (existsSync(path.join(dir, '@a2a-js', 'sdk', 'package.json'))) {
      return dir;
    }
  }
  const tried = candidates.join(', ');
  throw new Error(
    `@a2a-js/sdk is not installed (looked in ${tried}); run ./test.sh, or ` +
      `"npm ci --prefix .cache/node" after copying interop/js/package*.json there, ` +
      `or set A2ABIND_NODE_MODULES to a node_modules directory that has it`,
  );
}

const dir = modulesDir();
const req = createRequire(path.join(dir, '..', 'a2abind-interop-loader.cjs'));

/** load returns a package (or a package subpath export) from the install directory. */
export function load(name) {
  return req(name);
}

/** sdkVersion is the installed @a2a-js/sdk version, reported by both scripts. */
export const sdkVersion = JSON.parse(
  readFileSync(path.join(dir, '@a2a-js', 'sdk', 'package.json'), 'utf8'),
).version;

/** modulesPath is the node_modules directory in use. */
export const modulesPath = dir;
