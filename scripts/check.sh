#!/usr/bin/env bash
# npm run check: every static check, side by side, each output printed in turn when all are
# done; fails naming every check that failed.
# Why all at once: the type check and lint (one process over one TypeScript program,
# scripts/typecheckAndLint.mjs: ~54 s of CPU on one core, against ~27 + ~55 s as two) is the
# long pole, and format (~16 s) and the short ones (~55 s in all: knip, import circles, lock,
# docs, proto, OpenAPI, client types and the client package as users install it, compose, Helm)
# fit beside it on the second core. None writes what another reads (openapi:check only rebuilds
# the gateway when its sources changed; the package check works in a temp dir).
set -Eeuo pipefail
# shellcheck source=lib/common.sh
. "$(dirname "$0")/lib/common.sh"
cd "$REPO_ROOT"

checks=(typecheck-and-lint format:check knip circles:check lock:check docs:check proto:check openapi:check
  sdk:types:check sdk:pack:check compose:lint deploy:check)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
pids=()
for check in "${checks[@]}"; do
  npm run --silent "$check" >"$out/$check.log" 2>&1 &
  pids+=($!)
done
failed=()
for i in "${!checks[@]}"; do
  check=${checks[$i]}
  if ! wait "${pids[$i]}"; then failed+=("$check"); fi
  cat "$out/$check.log"
done
if [ "${#failed[@]}" -gt 0 ]; then die "npm run check: ${failed[*]} failed"; fi
say "npm run check: ${#checks[@]} checks passed"
