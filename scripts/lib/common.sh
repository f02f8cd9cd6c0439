# shellcheck shell=bash
# Shared by scripts/up.sh and scripts/test.sh. Source it; it defines functions only.
# Everything here is idempotent: it checks first and acts only when something is missing.

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"

say() { printf '\033[1m==>\033[0m %s\n' "$*"; }
warn() { printf '\033[33mwarning:\033[0m %s\n' "$*" >&2; }
die() { printf '\033[31merror:\033[0m %s\n' "$*" >&2; exit 1; }

# Installs npm dependencies when node_modules is missing or older than package-lock.json.
# `npm install`, not `npm ci`: it installs exactly the locked versions all the same, but npm
# 11 leaves other platforms' optional binaries (buf's, jest's resolver's) out of the lock,
# and `npm ci` then refuses the lock as out of sync.
ensure_dependencies() {
  command -v node >/dev/null || die "Node.js 20.19+ is required"
  local marker="$REPO_ROOT/node_modules/.package-lock.json"
  if [ ! -f "$marker" ] || [ "$REPO_ROOT/package-lock.json" -nt "$marker" ]; then
    say "installing npm dependencies (npm install, from package-lock.json)"
    (cd "$REPO_ROOT" && npm install --no-audit --no-fund --loglevel=error)
  fi
}

# Starts the machine's PostgreSQL and Redis if they do not answer (the commands these
# machines document); elsewhere, start them yourself or point the URLs at your own.
ensure_postgres() {
  if pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then return; fi
  say "starting PostgreSQL"
  local version
  version=$(find /etc/postgresql -mindepth 1 -maxdepth 1 -printf "%f\n" 2>/dev/null | sort | tail -n1)
  pg_ctlcluster --skip-systemctl-redirect "$version" main start \
    || die "PostgreSQL is not running on 127.0.0.1:5432 and could not be started"
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && return; sleep 1; done
  die "PostgreSQL did not come up on 127.0.0.1:5432"
}

ensure_redis() {
  if redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then return; fi
  say "starting Redis"
  mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log \
    || die "Redis is not running on 127.0.0.1:6379 and could not be started"
  for _ in $(seq 1 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && return; sleep 0.5; done
  die "Redis did not come up on 127.0.0.1:6379"
}

build_all() {
  say "building (tsc -b)"
  (cd "$REPO_ROOT" && npx --no-install tsc -b gateway services/records cli examples/receiver examples/relay)
}
