# shellcheck shell=bash
# The demo data of the local stack, seeded exactly as scripts/up.sh seeds it. Source it after
# common.sh and localStack.sh; it defines functions only. test/scripts/loopback.test.ts runs
# these same functions twice against the stack it starts, so a seeding step that fails (on a
# fresh database or on the second run) fails a test, not only a person's first `npm run up`.
#
# Each step is safe to run again: the demo brand, its key, its single sign-on and its example
# receiver are reused. What each sets is global, for up's banner. DEMO_STATE_DIR (default
# .local/) holds the demo key and the example receiver's id and secret (mode 600).

# The demo brand with its records and a live demo key (reused while it lives), and a read-only
# member. Sets seed_json, demo_key, demo_brand, demo_brand_id, demo_owner, demo_member.
seed_demo_data() {
  local state_dir=${DEMO_STATE_DIR:-$REPO_ROOT/.local}
  seed_json=$(npx --no-install brandctl seed --json --key-file "$state_dir/demo-key.env")
  demo_key=$(node -e 'const s=JSON.parse(process.argv[1]); process.stdout.write(s.key.secret)' "$seed_json")
  demo_brand=$(node -e 'const s=JSON.parse(process.argv[1]); process.stdout.write(s.brand.name + " (" + s.brand.id + ")")' "$seed_json")
  demo_brand_id=$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).brand.id)' "$seed_json")
  demo_owner=$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).owner?.email ?? "owner@demo-brand.test")' "$seed_json")
  # A non-owner too, to see what the console shows a member who may only read.
  demo_member=developer@demo-brand.test
  npx --no-install brandctl member add "$demo_brand_id" --email "$demo_member" --role member >/dev/null 2>&1 || true
}

# The local OpenID provider (start_dev_idp, running) connected to the demo brand as its single
# sign-on, its domain proven by a TXT record on the local DNS server (start_dev_dns, running),
# which records reads through SSO_DNS_SERVERS (docs/console.md "Single sign-on").
connect_demo_sso() {
  node scripts/dev-idp/connectDemoBrand.cjs "$demo_brand_id" "$DEV_IDP_ISSUER" brand-records-console \
    "${demo_owner##*@}" "${DEV_DNS_DIR:-$REPO_ROOT/.local/dev-dns}/zone.json"
}

# The example receiver registered once for the demo brand (its id and signing secret kept in
# DEMO_STATE_DIR/example-receiver.env), registered again if that receiver is gone. Sets
# receiver_url, receiver_id and EXAMPLE_RECEIVER_SECRET (start_example_receiver verifies with it).
register_example_receiver() {
  local receiver_env=${DEMO_STATE_DIR:-$REPO_ROOT/.local}/example-receiver.env add_json
  receiver_url="https://localhost:${EXAMPLE_RECEIVER_PORT}/webhooks"
  receiver_id=""
  if [ -f "$receiver_env" ]; then
    # shellcheck disable=SC1090
    . "$receiver_env"
    receiver_id=${EXAMPLE_RECEIVER_ID:-}
    if ! npx --no-install brandctl receiver list --brand "$demo_brand_id" --json | grep -q "\"$receiver_id\""; then
      receiver_id=""
    fi
  fi
  if [ -z "$receiver_id" ]; then
    say "registering the example receiver for the demo brand"
    add_json=$(npx --no-install brandctl receiver add --brand "$demo_brand_id" --url "$receiver_url" \
      --label "Example receiver (local)" --events submission.approved,submission.rejected,payout.paid,campaign.settled \
      --actor "$demo_owner" --json 2>/dev/null)
    receiver_id=$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).receiver.id)' "$add_json")
    EXAMPLE_RECEIVER_SECRET=$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).secret)' "$add_json")
    (umask 077 && printf 'EXAMPLE_RECEIVER_ID=%s\nEXAMPLE_RECEIVER_SECRET=%s\n' "$receiver_id" "$EXAMPLE_RECEIVER_SECRET" >"$receiver_env")
  fi
}
