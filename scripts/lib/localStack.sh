# shellcheck shell=bash
# The processes of the local stack, started exactly as scripts/up.sh starts them. Source it
# after common.sh and supervise.sh; it defines functions only. test/scripts/loopback.test.ts
# drives these same functions, so what it checks (every listener on 127.0.0.1) is what up runs.
#
# Every listener binds loopback because no host variable is passed here: each process's
# default is 127.0.0.1 (HTTP_HOST, GRPC_HOST, METRICS_HOST, MAILBOX_HOST, RECEIVER_HOST), and
# only a deployment (the Helm chart, docker-compose) sets 0.0.0.0, explicitly.
#
# Reads LOG_DIR and the settings of config/local.env and .local/secrets.env (exported by
# load_env_file); LOCAL_CA_DIR (default .local/ca) holds the example receiver's certificate.

# records, plans, the gateway, webhooks, the dev mailbox and the console, each supervised.
start_local_services() {
  # Each service is started, and kept running, by supervise (scripts/lib/supervise.sh): its
  # environment is part of the command (env ...), so a restart runs exactly the same.
  # records relays its outbox of business events to Kafka (docs/webhooks.md "Business changes and events").
  supervise records "$LOG_DIR/records.log" -- env KAFKA_BROKERS="$KAFKA_BROKERS" GRPC_PORT="$RECORDS_GRPC_PORT" \
    node --max-semi-space-size=16 --heap-growing-percent=200 services/records/dist/main.js
  supervise plans "$LOG_DIR/plans.log" -- env GRPC_PORT="$PLANS_GRPC_PORT" node services/plans/dist/main.js
  # The gateway's probes (/healthz, /readyz) are on its operations port, beside /metrics.
  supervise gateway "$LOG_DIR/gateway.log" -- env HTTP_PORT="$GATEWAY_PORT" METRICS_PORT="$GATEWAY_METRICS_PORT" \
    node --max-semi-space-size=8 --heap-growing-percent=100 --no-allocation-site-pretenuring gateway/dist/main.js
  # webhooks' /readyz (its operations port) says whether Kafka is reachable; up watches it.
  supervise webhooks "$LOG_DIR/webhooks.log" -- env GRPC_PORT="$WEBHOOKS_GRPC_PORT" \
    METRICS_PORT="$WEBHOOKS_METRICS_PORT" node --max-semi-space-size=8 --heap-growing-percent=50 services/webhooks/dist/main.js
  # The console's sign-in mails land in $MAILBOX_DIR/*.eml (a local SMTP sink, nothing relayed).
  supervise mailbox "$LOG_DIR/mailbox.log" -- node console/dist/devMailboxMain.js
  supervise console "$LOG_DIR/console.log" -- env HTTP_PORT="$CONSOLE_PORT" \
    METRICS_PORT="$CONSOLE_METRICS_PORT" node console/dist/main.js
}

# The example receiver (examples/receiver), over HTTPS with the local CA's localhost
# certificate, verifying with EXAMPLE_RECEIVER_SECRET.
start_example_receiver() {
  local ca=${LOCAL_CA_DIR:-.local/ca}
  supervise example-receiver "$LOG_DIR/example-receiver.log" 'receiver listening' -- \
    env RECEIVER_PORT="$EXAMPLE_RECEIVER_PORT" RECEIVER_SECRETS="$EXAMPLE_RECEIVER_SECRET" \
    RECEIVER_TLS_CERT="$ca/localhost.pem" RECEIVER_TLS_KEY="$ca/localhost-key.pem" \
    node examples/receiver/dist/main.js
}

# The local OpenID provider (scripts/dev-idp/devIdp.mjs, oidc-provider) on 127.0.0.1, with one
# client for the console and the given addresses as its users, all with DEV_IDP_PASSWORD. Its
# configuration is written under DEV_IDP_DIR (default .local/dev-idp/; mode 600: it holds the
# client secret).
start_dev_idp() {
  local dir=${DEV_IDP_DIR:-$REPO_ROOT/.local/dev-idp}
  mkdir -p "$dir"
  (umask 077 && node -e '
    const fs = require("node:fs");
    const [dir, port, redirect, ...emails] = process.argv.slice(1);
    const users = emails.map((email) => ({ email, password: process.env.DEV_IDP_PASSWORD }));
    fs.writeFileSync(`${dir}/users.json`, JSON.stringify({ users }, null, 2));
    fs.writeFileSync(`${dir}/config.json`, JSON.stringify({
      port: Number(port),
      usersFile: `${dir}/users.json`,
      clients: [{ client_id: "brand-records-console", client_secret: process.env.DEV_IDP_CLIENT_SECRET, redirect_uris: [redirect] }],
    }, null, 2));
  ' "$dir" "$DEV_IDP_PORT" "$CONSOLE_PUBLIC_URL/sign-in/sso/callback" "$@")
  supervise dev-idp "$LOG_DIR/dev-idp.log" -- node scripts/dev-idp/devIdp.mjs "$dir/config.json"
}

# The local DNS server (scripts/dev-dns/devDns.mjs, dns-packet) on 127.0.0.1:DEV_DNS_PORT (UDP),
# answering TXT questions from DEV_DNS_DIR/zone.json (default .local/dev-dns/), read on every
# query. Records checks brands' single sign-on domains through it (SSO_DNS_SERVERS in
# config/local.env), exactly as it checks them through an operator's resolvers in production:
# connectDemoBrand.cjs publishes the demo brand's proof there and presses "Verify now".
start_dev_dns() {
  local dir=${DEV_DNS_DIR:-$REPO_ROOT/.local/dev-dns}
  mkdir -p "$dir"
  [ -f "$dir/zone.json" ] || printf '{ "txt": {} }\n' >"$dir/zone.json"
  printf '{ "port": %s, "zoneFile": "%s" }\n' "$DEV_DNS_PORT" "$dir/zone.json" >"$dir/config.json"
  supervise dev-dns "$LOG_DIR/dev-dns.log" -- node scripts/dev-dns/devDns.mjs "$dir/config.json"
}
