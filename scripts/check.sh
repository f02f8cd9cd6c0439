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

# A check that failed beside the others runs once more, alone. The checks are deterministic
# over the tree, so a real failure fails again; what passes alone failed on the machine (a
# registry or package-mirror hiccup in lock:check or deploy:check's promtool install, memory
# under the parallel load), and is named as such rather than hidden. CI printed only the tail of
# a run that failed here once, so the failures are repeated last, where a tail shows them, and
# into $CHECK_FAILURES_FILE when set (npm test prints it again after the unit tests' output).
still_failed=()
for check in "${failed[@]}"; do
  say "$check failed beside the other checks; running it again alone"
  if npm run --silent "$check" >"$out/$check.again.log" 2>&1; then
    say "$check passed alone: its first failure (above) was the machine's, not the tree's"
  else
    still_failed+=("$check")
  fi
done
if [ "${#still_failed[@]}" -gt 0 ]; then
  summary="$out/failures.txt"
  for check in "${still_failed[@]}"; do
    printf -- '--- %s failed twice; the last 40 lines of its second run:\n' "$check"
    tail -n 40 "$out/$check.again.log"
  done >"$summary"
  cat "$summary"
  if [ -n "${CHECK_FAILURES_FILE:-}" ]; then cp "$summary" "$CHECK_FAILURES_FILE"; fi
  die "npm run check: ${still_failed[*]} failed"
fi
say "npm run check: ${#checks[@]} checks passed"
