#!/usr/bin/env bash
# scripts/kafka.sh - run a real single-node Apache Kafka broker (KRaft mode,
# broker+controller in one JVM) for local development and tests, without
# Docker. Kafka's own jars are resolved once from Maven Central with `mvn`
# and cached; after that no network is needed.
#
# Usage:
#   scripts/kafka.sh ensure   start the broker unless something already
#                             accepts TCP connections on $KAFKA_HOST:$KAFKA_PORT
#   scripts/kafka.sh stop     stop the broker this script started (pid file)
#   scripts/kafka.sh status   say whether the port answers and whose pid it is
#                             (exit 0 when the port answers, 3 when it does not)
#   scripts/kafka.sh scram-password USER PASSWORD
#                             set USER's SCRAM-SHA-512 and SCRAM-SHA-256 password on the
#                             running broker (Kafka's ConfigCommand over the PLAINTEXT
#                             listener): a credential rotation, as an operator does it
#                             (the SASL_SSL listener's tests, issue 60)
#
# Environment (defaults in brackets):
#   KAFKA_HOST            [127.0.0.1]
#   KAFKA_PORT            [9092]   PLAINTEXT listener
#   KAFKA_CONTROLLER_PORT [9093]   KRaft controller listener
#   KAFKA_SASL_SSL_PORT   [unset]  also a SASL_SSL listener on this port (issue 43): TLS
#                         with a test CA and broker certificate made in
#                         $KAFKA_DATA_DIR/tls/ (ca.pem is what clients trust), and
#                         SASL SCRAM-SHA-512, SCRAM-SHA-256 and PLAIN for one user.
#                         Never on the shared broker: give it its own KAFKA_PORT,
#                         KAFKA_CONTROLLER_PORT and KAFKA_DATA_DIR, e.g.
#                         KAFKA_PORT=9095 KAFKA_CONTROLLER_PORT=9096 KAFKA_SASL_SSL_PORT=9094
#                         KAFKA_DATA_DIR=.local/kafka-sasl scripts/kafka.sh ensure
#   KAFKA_NODE_ID         [1]      this node's id; with the four below, one node of a
#                         small KRaft cluster (every node broker and controller; start
#                         the nodes' `ensure` at once: a node is ready only once a
#                         majority of the voters runs). Each node has its own ports and
#                         data dir (the fault suite's three brokers, issue 60).
#   KAFKA_CONTROLLER_QUORUM_VOTERS [<node id>@$KAFKA_HOST:$KAFKA_CONTROLLER_PORT]
#                         every voter, e.g. 1@127.0.0.1:19093,2@127.0.0.1:19193
#   KAFKA_CLUSTER_ID      [random]  the id every node of one cluster is formatted with
#                         (22 base64url characters)
#   KAFKA_REPLICATION_FACTOR  [1]  default and internal topics' replication factor
#   KAFKA_MIN_INSYNC_REPLICAS [1]  min.insync.replicas (and the internal topics' min ISR)
#   KAFKA_TEST_SASL_USER     [brand]              that user (SCRAM users are made when
#   KAFKA_TEST_SASL_PASSWORD [brand-test-secret]  the storage is formatted)
#   KAFKA_DATA_DIR        [<repo>/.local/kafka]  pid file, server.log
#                         (broker stdout/stderr), server.properties, logs/ (log.dirs)
#   KAFKA_VERSION         [see DEFAULT_KAFKA_VERSION below]
#   KAFKA_CACHE_DIR       [${XDG_CACHE_HOME:-$HOME/.cache}/brand-records/kafka-$KAFKA_VERSION]
#   KAFKA_HEAP_OPTS       [-Xms256m -Xmx512m]
#   KAFKA_JVM_OPTS        []  more JVM flags for the broker and the storage tool;
#                         npm test gives its brokers -XX:TieredStopAtLevel=1 (the
#                         quick compiler only: a broker starts on ~2/3 of the CPU,
#                         and a test's load never needs the optimising compiler)
#   KAFKA_START_TIMEOUT   [90]  seconds `ensure` waits for the broker
#   KAFKA_STOP_TIMEOUT    [20]  seconds `stop` waits after SIGTERM before SIGKILL
#   JAVA_HOME             java is $JAVA_HOME/bin/java when set, else `java` on PATH
#
# Version notes (checked on Debian 12, OpenJDK 17.0.15, Maven 3.8.7):
#   - Default is 4.3.1, the newest Kafka fully published on Maven Central when
#     this was written. Verified end to end (start, kafkajs 2.2.4 create
#     topic / produce / consume with a group, stop, restart on existing data)
#     with 4.3.1, 4.1.2 and 3.9.2 (the last 3.9.x). 4.4.0's kafka_2.13 pom
#     was on Central but its dependency kafka-tools-api:4.4.0 was not, so it
#     could not be resolved then.
#   - Kafka 3.9.x: kafka_2.13 ships no slf4j binding; we add
#     org.slf4j:slf4j-reload4j:1.7.36 + ch.qos.reload4j:reload4j:1.2.25 and
#     configure it with -Dlog4j.configuration=file:scripts/kafka/log4j.properties.
#   - Kafka 4.x: kafka_2.13 depends on log4j-api/log4j-core (2.25.3 for 4.1.2,
#     2.25.4 for 4.3.1); we add org.apache.logging.log4j:log4j-slf4j-impl at
#     that same version (read from the jars of a first resolution pass) and
#     configure it with -Dlog4j2.configurationFile=scripts/kafka/log4j2.properties.
#     4.x brokers need Java 17+ and share.coordinator.state.topic.* lowered to
#     1 on a single node.
#   - The data dir is formatted (kafka.tools.StorageTool format, static
#     controller.quorum.voters, no --standalone) only when logs/ has no
#     meta.properties yet. Going back to an older KAFKA_VERSION on a data dir
#     formatted by a newer one will not work: `stop`, delete the data dir.
set -Eeuo pipefail

DEFAULT_KAFKA_VERSION=4.3.1

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd -P)"
TEMPLATE_DIR="$SCRIPT_DIR/kafka"

KAFKA_HOST="${KAFKA_HOST:-127.0.0.1}"
KAFKA_PORT="${KAFKA_PORT:-9092}"
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-9093}"
KAFKA_SASL_SSL_PORT="${KAFKA_SASL_SSL_PORT:-}"
KAFKA_NODE_ID="${KAFKA_NODE_ID:-1}"
KAFKA_CONTROLLER_QUORUM_VOTERS="${KAFKA_CONTROLLER_QUORUM_VOTERS:-$KAFKA_NODE_ID@$KAFKA_HOST:$KAFKA_CONTROLLER_PORT}"
KAFKA_CLUSTER_ID="${KAFKA_CLUSTER_ID:-}"
KAFKA_REPLICATION_FACTOR="${KAFKA_REPLICATION_FACTOR:-1}"
KAFKA_MIN_INSYNC_REPLICAS="${KAFKA_MIN_INSYNC_REPLICAS:-1}"
KAFKA_TEST_SASL_USER="${KAFKA_TEST_SASL_USER:-brand}"
KAFKA_TEST_SASL_PASSWORD="${KAFKA_TEST_SASL_PASSWORD:-brand-test-secret}"
KAFKA_DATA_DIR="${KAFKA_DATA_DIR:-$REPO_ROOT/.local/kafka}"
KAFKA_VERSION="${KAFKA_VERSION:-$DEFAULT_KAFKA_VERSION}"
KAFKA_CACHE_DIR="${KAFKA_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/brand-records/kafka-$KAFKA_VERSION}"
# The broker runs with the data dir as its cwd: make both paths absolute.
[[ "$KAFKA_DATA_DIR" == /* ]] || KAFKA_DATA_DIR="$PWD/$KAFKA_DATA_DIR"
[[ "$KAFKA_CACHE_DIR" == /* ]] || KAFKA_CACHE_DIR="$PWD/$KAFKA_CACHE_DIR"
KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m}"
KAFKA_START_TIMEOUT="${KAFKA_START_TIMEOUT:-90}"
KAFKA_STOP_TIMEOUT="${KAFKA_STOP_TIMEOUT:-20}"

MAVEN_DEPENDENCY_PLUGIN="org.apache.maven.plugins:maven-dependency-plugin:3.8.1"
RELOAD4J_SLF4J_VERSION=1.7.36
RELOAD4J_VERSION=1.2.25

PID_FILE="$KAFKA_DATA_DIR/kafka.pid"
LOG_FILE="$KAFKA_DATA_DIR/server.log"
PROPS_FILE="$KAFKA_DATA_DIR/server.properties"
LOG_DIRS="$KAFKA_DATA_DIR/logs"
TLS_DIR="$KAFKA_DATA_DIR/tls"
LOCK_FILE="$KAFKA_DATA_DIR/.kafka.sh.lock"
LIB_DIR="$KAFKA_CACHE_DIR/lib"
CACHE_MARKER="$KAFKA_CACHE_DIR/.resolved"

ADDR="$KAFKA_HOST:$KAFKA_PORT"

say() { printf 'kafka: %s\n' "$*"; }
err() { printf 'kafka: ERROR: %s\n' "$*" >&2; }
die() { err "$*"; exit 1; }

kafka_major() { printf '%s' "${KAFKA_VERSION%%.*}"; }

validate_env() {
  [[ "$KAFKA_VERSION" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] \
    || die "KAFKA_VERSION must look like 3.9.1 (got '$KAFKA_VERSION')"
  (( $(kafka_major) >= 3 )) || die "KAFKA_VERSION $KAFKA_VERSION is not supported (need 3.x or newer, KRaft)"
  local p
  for p in KAFKA_PORT KAFKA_CONTROLLER_PORT KAFKA_START_TIMEOUT KAFKA_STOP_TIMEOUT \
    KAFKA_NODE_ID KAFKA_REPLICATION_FACTOR KAFKA_MIN_INSYNC_REPLICAS; do
    [[ "${!p}" =~ ^[0-9]+$ ]] || die "$p must be a number (got '${!p}')"
  done
  [[ "$KAFKA_CONTROLLER_QUORUM_VOTERS" =~ ^[0-9]+@[A-Za-z0-9.-]+:[0-9]+(,[0-9]+@[A-Za-z0-9.-]+:[0-9]+)*$ ]] \
    || die "KAFKA_CONTROLLER_QUORUM_VOTERS must look like 1@127.0.0.1:9093,2@127.0.0.1:9193 (got '$KAFKA_CONTROLLER_QUORUM_VOTERS')"
  [[ -z "$KAFKA_CLUSTER_ID" || "$KAFKA_CLUSTER_ID" =~ ^[A-Za-z0-9_][A-Za-z0-9_-]{21}$ ]] \
    || die "KAFKA_CLUSTER_ID must be 22 base64url characters (got '$KAFKA_CLUSTER_ID')"
  [[ "$KAFKA_PORT" != "$KAFKA_CONTROLLER_PORT" ]] \
    || die "KAFKA_PORT and KAFKA_CONTROLLER_PORT must differ (both $KAFKA_PORT)"
  if [[ -n "$KAFKA_SASL_SSL_PORT" ]]; then
    [[ "$KAFKA_SASL_SSL_PORT" =~ ^[0-9]+$ ]] \
      || die "KAFKA_SASL_SSL_PORT must be a number (got '$KAFKA_SASL_SSL_PORT')"
    [[ "$KAFKA_SASL_SSL_PORT" != "$KAFKA_PORT" && "$KAFKA_SASL_SSL_PORT" != "$KAFKA_CONTROLLER_PORT" ]] \
      || die "KAFKA_SASL_SSL_PORT must differ from KAFKA_PORT and KAFKA_CONTROLLER_PORT"
    # They go into a JAAS line and a SCRAM credential: keep them to plain characters.
    [[ "$KAFKA_TEST_SASL_USER" =~ ^[A-Za-z0-9_.-]+$ && "$KAFKA_TEST_SASL_PASSWORD" =~ ^[A-Za-z0-9_.-]+$ ]] \
      || die "KAFKA_TEST_SASL_USER and KAFKA_TEST_SASL_PASSWORD must be letters, digits, '_', '.' or '-'"
  fi
  [[ "$KAFKA_HOST" =~ ^[A-Za-z0-9.-]+$ ]] \
    || die "KAFKA_HOST must be a hostname or IPv4 address (got '$KAFKA_HOST')"
  # log.dirs is a comma-separated list and .properties treats '\' as escape.
  [[ "$KAFKA_DATA_DIR" != *[,\\]* ]] \
    || die "KAFKA_DATA_DIR must not contain ',' or '\\' (got '$KAFKA_DATA_DIR')"
}

# True when something accepts TCP connections on host:port.
port_open() {
  # shellcheck disable=SC2016  # expanded by the inner bash, on purpose
  timeout 2 bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ "$1" "$2" 2>/dev/null
}

# Print the digits in the pid file (nothing if it is missing).
read_pid_file() {
  [[ -f "$PID_FILE" ]] || return 0
  tr -dc '0-9' 2>/dev/null <"$PID_FILE" || true
}

# Print the pid from the pid file if it names a live process that is the
# broker started by this script for this data dir; fail otherwise.
our_pid() {
  [[ -f "$PID_FILE" ]] || return 1
  local pid cmdline
  pid="$(read_pid_file)"
  [[ -n "$pid" ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  # Guard against pid reuse: the process must be a kafka.Kafka JVM using
  # this data dir's server.properties.
  cmdline="$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" || true)"
  [[ "$cmdline" == *" kafka.Kafka $PROPS_FILE"* ]] || return 1
  printf '%s\n' "$pid"
}

# Stop a pid we own: SIGTERM, wait up to $2 seconds, then SIGKILL.
terminate() {
  local pid="$1" grace="$2" i
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < grace * 4; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.25
  done
  err "broker pid $pid did not exit ${grace}s after SIGTERM; sending SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
  for ((i = 0; i < 40; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.25
  done
  err "broker pid $pid still alive after SIGKILL"
  return 1
}

take_lock() {
  mkdir -p "$KAFKA_DATA_DIR"
  # Keep the runtime data out of git even if the repo has no ignore rule.
  [[ -e "$KAFKA_DATA_DIR/.gitignore" ]] || printf '*\n' >"$KAFKA_DATA_DIR/.gitignore"
  exec 9>"$LOCK_FILE"
  if ! flock -w 600 9; then
    die "could not lock $LOCK_FILE within 600s (another scripts/kafka.sh still running?)"
  fi
}

java_bin() {
  if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then
    printf '%s\n' "$JAVA_HOME/bin/java"
  elif command -v java >/dev/null 2>&1; then
    command -v java
  else
    die "java not found (install a JDK 17+ or set JAVA_HOME)"
  fi
}

check_java() {
  local java="$1" ver major need=11
  (( $(kafka_major) >= 4 )) && need=17
  ver="$("$java" -version 2>&1 | sed -n 's/.*version "\([^"]*\)".*/\1/p' | head -n1)"
  major="${ver%%.*}"
  [[ "$major" == 1 ]] && major="$(cut -d. -f2 <<<"$ver")"
  [[ "$major" =~ ^[0-9]+$ ]] || die "could not read the Java version from '$java -version'"
  (( major >= need )) || die "Kafka $KAFKA_VERSION needs Java $need+, but $java is Java $ver"
}

write_pom() {
  # $1 = file, $2.. = extra dependencies as group:artifact:version
  local file="$1" dep g a v
  shift
  {
    cat <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<!-- Generated by scripts/kafka.sh: jars for a local Kafka $KAFKA_VERSION broker. -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.brand-records</groupId>
  <artifactId>kafka-runtime</artifactId>
  <version>$KAFKA_VERSION</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka_2.13</artifactId>
      <version>$KAFKA_VERSION</version>
    </dependency>
EOF
    for dep in "$@"; do
      IFS=: read -r g a v <<<"$dep"
      cat <<EOF
    <dependency>
      <groupId>$g</groupId>
      <artifactId>$a</artifactId>
      <version>$v</version>
    </dependency>
EOF
    done
    cat <<'EOF'
  </dependencies>
</project>
EOF
  } >"$file"
}

run_mvn() {
  # $1 = project dir; output goes to $1/mvn.log, shown on failure.
  local dir="$1"
  if ! (cd "$dir" && mvn -B -q -Dstyle.color=never "$MAVEN_DEPENDENCY_PLUGIN:copy-dependencies" \
        -DincludeScope=runtime -DoutputDirectory=lib) >>"$dir/mvn.log" 2>&1; then
    # Keep the evidence: the temp dir itself is removed on exit.
    local keep="$KAFKA_CACHE_DIR.failed.log"
    { echo "== pom.xml"; cat "$dir/pom.xml"; echo "== mvn output"; cat "$dir/mvn.log"; } >"$keep" 2>/dev/null || true
    err "Maven could not resolve the jars for Kafka $KAFKA_VERSION (is that version on Maven Central? pom and full output: $keep). Maven said:"
    grep -v '^\[ERROR\] *$' "$dir/mvn.log" | tail -n 40 >&2 || true
    return 1
  fi
}

# Resolve Kafka's jars into $KAFKA_CACHE_DIR/lib once. Work happens in a temp
# dir next to the cache dir, which is renamed into place only when complete.
resolve_jars() {
  [[ -f "$CACHE_MARKER" && -d "$LIB_DIR" ]] && return 0
  command -v mvn >/dev/null 2>&1 || die "mvn not found: Maven is needed once to fetch Kafka $KAFKA_VERSION jars"
  local parent lockfd tmp log4j_core_jar log4j_ver
  parent="$(dirname "$KAFKA_CACHE_DIR")"
  mkdir -p "$parent"
  exec {lockfd}>"$KAFKA_CACHE_DIR.lock"
  flock -w 600 "$lockfd" || die "could not lock $KAFKA_CACHE_DIR.lock within 600s"
  if [[ -f "$CACHE_MARKER" && -d "$LIB_DIR" ]]; then
    exec {lockfd}>&-
    return 0
  fi
  say "resolving Kafka $KAFKA_VERSION jars with Maven into $KAFKA_CACHE_DIR (one-time)" >&2
  # Leftovers of interrupted runs (we hold the lock, so none is in use).
  rm -rf "$parent/.kafka-$KAFKA_VERSION.tmp."*
  tmp="$(mktemp -d "$parent/.kafka-$KAFKA_VERSION.tmp.XXXXXX")"
  RESOLVE_TMP="$tmp"
  # Pass 1: Kafka alone, to learn which logging backend it already pulls in.
  write_pom "$tmp/pom.xml"
  run_mvn "$tmp" || exit 1
  log4j_core_jar="$(compgen -G "$tmp/lib/log4j-core-*.jar" | head -n1 || true)"
  log4j_core_jar="${log4j_core_jar##*/}"
  # Pass 2: add the matching slf4j binding (Kafka itself only needs slf4j-api).
  if [[ -n "$log4j_core_jar" ]]; then
    log4j_ver="${log4j_core_jar#log4j-core-}"
    log4j_ver="${log4j_ver%.jar}"
    write_pom "$tmp/pom.xml" \
      "org.apache.logging.log4j:log4j-slf4j-impl:$log4j_ver" \
      "org.apache.logging.log4j:log4j-api:$log4j_ver" \
      "org.apache.logging.log4j:log4j-core:$log4j_ver"
  else
    write_pom "$tmp/pom.xml" \
      "org.slf4j:slf4j-reload4j:$RELOAD4J_SLF4J_VERSION" \
      "ch.qos.reload4j:reload4j:$RELOAD4J_VERSION"
  fi
  rm -rf "${tmp:?}/lib"
  run_mvn "$tmp" || exit 1
  [[ -f "$tmp/lib/kafka_2.13-$KAFKA_VERSION.jar" ]] \
    || die "Maven finished but lib/kafka_2.13-$KAFKA_VERSION.jar is missing in $tmp"
  compgen -G "$tmp/lib/log4j-slf4j-impl-*.jar" >/dev/null || compgen -G "$tmp/lib/slf4j-reload4j-*.jar" >/dev/null \
    || die "Maven finished but no slf4j binding jar is in $tmp/lib"
  date -u +%Y-%m-%dT%H:%M:%SZ >"$tmp/.resolved"
  rm -f "$KAFKA_CACHE_DIR.failed.log"
  # A cache dir without the marker is a leftover from an older, broken run.
  [[ -e "$KAFKA_CACHE_DIR" ]] && rm -rf "$KAFKA_CACHE_DIR"
  chmod 755 "$tmp"
  mv -T "$tmp" "$KAFKA_CACHE_DIR"
  RESOLVE_TMP=""
  exec {lockfd}>&-
}

render_config() {
  local tmpl="$TEMPLATE_DIR/server.properties.in" line out
  [[ -f "$tmpl" ]] || die "missing template $tmpl"
  out="$PROPS_FILE.tmp.$$"
  {
    while IFS= read -r line || [[ -n "$line" ]]; do
      line="${line//@HOST@/"$KAFKA_HOST"}"
      line="${line//@PORT@/"$KAFKA_PORT"}"
      line="${line//@CONTROLLER_PORT@/"$KAFKA_CONTROLLER_PORT"}"
      line="${line//@LOG_DIRS@/"$LOG_DIRS"}"
      line="${line//@NODE_ID@/"$KAFKA_NODE_ID"}"
      line="${line//@VOTERS@/"$KAFKA_CONTROLLER_QUORUM_VOTERS"}"
      line="${line//@REPLICATION@/"$KAFKA_REPLICATION_FACTOR"}"
      line="${line//@MIN_ISR@/"$KAFKA_MIN_INSYNC_REPLICAS"}"
      printf '%s\n' "$line"
    done <"$tmpl"
    if (( $(kafka_major) >= 4 )); then
      printf '\n# Kafka 4.x share groups (KIP-932) internal topic, as the other internal topics.\n'
      printf 'share.coordinator.state.topic.replication.factor=%s\n' "$KAFKA_REPLICATION_FACTOR"
      printf 'share.coordinator.state.topic.min.isr=%s\n' "$KAFKA_MIN_INSYNC_REPLICAS"
    fi
    [[ -z "$KAFKA_SASL_SSL_PORT" ]] || sasl_ssl_properties
  } >"$out"
  mv -f "$out" "$PROPS_FILE"
}

# The SASL_SSL listener's settings; later keys of a .properties file win, so the
# listener lists of the template are restated with it.
sasl_ssl_properties() {
  local h="$KAFKA_HOST" user="$KAFKA_TEST_SASL_USER" pass="$KAFKA_TEST_SASL_PASSWORD"
  cat <<EOF

# SASL_SSL listener (KAFKA_SASL_SSL_PORT; issue 43): a test CA, SCRAM users made at format.
listeners=PLAINTEXT://$h:$KAFKA_PORT,CONTROLLER://$h:$KAFKA_CONTROLLER_PORT,SASL_SSL://$h:$KAFKA_SASL_SSL_PORT
advertised.listeners=PLAINTEXT://$h:$KAFKA_PORT,SASL_SSL://$h:$KAFKA_SASL_SSL_PORT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL
sasl.enabled.mechanisms=SCRAM-SHA-512,SCRAM-SHA-256,PLAIN
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_$user="$pass";
listener.name.sasl_ssl.ssl.keystore.type=PEM
listener.name.sasl_ssl.ssl.keystore.location=$TLS_DIR/broker.pem
EOF
}

# A test CA and a broker certificate for localhost, 127.0.0.1 and ::1 (the same script
# as the local HTTPS receivers' CA), kept across restarts; the broker reads an
# unencrypted PKCS#8 key followed by its certificate from one PEM file.
ensure_broker_certificate() {
  [[ -f "$TLS_DIR/broker.pem" ]] && return 0
  command -v openssl >/dev/null 2>&1 || die "openssl not found: it makes the SASL_SSL listener's test CA"
  bash "$SCRIPT_DIR/lib/testCa.sh" "$TLS_DIR" || die "could not make the test CA in $TLS_DIR"
  cat "$TLS_DIR/localhost-key.pem" "$TLS_DIR/localhost.pem" >"$TLS_DIR/broker.pem.tmp"
  chmod 600 "$TLS_DIR/broker.pem.tmp"
  mv -f "$TLS_DIR/broker.pem.tmp" "$TLS_DIR/broker.pem"
}

# JVM command line shared by the storage tool and the broker.
JAVA_CMD=()
build_java_cmd() {
  local java heap extra
  java="$(java_bin)"
  check_java "$java"
  read -r -a heap <<<"$KAFKA_HEAP_OPTS"
  read -r -a extra <<<"${KAFKA_JVM_OPTS:-}"
  JAVA_CMD=("$java" "${heap[@]}" "${extra[@]}" -XX:+UseG1GC -XX:MaxGCPauseMillis=20
    -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent
    -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true)
  if compgen -G "$LIB_DIR/log4j-slf4j-impl-*.jar" >/dev/null; then
    JAVA_CMD+=("-Dlog4j2.configurationFile=$TEMPLATE_DIR/log4j2.properties")
  else
    JAVA_CMD+=("-Dlog4j.configuration=file:$TEMPLATE_DIR/log4j.properties")
  fi
  JAVA_CMD+=(-cp "$LIB_DIR/*")
}

format_storage_if_needed() {
  if [[ -f "$LOG_DIRS/meta.properties" ]]; then
    local by
    by="$(cat "$KAFKA_DATA_DIR/formatted-by-version" 2>/dev/null || true)"
    if [[ -n "$by" && "$by" != "$KAFKA_VERSION" ]] \
      && [[ "$(printf '%s\n%s\n' "$by" "$KAFKA_VERSION" | sort -V | tail -n1)" == "$by" ]]; then
      die "data dir $KAFKA_DATA_DIR was created by Kafka $by; Kafka $KAFKA_VERSION is older and cannot read it. Run '$0 stop', delete that dir, and retry."
    fi
    return 0
  fi
  local cluster_id="$KAFKA_CLUSTER_ID" out
  # 16 random bytes, base64url without padding = 22 chars (a Kafka Uuid).
  # Avoid a leading '-' so the id is never taken for an option.
  while [[ -z "$KAFKA_CLUSTER_ID" ]]; do
    cluster_id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')"
    [[ ${#cluster_id} -eq 22 && "$cluster_id" != -* ]] && break
  done
  mkdir -p "$LOG_DIRS"
  local scram=()
  if [[ -n "$KAFKA_SASL_SSL_PORT" ]]; then
    local m
    for m in SCRAM-SHA-512 SCRAM-SHA-256; do
      scram+=(--add-scram "$m=[name=$KAFKA_TEST_SASL_USER,password=$KAFKA_TEST_SASL_PASSWORD]")
    done
  fi
  if ! out="$("${JAVA_CMD[@]}" kafka.tools.StorageTool format -t "$cluster_id" -c "$PROPS_FILE" "${scram[@]}" 2>&1)"; then
    err "formatting $LOG_DIRS failed:"
    printf '%s\n' "$out" >&2
    exit 1
  fi
  [[ -f "$LOG_DIRS/meta.properties" ]] || { err "format reported success but wrote no meta.properties:"; printf '%s\n' "$out" >&2; exit 1; }
  printf '%s\n' "$KAFKA_VERSION" >"$KAFKA_DATA_DIR/formatted-by-version"
}

STARTING_PID=""
LAUNCHED=0
abort_start() {
  # Called on timeout, early exit or interrupt: leave no broker behind.
  local why="$1" i
  if [[ -z "$STARTING_PID" && "$LAUNCHED" == 1 ]]; then
    # Launched, but its pid file may not be written yet: give it a moment.
    for ((i = 0; i < 12; i++)); do
      STARTING_PID="$(our_pid || true)"
      [[ -n "$STARTING_PID" ]] && break
      sleep 0.25
    done
  fi
  LAUNCHED=0
  if [[ -n "$STARTING_PID" ]]; then
    terminate "$STARTING_PID" 10 || true
    STARTING_PID=""
  fi
  rm -f "$PID_FILE"
  err "$why"
  if [[ -f "$LOG_FILE" ]]; then
    err "last 40 lines of $LOG_FILE:"
    tail -n 40 "$LOG_FILE" >&2 || true
  fi
}

cleanup_on_exit() {
  local rc=$?
  if [[ -n "${RESOLVE_TMP:-}" && -d "$RESOLVE_TMP" ]]; then
    rm -rf "$RESOLVE_TMP"
  fi
  if [[ -n "$STARTING_PID" || "$LAUNCHED" == 1 ]]; then
    abort_start "ensure exited before the broker was ready; stopped it"
  fi
  return "$rc"
}

cmd_ensure() {
  if port_open "$KAFKA_HOST" "$KAFKA_PORT"; then
    say "already listening on $ADDR"
    return 0
  fi
  take_lock
  # Another ensure may have started it while we waited for the lock.
  if port_open "$KAFKA_HOST" "$KAFKA_PORT"; then
    say "already listening on $ADDR"
    return 0
  fi
  local pid
  if pid="$(our_pid)"; then
    err "broker pid $pid (ours) is running but $ADDR does not answer; restarting it"
    terminate "$pid" "$KAFKA_STOP_TIMEOUT" || die "could not stop unresponsive broker pid $pid"
  fi
  rm -f "$PID_FILE"
  if port_open "$KAFKA_HOST" "$KAFKA_CONTROLLER_PORT"; then
    die "controller port $KAFKA_HOST:$KAFKA_CONTROLLER_PORT is taken by another process; set KAFKA_CONTROLLER_PORT"
  fi

  resolve_jars
  build_java_cmd
  [[ -z "$KAFKA_SASL_SSL_PORT" ]] || ensure_broker_certificate
  render_config
  format_storage_if_needed

  [[ -f "$LOG_FILE" ]] && mv -f "$LOG_FILE" "$LOG_FILE.1"
  : >"$LOG_FILE"
  trap 'abort_start "interrupted while starting; stopped the broker"; exit 130' INT TERM HUP
  # New session (no controlling terminal, own process group): the broker
  # survives the calling shell and never sees the caller's Ctrl-C. The inner
  # shell records its own pid and then execs java, so the pid file names the
  # JVM whether or not setsid had to fork. It also closes every inherited fd
  # above 2 (our lock, and any pipe of the caller, which would otherwise make
  # a caller reading our output or a CI runner wait for the broker to exit).
  LAUNCHED=1
  # shellcheck disable=SC2016  # expanded by the inner bash, on purpose
  (cd "$KAFKA_DATA_DIR" && exec setsid -f nohup bash -c '
      for fd in /proc/self/fd/*; do fd="${fd##*/}"; if ((fd > 2)); then exec {fd}>&-; fi; done
      echo "$$" >"$1"; shift; exec "$@"' \
    kafka-broker "$PID_FILE" "${JAVA_CMD[@]}" kafka.Kafka "$PROPS_FILE" \
    </dev/null >>"$LOG_FILE" 2>&1 9>&-)

  local deadline=$((SECONDS + KAFKA_START_TIMEOUT)) started=0
  while ((SECONDS < deadline)); do
    if [[ -z "$STARTING_PID" ]]; then
      STARTING_PID="$(our_pid || true)"
      if [[ -z "$STARTING_PID" ]]; then
        pid="$(read_pid_file)"
        if [[ -n "$pid" ]] && ! kill -0 "$pid" 2>/dev/null; then
          LAUNCHED=0
          abort_start "broker exited right after launch"
          exit 1
        fi
      fi
    elif ! kill -0 "$STARTING_PID" 2>/dev/null; then
      STARTING_PID=""
      LAUNCHED=0
      abort_start "broker exited during startup"
      exit 1
    fi
    if [[ -n "$STARTING_PID" ]]; then
      if ((started == 0)) && grep -q 'Kafka Server started' "$LOG_FILE"; then
        started=1
      fi
      if ((started == 1)) && port_open "$KAFKA_HOST" "$KAFKA_PORT" \
        && { [[ -z "$KAFKA_SASL_SSL_PORT" ]] || port_open "$KAFKA_HOST" "$KAFKA_SASL_SSL_PORT"; }; then
        pid="$STARTING_PID"
        STARTING_PID=""
        LAUNCHED=0
        trap - INT TERM HUP
        say "started on $ADDR (pid $pid, data $KAFKA_DATA_DIR)"
        [[ -z "$KAFKA_SASL_SSL_PORT" ]] \
          || say "SASL_SSL on $KAFKA_HOST:$KAFKA_SASL_SSL_PORT (user $KAFKA_TEST_SASL_USER, CA $TLS_DIR/ca.pem)"
        return 0
      fi
    fi
    sleep 0.25
  done
  abort_start "broker not ready on $ADDR within ${KAFKA_START_TIMEOUT}s (log: $LOG_FILE); stopped it"
  exit 1
}

cmd_stop() {
  if [[ ! -d "$KAFKA_DATA_DIR" ]]; then
    say "not running (no data dir $KAFKA_DATA_DIR)"
    return 0
  fi
  take_lock
  local pid
  if ! pid="$(our_pid)"; then
    if [[ -f "$PID_FILE" ]]; then
      rm -f "$PID_FILE"
      say "not running (removed stale pid file $PID_FILE)"
    else
      say "not running (no pid file in $KAFKA_DATA_DIR)"
    fi
    if port_open "$KAFKA_HOST" "$KAFKA_PORT"; then
      say "note: something not started by this script listens on $ADDR; left alone"
    fi
    return 0
  fi
  terminate "$pid" "$KAFKA_STOP_TIMEOUT" || die "could not stop broker pid $pid"
  rm -f "$PID_FILE"
  say "stopped (pid $pid)"
}

cmd_scram_password() {
  local user="${1:-}" password="${2:-}"
  [[ "$user" =~ ^[A-Za-z0-9_.-]+$ && "$password" =~ ^[A-Za-z0-9_.-]+$ ]] \
    || die "usage: $0 scram-password USER PASSWORD (letters, digits, '_', '.' or '-')"
  port_open "$KAFKA_HOST" "$KAFKA_PORT" || die "no broker answers on $ADDR"
  resolve_jars
  build_java_cmd
  local m
  # one mechanism a request: the broker refuses two changes of one user's credentials at once
  for m in SCRAM-SHA-512 SCRAM-SHA-256; do
    "${JAVA_CMD[@]}" kafka.admin.ConfigCommand --bootstrap-server "$ADDR" --alter \
      --add-config "$m=[password=$password]" --entity-type users --entity-name "$user" >/dev/null \
      || die "could not set the $m password of $user on $ADDR"
  done
  say "SCRAM password of $user changed on $ADDR"
}

cmd_status() {
  local pid="" open=0
  pid="$(our_pid || true)"
  port_open "$KAFKA_HOST" "$KAFKA_PORT" && open=1
  if ((open)) && [[ -n "$pid" ]]; then
    say "listening on $ADDR (pid $pid, started by this script, data $KAFKA_DATA_DIR)"
  elif ((open)); then
    say "listening on $ADDR (not started by this script for $KAFKA_DATA_DIR)"
  elif [[ -n "$pid" ]]; then
    say "not listening on $ADDR, but our broker pid $pid is running (starting or stuck; log: $LOG_FILE)"
  else
    say "not listening on $ADDR (not running)"
  fi
  ((open)) && return 0
  return 3
}

main() {
  validate_env
  trap cleanup_on_exit EXIT
  # Make signals exit through the EXIT trap (temp dirs, half-started broker).
  trap 'exit 130' INT
  trap 'exit 143' TERM
  trap 'exit 129' HUP
  case "${1:-}" in
    ensure) cmd_ensure ;;
    stop) cmd_stop ;;
    status) cmd_status ;;
    scram-password) cmd_scram_password "${@:2}" ;;
    -h | --help | help)
      sed -n '2,/^set -Eeuo/{/^set -Eeuo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"
      ;;
    *)
      err "usage: $0 {ensure|stop|status|scram-password USER PASSWORD}"
      exit 2
      ;;
  esac
}

main "$@"
