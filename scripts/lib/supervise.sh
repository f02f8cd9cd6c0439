# shellcheck shell=bash
# The process supervisor of scripts/up.sh (issue 19, finding 4): one crashed service no longer
# ends the local stack. Source it after common.sh; it defines functions and state only.
#
#   supervise NAME LOG [READY] -- COMMAND...   start a service and keep it running
#   supervise_forever                          watch every service, restart the dead ones
#   supervise_stop_all                         SIGTERM every service, wait for each to exit
#
# A service that dies is restarted after a back-off of 1 s, then 2, 4, 8 ... capped at
# SUPERVISE_MAX_BACKOFF (30 s); a service that stayed up SUPERVISE_STABLE_AFTER seconds (60)
# starts again from 1 s. Every restart is printed, with the exit status. Services run in
# their own sessions (setsid), so Ctrl-C reaches only the calling script, which then stops
# exactly the processes it started (supervise_stop_all), nothing else.
# Give COMMAND its environment with `env NAME=value ...`: a restart runs it exactly again.

SUPERVISE_MAX_BACKOFF=${SUPERVISE_MAX_BACKOFF:-30}
SUPERVISE_STABLE_AFTER=${SUPERVISE_STABLE_AFTER:-60}
# How long a start waits for the READY line (a grep pattern) in the log, in seconds.
SUPERVISE_READY_TIMEOUT=${SUPERVISE_READY_TIMEOUT:-20}

SUPERVISED=()              # names, in start order
declare -A SUPERVISED_CMD  # name -> the command, shell-quoted (printf %q)
declare -A SUPERVISED_LOG  # name -> log file
declare -A SUPERVISED_PID  # name -> pid of the running process ('' while waiting to restart)
declare -A SUPERVISED_UP_AT     # name -> $SECONDS when it was last started
declare -A SUPERVISED_BACKOFF   # name -> the next back-off, seconds
declare -A SUPERVISED_RESTART_AT # name -> $SECONDS at which a dead service is started again

# Starts NAME's command in its own session, appending to (restart) or replacing (first start)
# its log; sets SUPERVISED_PID[NAME].
supervise_spawn() {
  local name=$1 mode=$2 log=${SUPERVISED_LOG[$1]}
  if [ "$mode" = first ]; then : >"$log"; fi
  # exec all the way down (subshell -> setsid -> env -> node), so $! is the service's own pid
  eval "exec setsid ${SUPERVISED_CMD[$name]}" >>"$log" 2>&1 </dev/null &
  SUPERVISED_PID[$name]=$!
  SUPERVISED_UP_AT[$name]=$SECONDS
}

# supervise NAME LOG [READY] -- COMMAND...: starts COMMAND and waits until LOG has a line
# matching READY (default: the services' {"msg":"listening"}); dies, with the log's tail,
# when it exits or does not get ready in time. From then on supervise_forever keeps it up.
supervise() {
  local name=$1 log=$2 ready='"msg":"listening"'
  shift 2
  if [ "$1" != -- ]; then ready=$1; shift; fi
  [ "$1" = -- ] || die "supervise $name: expected -- before the command"
  shift
  SUPERVISED+=("$name")
  SUPERVISED_CMD[$name]=$(printf '%q ' "$@")
  SUPERVISED_LOG[$name]=$log
  SUPERVISED_BACKOFF[$name]=1
  SUPERVISED_RESTART_AT[$name]=0
  supervise_spawn "$name" first
  local pid=${SUPERVISED_PID[$name]} waited=0
  while ! grep -q "$ready" "$log" 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null || { tail -n 30 "$log"; die "$name exited during startup"; }
    if [ "$waited" -ge $((SUPERVISE_READY_TIMEOUT * 5)) ]; then
      tail -n 30 "$log"
      die "$name did not start within $SUPERVISE_READY_TIMEOUT s"
    fi
    sleep 0.2
    waited=$((waited + 1))
  done
  say "$name is up (pid $pid, log $log)"
}

# One look at every service: a dead one gets its restart scheduled (and is reaped, for its
# exit status); one whose back-off has passed is started again.
supervise_check() {
  local name pid status
  for name in "${SUPERVISED[@]}"; do
    pid=${SUPERVISED_PID[$name]}
    if [ -n "$pid" ]; then
      kill -0 "$pid" 2>/dev/null && continue
      status=0
      wait "$pid" 2>/dev/null || status=$?
      if [ $((SECONDS - ${SUPERVISED_UP_AT[$name]})) -ge "$SUPERVISE_STABLE_AFTER" ]; then
        SUPERVISED_BACKOFF[$name]=1
      fi
      SUPERVISED_PID[$name]=''
      SUPERVISED_RESTART_AT[$name]=$((SECONDS + ${SUPERVISED_BACKOFF[$name]}))
      warn "$name (pid $pid) exited with status $status; restarting it in ${SUPERVISED_BACKOFF[$name]} s (log ${SUPERVISED_LOG[$name]})"
    elif [ "$SECONDS" -ge "${SUPERVISED_RESTART_AT[$name]}" ]; then
      printf '\n--- restarted by scripts/up.sh at %s ---\n' "$(date -u +%FT%TZ)" >>"${SUPERVISED_LOG[$name]}"
      supervise_spawn "$name" again
      say "$name restarted (pid ${SUPERVISED_PID[$name]}) after a ${SUPERVISED_BACKOFF[$name]} s back-off"
      local next=$((${SUPERVISED_BACKOFF[$name]} * 2))
      SUPERVISED_BACKOFF[$name]=$((next > SUPERVISE_MAX_BACKOFF ? SUPERVISE_MAX_BACKOFF : next))
    fi
  done
}

# Functions called on every look besides the services' (e.g. kafka_watch_check); each keeps
# its own pace.
SUPERVISE_WATCHERS=()

# Watches the services until a signal ends the calling script (its trap stops them).
supervise_forever() {
  local watcher
  while true; do
    supervise_check
    for watcher in "${SUPERVISE_WATCHERS[@]}"; do "$watcher"; done
    # sleep in the background and wait for it, so a signal is handled at once
    sleep 0.5 &
    wait $! 2>/dev/null || true
  done
}

# SIGTERM to every running service (a graceful stop), then waits for each; a service still
# running after SUPERVISE_STOP_TIMEOUT seconds (15) gets SIGKILL.
supervise_stop_all() {
  local name pid waited
  for name in "${SUPERVISED[@]}"; do
    pid=${SUPERVISED_PID[$name]}
    [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null || true
  done
  for name in "${SUPERVISED[@]}"; do
    pid=${SUPERVISED_PID[$name]}
    [ -n "$pid" ] || continue
    waited=0
    while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt $((${SUPERVISE_STOP_TIMEOUT:-15} * 5)) ]; do
      sleep 0.2
      waited=$((waited + 1))
    done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    SUPERVISED_PID[$name]=''
  done
}
