#!/usr/bin/env bash
# npm run check: every static check, failing on the first group with a failure.
# The three long ones (types, lint, format: ~20 + ~45 + ~18 s, each on one core) run side by
# side and print their output in turn when all are done; the short ones follow in order.
set -Eeuo pipefail
# shellcheck source=lib/common.sh
. "$(dirname "$0")/lib/common.sh"
cd "$REPO_ROOT"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
parallel_checks=(typecheck lint format:check)
pids=()
for check in "${parallel_checks[@]}"; do
  npm run --silent "$check" >"$out/$check.log" 2>&1 &
  pids+=($!)
done
failed=()
for i in "${!parallel_checks[@]}"; do
  check=${parallel_checks[$i]}
  if ! wait "${pids[$i]}"; then failed+=("$check"); fi
  cat "$out/$check.log"
done
if [ "${#failed[@]}" -gt 0 ]; then die "npm run check: ${failed[*]} failed"; fi

for check in knip lock:check docs:check proto:check openapi:check sdk:types:check compose:lint deploy:check; do
  npm run --silent "$check"
done
