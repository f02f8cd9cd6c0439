# shellcheck shell=bash
# npm run up knows its broker (issue 35: a reused broker vanished and nothing told the person
# at the terminal). Source it after common.sh and supervise.sh; it defines functions and state.
#
#   kafka_watch_start OWNED   OWNED=1: up started the broker, so it restarts it when it goes
#                             away, like a service; OWNED=0: a broker up reused, which it
#                             watches and reports but never restarts (it is not up's to run)
#   kafka_watch_check         one look (every KAFKA_WATCH_INTERVAL s, 2): the broker's port
#                             and the webhooks service's /readyz; prints each change loudly
#   kafka_watch_stop          stops a restart still under way (Ctrl-C)
#
# Reads KAFKA_BROKERS (the first broker is watched), WEBHOOKS_METRICS_PORT (webhooks' /readyz)
# and LOG_DIR. KAFKA_RESTART_COMMAND (default: scripts/kafka.sh ensure) restarts an owned one.

KAFKA_WATCH_INTERVAL=${KAFKA_WATCH_INTERVAL:-2}
KAFKA_RESTART_COMMAND=${KAFKA_RESTART_COMMAND:-scripts/kafka.sh ensure}
KAFKA_WATCH_OWNED=0
KAFKA_WATCH_ADDR=''
KAFKA_WATCH_UP=1          # 1 while the broker's port accepts connections
KAFKA_WATCH_NEXT=0        # $SECONDS of the next look
KAFKA_WATCH_RESTART_PID='' # a restart under way (owned broker)
KAFKA_WATCH_WEBHOOKS=''   # webhooks' last kafka check: ok, unreachable ('' before the first)

# True when something accepts TCP connections on host:port.
kafka_watch_port_open() {
  # shellcheck disable=SC2016  # expanded by the inner bash, on purpose
  timeout 2 bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ "$1" "$2" 2>/dev/null
}

# A loud, framed line: the person at the terminal must not miss it among the services' output.
kafka_watch_shout() {
  printf '\n\033[1;41m !! \033[0m \033[1m%s\033[0m\n' "$*" >&2
}

kafka_watch_start() {
  KAFKA_WATCH_OWNED=$1
  KAFKA_WATCH_ADDR=${KAFKA_BROKERS%%,*}
  KAFKA_WATCH_UP=1
  KAFKA_WATCH_NEXT=0
  if [ "$KAFKA_WATCH_OWNED" = 1 ]; then
    say "Kafka at $KAFKA_WATCH_ADDR: started by npm run up, restarted if it goes away"
  else
    say "Kafka at $KAFKA_WATCH_ADDR: already running (not started by npm run up); watched, never restarted"
  fi
}

kafka_watch_check() {
  [ -n "$KAFKA_WATCH_ADDR" ] || return 0
  [ "$SECONDS" -ge "$KAFKA_WATCH_NEXT" ] || return 0
  KAFKA_WATCH_NEXT=$((SECONDS + KAFKA_WATCH_INTERVAL))
  kafka_watch_restart_reap
  local host=${KAFKA_WATCH_ADDR%:*} port=${KAFKA_WATCH_ADDR##*:}
  if kafka_watch_port_open "$host" "$port"; then
    if [ "$KAFKA_WATCH_UP" = 0 ]; then
      KAFKA_WATCH_UP=1
      kafka_watch_shout "Kafka at $KAFKA_WATCH_ADDR is back."
    fi
  else
    if [ "$KAFKA_WATCH_UP" = 1 ]; then
      KAFKA_WATCH_UP=0
      if [ "$KAFKA_WATCH_OWNED" = 1 ]; then
        kafka_watch_shout "Kafka at $KAFKA_WATCH_ADDR went away. npm run up started it, so it restarts it now (log: $LOG_DIR/kafka-restart.log). Events wait in records' outbox meanwhile."
      else
        kafka_watch_shout "Kafka at $KAFKA_WATCH_ADDR went away. npm run up did not start it (it was already running), so it cannot restart it: start it again (scripts/kafka.sh ensure). Events wait in records' outbox meanwhile; webhooks reports Kafka unreachable."
      fi
    fi
    if [ "$KAFKA_WATCH_OWNED" = 1 ] && [ -z "$KAFKA_WATCH_RESTART_PID" ]; then
      # In the background: a broker takes seconds to start, and the services keep being
      # supervised meanwhile. kafka.sh starts the broker in its own session.
      eval "$KAFKA_RESTART_COMMAND" >>"$LOG_DIR/kafka-restart.log" 2>&1 </dev/null &
      KAFKA_WATCH_RESTART_PID=$!
    fi
  fi
  kafka_watch_webhooks
}

# Reaps a finished restart, saying when it failed (the next look tries again).
kafka_watch_restart_reap() {
  local pid=$KAFKA_WATCH_RESTART_PID status=0
  [ -n "$pid" ] || return 0
  kill -0 "$pid" 2>/dev/null && return 0
  wait "$pid" 2>/dev/null || status=$?
  KAFKA_WATCH_RESTART_PID=''
  if [ "$status" != 0 ]; then
    warn "restarting Kafka failed (status $status; log $LOG_DIR/kafka-restart.log); trying again"
  fi
}

# What webhooks' /readyz says of Kafka, printed when it changes: the status line of the stack.
kafka_watch_webhooks() {
  [ -n "${WEBHOOKS_METRICS_PORT:-}" ] || return 0
  local body state
  body=$(curl -s --max-time 2 "http://127.0.0.1:${WEBHOOKS_METRICS_PORT}/readyz" 2>/dev/null) || return 0
  # "ok", "unreachable", "authentication failed", "tls: ..." (issue 43)
  state=$(printf '%s' "$body" | grep -o '"kafka":"[^"]*"' | cut -d'"' -f4)
  [ -n "$state" ] || return 0
  [ "$state" = "$KAFKA_WATCH_WEBHOOKS" ] && return 0
  if [ "$state" = ok ]; then
    [ -n "$KAFKA_WATCH_WEBHOOKS" ] && say "status: webhooks reaches Kafka again; it consumes the events that waited"
  else
    kafka_watch_shout "status: webhooks says Kafka is $state (its /readyz: not ready). Nothing is lost: events wait until it is back."
  fi
  KAFKA_WATCH_WEBHOOKS=$state
}

kafka_watch_stop() {
  local pid=$KAFKA_WATCH_RESTART_PID
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  KAFKA_WATCH_RESTART_PID=''
}
