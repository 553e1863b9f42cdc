#!/usr/bin/env bash
# Installs the npm packages of interop/js (pinned by package-lock.json) into an ignored
# cache directory, for the interop tests. Called by ./test.sh before `go test`.
#
#   interop/js/install.sh            # into .cache/node/node_modules
#   A2ABIND_NODE_CACHE=DIR interop/js/install.sh
#
# It does nothing when the install is already there for the current lockfile. When node
# or npm is missing it warns and exits 0: the interop tests then fail and say what to
# install (they are never skipped). An npm failure with node present exits non-zero.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
dest="${A2ABIND_NODE_CACHE:-$root/.cache/node}"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	echo "interop: node and/or npm not found; the interop tests will fail until Node.js 20+ and npm are installed" >&2
	exit 0
fi

stamp="$(cat "$here/package.json" "$here/package-lock.json" | sha256sum | cut -d' ' -f1)"
if [[ -f "$dest/node_modules/@a2a-js/sdk/package.json" && -f "$dest/.installed" && "$(cat "$dest/.installed")" == "$stamp" ]]; then
	exit 0
fi

echo "interop: installing interop/js npm packages into ${dest#"$root"/}" >&2
mkdir -p "$dest"
rm -f "$dest/.installed"
cp "$here/package.json" "$here/package-lock.json" "$dest/"
# --ignore-scripts: nothing here needs an install script (protobufjs's only checks versions).
timeout 600 npm ci --prefix "$dest" --ignore-scripts --no-audit --no-fund --loglevel=error >&2
echo "$stamp" >"$dest/.installed"
