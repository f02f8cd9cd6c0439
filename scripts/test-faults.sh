#!/usr/bin/env bash
# npm run test:faults: the full fault suite (test/faults, jest project faults: every fault of
# faultList.ts, the failovers and the upgrade under the previous release, each under traffic,
# with tables), then the minutes-long outage tests (*.long.test.ts, jest project long), one at a
# time (RELIABILITY.md). Like npm test it installs dependencies, starts PostgreSQL and Redis if
# they are down and the tests' Kafka broker if none is listening (stopping it again after): the
# fault suite brings stores of its own, but the first outage of outbox.kafkaOutage.long pauses a
# proxy in front of that shared broker. Arguments go to both jest runs.
set -Eeuo pipefail
# shellcheck source=lib/common.sh
. "$(dirname "$0")/lib/common.sh"
cd "$REPO_ROOT"

use_test_kafka
STARTED_KAFKA=0
trap 'if [ "$STARTED_KAFKA" = 1 ]; then scripts/kafka.sh stop >/dev/null || true; fi' EXIT

ensure_dependencies
ensure_postgres
ensure_redis
if ! scripts/kafka.sh status >/dev/null 2>&1; then
  say "starting Kafka (the tests' broker)"
  STARTED_KAFKA=1
  scripts/kafka.sh ensure
fi

say "fault suite, full"
npx --no-install jest --selectProjects faults "$@"
say "outage tests (*.long.test.ts)"
npx --no-install jest --selectProjects long --maxWorkers=1 "$@"
