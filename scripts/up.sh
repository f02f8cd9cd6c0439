#!/usr/bin/env bash
# npm run up: the whole system on this machine, in the foreground.
# Installs dependencies, starts PostgreSQL/Redis if they are down, creates and migrates
# the database, starts a Kafka broker if none is listening, builds, starts the records
# service, the plans service, the gateway and the webhooks service (consumer, workers, admin
# gRPC) as separate processes, seeds demo data and prints a demo key with a ready-to-paste
# request. It also generates a local test CA under .local/ca/ (once), registers the example
# receiver (examples/receiver, HTTPS on localhost) for the demo brand, starts it, and prints
# how to register receivers and trigger an event. It also starts a local mailbox (an SMTP sink
# writing .local/mailbox/*.eml) and the console (the Developers area) at http://localhost:8090
# (listening on 127.0.0.1; open it by the name localhost: its forms work only there, and
# 127.0.0.1:8090 redirects to it), and prints its address and the demo owner's email, and a local OpenID provider (scripts/dev-idp)
# connected to the demo brand as its single sign-on, with how to sign in through it, and a local
# DNS server (scripts/dev-dns) that serves the demo brand's domain proof. Ctrl-C stops everything this script started (and only
# that). A service that dies is restarted with back-off (scripts/lib/supervise.sh) and the
# rest keeps running. Safe to run again: the database, the demo brand and its records are reused.
set -Eeuo pipefail
# shellcheck source=lib/common.sh
. "$(dirname "$0")/lib/common.sh"
# shellcheck source=lib/supervise.sh
. "$(dirname "$0")/lib/supervise.sh"
# shellcheck source=lib/localStack.sh
. "$(dirname "$0")/lib/localStack.sh"
# shellcheck source=lib/demoSeed.sh
. "$(dirname "$0")/lib/demoSeed.sh"
# shellcheck source=lib/kafkaWatch.sh
. "$(dirname "$0")/lib/kafkaWatch.sh"
cd "$REPO_ROOT"

# Local settings and secrets (generated on the first run); variables already set win. This
# checkout's own database, Redis prefix, consumer group and topic come first (.local/checkout.env).
ensure_local_secrets
ensure_local_checkout
load_env_file .local/checkout.env
load_env_file config/local.env
load_env_file .local/secrets.env

LOG_DIR="$REPO_ROOT/.local/logs"
mkdir -p "$LOG_DIR"
STARTED_KAFKA=0

# Stops what this script started, once. Services run in their own sessions (setsid), so
# Ctrl-C reaches only this script and each service gets exactly one SIGTERM: a graceful stop.
# Kafka is stopped only when this script started it; PostgreSQL and Redis are left running.
cleanup() {
  local status=$1
  trap - INT TERM EXIT
  if [ ${#SUPERVISED[@]} -gt 0 ] || [ "$STARTED_KAFKA" = 1 ]; then
    echo
    say "stopping"
  fi
  supervise_stop_all
  kafka_watch_stop
  if [ "$STARTED_KAFKA" = 1 ]; then scripts/kafka.sh stop || true; fi
  exit "$status"
}
trap 'cleanup 0' INT TERM
trap 'cleanup $?' EXIT

gateway_url="http://127.0.0.1:${GATEWAY_PORT}"
# The description file is the one path the public port serves without a key.
if curl -fsS "$gateway_url/openapi/service.yaml" >/dev/null 2>&1; then
  die "something already answers on $gateway_url: is the stack already running in another terminal?"
fi

ensure_dependencies
ensure_postgres
ensure_redis
node scripts/lib/createDatabase.cjs "$DATABASE_URL"
build_all
say "migrating"
node services/records/dist/migrate.js >"$LOG_DIR/migrate.log" || { cat "$LOG_DIR/migrate.log"; die "migrations failed"; }
node services/plans/dist/migrate.js >>"$LOG_DIR/migrate.log" || { cat "$LOG_DIR/migrate.log"; die "migrations failed"; }
node services/webhooks/dist/migrate.js >>"$LOG_DIR/migrate.log" || { cat "$LOG_DIR/migrate.log"; die "webhooks migrations failed"; }
# The local test CA and a localhost certificate (generated once; see docs/webhooks.md "Webhooks").
bash scripts/lib/testCa.sh "$REPO_ROOT/.local/ca"

if ! scripts/kafka.sh status >/dev/null 2>&1; then
  say "starting Kafka (the first run on a machine resolves its jars with Maven)"
  scripts/kafka.sh ensure
  STARTED_KAFKA=1
fi
# A broker up started is restarted when it goes away; a reused one is watched and reported
# (scripts/lib/kafkaWatch.sh, docs/operating.md "The local stack's broker").
kafka_watch_start "$STARTED_KAFKA"
SUPERVISE_WATCHERS+=(kafka_watch_check)

start_local_services

say "seeding demo data"
# Each step is safe to run again (scripts/lib/demoSeed.sh): the demo key is kept in
# .local/demo-key.env (mode 600) and reused while it is live, so running up again leaves one live
# "Demo integration" key, not one more per run.
seed_demo_data
plan_request_id=$(node -e 'process.stdout.write(require("node:crypto").randomUUID())')
# A pending submission of the demo brand, read through the API, for the event example below.
pending_submission=$(curl -fsS "$gateway_url/api/v1/submissions?limit=200" -H "Authorization: Bearer $demo_key" |
  node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>{const p=JSON.parse(s).data.find((r)=>r.status==="pending");process.stdout.write(p?p.id:"<pending submission id>")})' ||
  echo "<pending submission id>")

# Single sign-on for the demo brand: the local OpenID provider with the demo members as its
# users, connected to the demo brand as its identity provider (docs/console.md "Single sign-on").
# Its domain is proven the way every brand proves one: a TXT record, here on the local DNS
# server (scripts/dev-dns), found by records through SSO_DNS_SERVERS.
start_dev_idp "$demo_owner" "$demo_member"
start_dev_dns
connect_demo_sso || die "could not connect the local OpenID provider to the demo brand"

# The example receiver: registered once for the demo brand (its id and signing secret kept in
# .local/example-receiver.env, mode 600), then started over HTTPS with the test CA's certificate.
register_example_receiver
start_example_receiver

cat <<EOF

  Brand Records Service is running.
    gateway   $gateway_url           (logs: .local/logs/gateway.log)
              probes on its operations port: curl -s 127.0.0.1:${GATEWAY_METRICS_PORT}/readyz (also /healthz, /metrics)
    records   127.0.0.1:${RECORDS_GRPC_PORT}  gRPC  (logs: .local/logs/records.log)
    plans     127.0.0.1:${PLANS_GRPC_PORT}  gRPC  (logs: .local/logs/plans.log)
    webhooks  127.0.0.1:${WEBHOOKS_GRPC_PORT}  gRPC + Kafka consumer + workers  (logs: .local/logs/webhooks.log)
              readiness, Kafka included: curl -s 127.0.0.1:${WEBHOOKS_METRICS_PORT}/readyz
    Kafka     ${KAFKA_BROKERS}  $([ "$STARTED_KAFKA" = 1 ] && echo "started by up (restarted if it goes away)" || echo "already running, not started by up (watched: up says when it goes away)")
    OpenAPI   $gateway_url/openapi/service.yaml
    console   $CONSOLE_PUBLIC_URL     the Developers area (logs: .local/logs/console.log)
    mailbox   $REPO_ROOT/$MAILBOX_DIR  sign-in mails (.eml, and .txt to read)
    OpenID    $DEV_IDP_ISSUER     the demo brand's identity provider (logs: .local/logs/dev-idp.log)
    DNS       127.0.0.1:${DEV_DNS_PORT} (UDP)  the demo brand's domain proof (logs: .local/logs/dev-dns.log)

  Developers area: open $CONSOLE_PUBLIC_URL and sign in as the demo owner $demo_owner
  (or the read-only member $demo_member); each mail arrives in $MAILBOX_DIR/ as .eml,
  with its text beside it: cat "\$(ls -t $MAILBOX_DIR/*.txt | head -1)"
  Single sign-on: on the sign-in page choose "Sign in with single sign-on" with $demo_owner,
  continue to the local identity provider and sign in there as $demo_owner (or $demo_member)
  with the password $DEV_IDP_PASSWORD (kept in .local/secrets.env).

  This checkout's data: database ${DATABASE_URL##*/}, Redis prefix $REDIS_KEY_PREFIX, topic
  $BUSINESS_EVENTS_TOPIC (.local/checkout.env); another checkout's stack touches none of it.

  Demo brand: $demo_brand
  Demo key (kept in .local/demo-key.env and reused by the next run; keep keys on servers): $demo_key

  Try it:
    curl -s '$gateway_url/api/v1/campaigns?limit=2' -H 'Authorization: Bearer $demo_key'

  Assistant (MCP) endpoint: $gateway_url/api/mcp
    curl -s $gateway_url/api/mcp -H 'Authorization: Bearer $demo_key' \\
      -H 'Content-Type: application/json' \\
      -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_payouts","arguments":{"limit":2}}}'

  Prepare a campaign plan for the brand to review (nothing is published, funded or approved):
    curl -s $gateway_url/api/v1/campaign-plans -H 'Authorization: Bearer $demo_key' \\
      -H 'Content-Type: application/json' \\
      -d '{"request_id":"$plan_request_id","title":"Summer launch","goal":"Awareness","campaign_type":"ugc","planned_for":"2027-06-01","review_on":"2027-05-15","planning_budget":"25000.50"}'
    npx brandctl plan list --brand $demo_brand_id

  Trigger a business event (records' outbox relays it to Kafka, topic $BUSINESS_EVENTS_TOPIC
  at $KAFKA_BROKERS, this checkout's own; the webhooks service delivers it to the example receiver):
    npx brandctl submission approve $pending_submission

  Webhooks: the example receiver ($receiver_url, receiver $receiver_id) verifies
  every delivery; accepted events appear in .local/logs/example-receiver.log.
    npx brandctl receiver test $receiver_id        # queue a test delivery
    npx brandctl receiver deliveries $receiver_id  # see its outcome
    npx brandctl submission approve <submission_id>   # a real business event
  Register another receiver (any HTTPS server; .local/ca/ holds a CA and a localhost
  certificate the stack trusts):
    npx brandctl receiver add --brand $demo_brand_id --url https://localhost:9443/hooks \\
      --label "My receiver" --events submission.approved,payout.paid --actor <owner-email>

  Manage brands, keys, plans and receivers: npx brandctl --help      Stop: Ctrl-C
  A service that exits is restarted (1 s, 2 s, 4 s ... back-off, at most 30 s), and says so here;
  so does Kafka going away and coming back.
EOF

# Stay in the foreground until Ctrl-C; a service that dies is restarted with back-off.
supervise_forever
