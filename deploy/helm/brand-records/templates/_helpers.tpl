{{/* Names and labels. */}}
{{- define "brand-records.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "brand-records.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Name of a component's objects: (dict "root" $ "component" "records") */}}
{{- define "brand-records.componentName" -}}
{{- printf "%s-%s" (include "brand-records.fullname" .root) .component | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "brand-records.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "brand-records.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: brand-records
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* (dict "root" $ "component" "records") */}}
{{- define "brand-records.selectorLabels" -}}
app.kubernetes.io/name: {{ include "brand-records.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "brand-records.componentLabels" -}}
{{ include "brand-records.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "brand-records.image" -}}
{{- $tag := default .Chart.AppVersion .Values.image.tag -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository $tag -}}
{{- end -}}
{{- end -}}

{{/*
The ServiceAccount of a component's pods: (dict "root" $ "component" "records" "key" "records").
Its own `serviceAccount.name` wins; else <fullname>-<component> when the chart creates them;
else the one existing account `serviceAccount.name` (default "default").
*/}}
{{- define "brand-records.serviceAccountName" -}}
{{- $own := (index .root.Values .key).serviceAccount | default dict -}}
{{- if $own.name -}}
{{- $own.name -}}
{{- else if .root.Values.serviceAccount.create -}}
{{- include "brand-records.componentName" . -}}
{{- else -}}
{{- default "default" .root.Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "brand-records.secretName" -}}
{{- if .Values.secrets.create -}}
{{- printf "%s-secrets" (include "brand-records.fullname" .) -}}
{{- else -}}
{{- default (printf "%s-secrets" (include "brand-records.fullname" .)) .Values.secrets.existingSecret -}}
{{- end -}}
{{- end -}}

{{/* A component's job label in Prometheus (set by its ServiceMonitor): (dict "root" $ "component" "gateway"). */}}
{{- define "brand-records.job" -}}
{{- include "brand-records.componentName" . -}}
{{- end -}}

{{/* The PromQL selector of a component's series: namespace and job. */}}
{{- define "brand-records.promSelector" -}}
{{- printf "namespace=%q, job=%q" .root.Release.Namespace (include "brand-records.job" .) -}}
{{- end -}}

{{/*
A runbook link: (list $ "docs/operating.md#<section>"). The repository path as written (which
npm run docs:check resolves to a heading), or under monitoring.prometheusRule.runbookBaseUrl.
*/}}
{{- define "brand-records.runbookUrl" -}}
{{- $base := (index . 0).Values.monitoring.prometheusRule.runbookBaseUrl -}}
{{- $cite := index . 1 -}}
{{- if $base -}}
{{- printf "%s#%s" (trimSuffix "/" $base) (splitList "#" $cite | last) -}}
{{- else -}}
{{- $cite -}}
{{- end -}}
{{- end -}}

{{/* Fully qualified gRPC target of a headless Service, for client-side round-robin. */}}
{{- define "brand-records.grpcTarget" -}}
{{- $svc := printf "%s-headless" (include "brand-records.componentName" .) -}}
{{- printf "dns:///%s.%s.svc.%s:%v" $svc .root.Release.Namespace .root.Values.clusterDomain .port -}}
{{- end -}}

{{/*
The components, one Deployment each. Per component: the values key, the process arguments,
the global config keys it reads, the Secret keys it receives ({env: [secretKey, optional]};
a third element "console": optional only while the console is off, since the console's calls
need them),
and its ports. The webhooks worker shares the webhooks process, ports and config.
*/}}
{{- define "brand-records.components" -}}
{{- $v := .Values -}}
gateway:
  key: gateway
  enabled: {{ $v.gateway.enabled }}
  # V8 heap flags: BENCHMARKS.md "Memory" (peak RSS under load) and "issue 25, sixth pass" (no
  # allocation-site pretenuring: the request path's objects start young)
  args: ["node", "--max-semi-space-size=8", "--heap-growing-percent=100", "--no-allocation-site-pretenuring", "gateway/dist/main.js"]
  globalKeys: [NODE_ENV, LOG_LEVEL, SHUTDOWN_GRACE_MS, OTEL_EXPORTER_OTLP_ENDPOINT, REDIS_KEY_PREFIX, METRICS_HOST]
  secretEnv:
    INTERNAL_TOKEN: [INTERNAL_TOKEN, false]
    REDIS_URL: [REDIS_URL, false]
  httpPort: {{ $v.gateway.ports.http }}
  metricsPort: {{ $v.gateway.ports.metrics }}
  # Probes on the internal listener: the public port serves nothing without a key but the
  # OpenAPI document (issue 47).
  probePort: metrics
  # The services this component calls over gRPC (egress and the services' ingress).
  # webhooks: the events feed (GET /api/v1/events)
  grpcClientOf: [records, plans, webhooks]
  backends: [dns, redis, otlp]
console:
  key: console
  enabled: {{ $v.console.enabled }}
  args: ["node", "console/dist/main.js"]
  globalKeys: [NODE_ENV, LOG_LEVEL, SHUTDOWN_GRACE_MS, OTEL_EXPORTER_OTLP_ENDPOINT, REDIS_KEY_PREFIX, METRICS_HOST]
  secretEnv:
    CONSOLE_TOKEN: [CONSOLE_TOKEN, false]
    REDIS_URL: [REDIS_URL, false]
    SMTP_URL: [SMTP_URL, false]
  httpPort: {{ $v.console.ports.http }}
  metricsPort: {{ $v.console.ports.metrics }}
  # Probes on the internal listener: the public port serves people only.
  probePort: metrics
  livenessPath: /livez
  grpcClientOf: [records, plans, webhooks]
  backends: [dns, redis, smtp, otlp]
records:
  key: records
  enabled: {{ $v.records.enabled }}
  # V8 heap sizing: BENCHMARKS.md "Memory"
  args: ["node", "--max-semi-space-size=16", "--heap-growing-percent=200", "services/records/dist/main.js"]
  globalKeys: [NODE_ENV, LOG_LEVEL, SHUTDOWN_GRACE_MS, OTEL_EXPORTER_OTLP_ENDPOINT, REDIS_KEY_PREFIX, KAFKA_BROKERS, GRPC_HOST, METRICS_HOST]
  secretEnv:
    DATABASE_URL: [RECORDS_DATABASE_URL, false]
    INTERNAL_TOKEN: [INTERNAL_TOKEN, false]
    INTERNAL_TOKENS_PREVIOUS: [INTERNAL_TOKENS_PREVIOUS, true]
    ADMIN_TOKEN: [ADMIN_TOKEN, false]
    ADMIN_TOKENS_PREVIOUS: [ADMIN_TOKENS_PREVIOUS, true]
    CURSOR_SECRET: [CURSOR_SECRET, false]
    CURSOR_SECRETS_PREVIOUS: [CURSOR_SECRETS_PREVIOUS, true]
    REDIS_URL: [REDIS_URL, false]
    CONSOLE_TOKEN: [CONSOLE_TOKEN, true, console]
    CONSOLE_TOKENS_PREVIOUS: [CONSOLE_TOKENS_PREVIOUS, true]
    CONSOLE_ASSERTION_PRIVATE_KEY: [CONSOLE_ASSERTION_PRIVATE_KEY, true, console]
    # Seals SSO client secrets: the webhooks key, the same value (docs/console.md "Single sign-on").
    WEBHOOK_SECRET_KEY: [WEBHOOK_SECRET_KEY, false]
    WEBHOOK_SECRET_KEYS_PREVIOUS: [WEBHOOK_SECRET_KEYS_PREVIOUS, true]
  grpcPort: {{ $v.records.ports.grpc }}
  metricsPort: {{ $v.records.ports.metrics }}
  # webhooks: the audit trail's relay (IngestAuditEntries, issue 63)
  grpcClientOf: [webhooks]
  backends: [dns, postgres, redis, kafka, otlp, identityProviders]
plans:
  key: plans
  enabled: {{ $v.plans.enabled }}
  args: ["node", "services/plans/dist/main.js"]
  globalKeys: [NODE_ENV, LOG_LEVEL, SHUTDOWN_GRACE_MS, OTEL_EXPORTER_OTLP_ENDPOINT, GRPC_HOST, METRICS_HOST]
  secretEnv:
    DATABASE_URL: [PLANS_DATABASE_URL, false]
    INTERNAL_TOKEN: [INTERNAL_TOKEN, false]
    INTERNAL_TOKENS_PREVIOUS: [INTERNAL_TOKENS_PREVIOUS, true]
    ADMIN_TOKEN: [ADMIN_TOKEN, false]
    ADMIN_TOKENS_PREVIOUS: [ADMIN_TOKENS_PREVIOUS, true]
    CONSOLE_TOKEN: [CONSOLE_TOKEN, true, console]
    CONSOLE_TOKENS_PREVIOUS: [CONSOLE_TOKENS_PREVIOUS, true]
    CONSOLE_ASSERTION_PUBLIC_KEY: [CONSOLE_ASSERTION_PUBLIC_KEY, true, console]
    # Former public keys during a key-pair rotation (docs/operating.md "Rotating credentials").
    CONSOLE_ASSERTION_PUBLIC_KEYS_PREVIOUS: [CONSOLE_ASSERTION_PUBLIC_KEYS_PREVIOUS, true]
  grpcPort: {{ $v.plans.ports.grpc }}
  metricsPort: {{ $v.plans.ports.metrics }}
  # webhooks: the audit trail's relay (IngestAuditEntries, issue 63)
  grpcClientOf: [webhooks]
  backends: [dns, postgres, otlp]
webhooks:
  key: webhooks
  enabled: {{ $v.webhooks.enabled }}
  args: ["node", "--max-semi-space-size=8", "--heap-growing-percent=50", "services/webhooks/dist/main.js"]
  roles: admin
  globalKeys: [NODE_ENV, LOG_LEVEL, SHUTDOWN_GRACE_MS, OTEL_EXPORTER_OTLP_ENDPOINT, KAFKA_BROKERS, GRPC_HOST, METRICS_HOST]
  secretEnv:
    DATABASE_URL: [WEBHOOKS_DATABASE_URL, false]
    INTERNAL_TOKEN: [INTERNAL_TOKEN, false]
    INTERNAL_TOKENS_PREVIOUS: [INTERNAL_TOKENS_PREVIOUS, true]
    ADMIN_TOKEN: [ADMIN_TOKEN, false]
    ADMIN_TOKENS_PREVIOUS: [ADMIN_TOKENS_PREVIOUS, true]
    WEBHOOK_SECRET_KEY: [WEBHOOK_SECRET_KEY, false]
    WEBHOOK_SECRET_KEYS_PREVIOUS: [WEBHOOK_SECRET_KEYS_PREVIOUS, true]
    CONSOLE_TOKEN: [CONSOLE_TOKEN, true, console]
    CONSOLE_TOKENS_PREVIOUS: [CONSOLE_TOKENS_PREVIOUS, true]
    CONSOLE_ASSERTION_PUBLIC_KEY: [CONSOLE_ASSERTION_PUBLIC_KEY, true, console]
    # Former public keys during a key-pair rotation (docs/operating.md "Rotating credentials").
    CONSOLE_ASSERTION_PUBLIC_KEYS_PREVIOUS: [CONSOLE_ASSERTION_PUBLIC_KEYS_PREVIOUS, true]
  grpcPort: {{ $v.webhooks.ports.grpc }}
  metricsPort: {{ $v.webhooks.ports.metrics }}
  backends: [dns, postgres, otlp]
webhooks-worker:
  key: webhooksWorker
  enabled: {{ and $v.webhooks.enabled $v.webhooksWorker.enabled }}
  args: ["node", "--max-semi-space-size=8", "--heap-growing-percent=50", "services/webhooks/dist/main.js"]
  # the consumer beside the worker: what it stores is claimed by primary key in the same
  # process (the feed, docs/webhooks.md), not found again by a scan of the table
  roles: consumer,worker
  configFrom: webhooks
  # REDIS_URL and its prefix: the consumer publishes the events feed's versions (the gateway's 304)
  globalKeys: [NODE_ENV, LOG_LEVEL, SHUTDOWN_GRACE_MS, OTEL_EXPORTER_OTLP_ENDPOINT, KAFKA_BROKERS, GRPC_HOST, METRICS_HOST, REDIS_KEY_PREFIX]
  # No caller credential: the worker answers no RPC but health, and it is the process that
  # talks to every brand's receivers (docs/deploying.md "What each process holds").
  secretEnv:
    DATABASE_URL: [WEBHOOKS_DATABASE_URL, false]
    WEBHOOK_SECRET_KEY: [WEBHOOK_SECRET_KEY, false]
    WEBHOOK_SECRET_KEYS_PREVIOUS: [WEBHOOK_SECRET_KEYS_PREVIOUS, true]
    REDIS_URL: [REDIS_URL, false]
  grpcPort: {{ $v.webhooks.ports.grpc }}
  metricsPort: {{ $v.webhooks.ports.metrics }}
  backends: [dns, postgres, kafka, redis, otlp, receivers]
{{- end -}}

{{/*
A component's non-secret environment (the ConfigMap data): the global keys it reads, then its
own config (for the worker: webhooks.config, then webhooksWorker.config), then what the chart
computes (ports, addresses, roles). Null and empty values are left out, so the process default
applies. (dict "root" $ "name" "records" "c" <component>)
*/}}
{{- define "brand-records.configData" -}}
{{- $root := .root -}}
{{- $c := .c -}}
{{- $v := $root.Values -}}
{{- $env := dict -}}
{{- range $k := $c.globalKeys -}}
{{- $_ := set $env $k (index $v.config $k) -}}
{{- end -}}
{{- if $c.configFrom -}}
{{- range $k, $val := (index $v $c.configFrom).config -}}
{{- $_ := set $env $k $val -}}
{{- end -}}
{{- end -}}
{{- range $k, $val := (index $v $c.key).config -}}
{{- $_ := set $env $k $val -}}
{{- end -}}
{{- /* The topic, and how to reach Kafka, PostgreSQL and Redis securely (values kafka, database, redis). */ -}}
{{- if has "KAFKA_BROKERS" $c.globalKeys -}}
{{- $_ := set $env "BUSINESS_EVENTS_TOPIC" $v.kafka.topic -}}
{{- end -}}
{{- if $c.roles -}}
{{- $_ := set $env "KAFKA_TOPIC_PARTITIONS" $v.kafka.topicPartitions -}}
{{- end -}}
{{- if has "kafka" $c.backends -}}
{{- range $name, $val := include "brand-records.kafkaEnv" $root | fromYaml -}}
{{- $_ := set $env $name $val -}}
{{- end -}}
{{- end -}}
{{- if has "postgres" $c.backends -}}
{{- $_ := set $env "DATABASE_SSL_CA_FILE" $v.database.sslCaFile -}}
{{- end -}}
{{- if has "redis" $c.backends -}}
{{- $_ := set $env "REDIS_TLS_CA_FILE" $v.redis.tlsCaFile -}}
{{- end -}}
{{- range $f := include "brand-records.secretFiles" (dict "root" $root "c" $c) | fromYamlArray -}}
{{- if not $f.podSpec -}}
{{- $_ := set $env $f.env (printf "/etc/brand-records/secrets/%s" $f.file) -}}
{{- end -}}
{{- end -}}
{{- $_ := set $env "OTEL_SERVICE_NAME" .name -}}
{{- $_ := set $env "METRICS_PORT" $c.metricsPort -}}
{{- if $c.httpPort -}}
{{- $_ := set $env "HTTP_PORT" $c.httpPort -}}
{{- end -}}
{{- range $svc := $c.grpcClientOf -}}
{{- $_ := set $env (printf "%s_GRPC_ADDR" (upper $svc)) (include "brand-records.grpcTarget" (dict "root" $root "component" $svc "port" (index $v $svc).ports.grpc)) -}}
{{- end -}}
{{- if eq $c.key "gateway" -}}
{{- if kindIs "invalid" $v.gateway.config.RATE_LIMIT_FALLBACK_INSTANCES -}}
{{- $_ := set $env "RATE_LIMIT_FALLBACK_INSTANCES" (ternary $v.gateway.autoscaling.maxReplicas $v.gateway.replicas $v.gateway.autoscaling.enabled) -}}
{{- end -}}
{{- end -}}
{{- if $c.grpcPort -}}
{{- $_ := set $env "GRPC_PORT" $c.grpcPort -}}
{{- end -}}
{{- if $c.grpcPort -}}
{{- $_ := set $env "MIGRATE_ON_START" "false" -}}
{{- end -}}
{{- if $c.roles -}}
{{- $_ := set $env "WEBHOOKS_ROLES" $c.roles -}}
{{- if $v.webhooks.extraCa.configMap -}}
{{- $_ := set $env "WEBHOOK_EXTRA_CA_FILE" (printf "/etc/brand-records/extra-ca/%s" $v.webhooks.extraCa.key) -}}
{{- end -}}
{{- end -}}
{{- range $k := keys $env | sortAlpha -}}
{{- $val := index $env $k -}}
{{- if kindIs "float64" $val -}}
{{- $val = int64 $val -}}
{{- end -}}
{{- if not (or (kindIs "invalid" $val) (and (kindIs "string" $val) (eq $val ""))) }}
{{ $k }}: {{ $val | toString | quote }}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
The non-secret Kafka connection settings of a process that talks to Kafka (records' relay, the
webhooks consumer), as environment variables; empty ones are left out by configData.
*/}}
{{- define "brand-records.kafkaEnv" -}}
{{- $k := .Values.kafka -}}
{{- if $k.tls.enabled }}
KAFKA_SSL: "true"
{{- end }}
KAFKA_SSL_CA_FILE: {{ $k.tls.caFile | quote }}
KAFKA_SSL_CERT_FILE: {{ $k.tls.certFile | quote }}
KAFKA_SSL_KEY_FILE: {{ $k.tls.keyFile | quote }}
KAFKA_SASL_MECHANISM: {{ $k.sasl.mechanism | quote }}
{{- if has $k.sasl.mechanism (list "plain" "scram-sha-256" "scram-sha-512") }}
KAFKA_SASL_USERNAME: {{ $k.sasl.username | quote }}
KAFKA_SASL_PASSWORD_FILE: {{ $k.sasl.passwordFile | quote }}
{{- end }}
{{- if eq $k.sasl.mechanism "aws-msk-iam" }}
KAFKA_SASL_AWS_REGION: {{ $k.sasl.awsRegion | quote }}
{{- end }}
{{- end -}}

{{/* Whether KAFKA_SASL_PASSWORD comes from a Secret key ("true" or empty). */}}
{{- define "brand-records.kafkaPasswordFromSecret" -}}
{{- $sasl := .Values.kafka.sasl -}}
{{- if and (has $sasl.mechanism (list "plain" "scram-sha-256" "scram-sha-512")) (not $sasl.passwordFile) -}}
true
{{- end -}}
{{- end -}}

{{/* The Secret holding KAFKA_SASL_PASSWORD: its own, or the chart's. */}}
{{- define "brand-records.kafkaPasswordSecretName" -}}
{{- default (include "brand-records.secretName" .) .Values.kafka.sasl.password.secretName -}}
{{- end -}}

{{/*
What a pod adds to the chart's own parts, from the global and the component's values
(dict "root" $ "cv" <component values>): "volumes", "volumeMounts" (the process container),
"initContainers", "containers" (sidecars). Rendered as YAML lists by the workload templates.
*/}}
{{- define "brand-records.podExtras" -}}
{{- $v := .root.Values -}}
volumes: {{ concat $v.extraVolumes (.cv.extraVolumes | default list) | toJson }}
volumeMounts: {{ concat $v.extraVolumeMounts (.cv.extraVolumeMounts | default list) | toJson }}
initContainers: {{ .cv.initContainers | default list | toJson }}
containers: {{ .cv.extraContainers | default list | toJson }}
{{- end -}}

{{/* The HPA behaviour of the HPA and of KEDA's: scale up at once, down slowly (a pod removed drains for up to its grace period). */}}
{{- define "brand-records.scaleBehavior" -}}
scaleDown:
  stabilizationWindowSeconds: 300
  policies:
    - type: Percent
      value: 25
      periodSeconds: 60
{{- end -}}

{{/* Whether KEDA's kafka scaler needs a TriggerAuthentication ("true" or empty). */}}
{{- define "brand-records.kedaKafkaAuth" -}}
{{- $k := .Values.kafka -}}
{{- if or $k.sasl.mechanism .Values.keda.kafka.caSecret .Values.keda.kafka.clientCertSecret -}}
true
{{- end -}}
{{- end -}}

{{/*
Refusals the schema cannot express, checked once per render (deployment.yaml includes it).
*/}}
{{- define "brand-records.validate" -}}
{{- $v := .Values -}}
{{- $w := $v.webhooksWorker -}}
{{- if and $v.webhooks.enabled $w.enabled -}}
{{- $max := ternary $w.autoscaling.maxReplicas $w.replicas $w.autoscaling.enabled -}}
{{- if gt (int $max) (int $v.kafka.topicPartitions) -}}
{{- fail (printf "webhooksWorker: up to %d replicas, but the topic has %d partitions (kafka.topicPartitions): each partition feeds one worker at a time, so the replicas above it would consume nothing; lower webhooksWorker.%s or add partitions to the topic" (int $max) (int $v.kafka.topicPartitions) (ternary "autoscaling.maxReplicas" "replicas" $w.autoscaling.enabled)) -}}
{{- end -}}
{{- end -}}
{{- if and $w.autoscaling.enabled $w.autoscaling.keda.enabled -}}
{{- if and $v.kafka.tls.caFile (not $v.keda.kafka.caSecret) -}}
{{- fail "kafka.tls.caFile names a private CA: KEDA's kafka scaler needs it too, as a Secret key (keda.kafka.caSecret: { name, key })" -}}
{{- end -}}
{{- if and $v.kafka.sasl.passwordFile (has $v.kafka.sasl.mechanism (list "plain" "scram-sha-256" "scram-sha-512")) (not $v.keda.kafka.hashiCorpVault) -}}
{{- fail "kafka.sasl.passwordFile: the pods read the password from a file KEDA's kafka scaler cannot read; name the same source for it (keda.kafka.hashiCorpVault), or give the password as a Secret key (kafka.sasl.password), which the pods mount and KEDA reads alike" -}}
{{- end -}}
{{- if and $v.kafka.tls.certFile (not $v.keda.kafka.clientCertSecret) -}}
{{- fail "kafka.tls.certFile sets a client certificate: KEDA's kafka scaler needs it too (keda.kafka.clientCertSecret: { name, certKey, keyKey })" -}}
{{- end -}}
{{- end -}}
{{- range $key := list "gateway" "webhooksWorker" -}}
{{- $a := (index $v $key).autoscaling -}}
{{- if gt (int $a.minReplicas) (int $a.maxReplicas) -}}
{{- fail (printf "%s.autoscaling.minReplicas (%d) is above maxReplicas (%d)" $key (int $a.minReplicas) (int $a.maxReplicas)) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
One egress rule for a backend of networkPolicy.egress: (dict "np" <networkPolicy> "backend" "postgres").
DNS gets UDP and TCP. Peers: the backend's `to` when it names any; else, for the addresses brands
choose (receivers, identity providers), the public-address ipBlocks of `cidrs` with `except`
(private ranges excepted); else none, which Kubernetes reads as any destination on the ports.
*/}}
{{- define "brand-records.egressRule" -}}
{{- $b := index .np.egress .backend -}}
- ports:
    {{- range $entry := $b.ports }}
    {{- /* A port, or a range { port, endPort } (the receivers' 1024-65535). */}}
    {{- $port := ternary $entry (dict "port" $entry) (kindIs "map" $entry) }}
    {{- range $protocol := ternary (list "UDP" "TCP") (list "TCP") (eq $.backend "dns") }}
    - port: {{ $port.port }}
      {{- with $port.endPort }}
      endPort: {{ . }}
      {{- end }}
      protocol: {{ $protocol }}
    {{- end }}
    {{- end }}
  {{- if $b.to }}
  to:
    {{- toYaml $b.to | nindent 4 }}
  {{- else if $b.cidrs }}
  to:
    {{- range $cidr := $b.cidrs }}
    {{- $v6 := contains ":" $cidr }}
    {{- $except := list }}
    {{- range $e := $b.except }}
    {{- if eq $v6 (contains ":" $e) }}
    {{- $except = append $except $e }}
    {{- end }}
    {{- end }}
    - ipBlock:
        cidr: {{ $cidr }}
        {{- with $except }}
        except:
          {{- toYaml . | nindent 10 }}
        {{- end }}
    {{- end }}
  {{- end }}
{{- end -}}

{{/*
The egress rules a pod's sidecars need (networkPolicy.egress.extra, then extraByComponent's for
this component), as a YAML list: (dict "np" <networkPolicy> "component" "records").
*/}}
{{- define "brand-records.extraEgress" -}}
{{- $own := index (.np.egress.extraByComponent | default dict) .component | default list -}}
{{- with concat (.np.egress.extra | default list) $own -}}
{{- toYaml . -}}
{{- end -}}
{{- end -}}

{{/* One schema's migration container: (dict "root" $ "service" "records" "secretName" "..." "volumeMounts" list) */}}
{{- define "brand-records.migrateContainer" -}}
{{- $root := .root -}}
- name: migrate-{{ .service }}
  image: {{ include "brand-records.image" $root }}
  imagePullPolicy: {{ $root.Values.image.pullPolicy }}
  args: ["node", "services/{{ .service }}/dist/migrate.js"]
  env:
    - name: NODE_ENV
      value: {{ $root.Values.config.NODE_ENV | quote }}
    - name: LOG_LEVEL
      value: {{ $root.Values.config.LOG_LEVEL | quote }}
    - name: DATABASE_URL
      valueFrom:
        secretKeyRef:
          name: {{ .secretName }}
          key: {{ upper .service }}_DATABASE_URL
    {{- with $root.Values.database.sslCaFile }}
    - name: DATABASE_SSL_CA_FILE
      value: {{ . | quote }}
    {{- end }}
    {{- if $root.Values.database.passwordFiles }}
    - name: DATABASE_PASSWORD_FILE
      value: /etc/brand-records/secrets/{{ .service }}-database-password
    {{- end }}
    {{- with $root.Values.migrations.extraEnv }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  resources:
    {{- toYaml $root.Values.migrations.resources | nindent 4 }}
  securityContext:
    {{- toYaml $root.Values.securityContext | nindent 4 }}
  volumeMounts:
    - name: tmp
      mountPath: /tmp
    {{- if $root.Values.database.passwordFiles }}
    - name: secret-files
      mountPath: /etc/brand-records/secrets
      readOnly: true
    {{- end }}
    {{- with .volumeMounts }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
{{- end -}}

{{/*
The credentials a component reads from files the chart mounts from Secrets (issue 60): kubelet
updates a mounted Secret in place (an environment variable never changes in a running pod), and
the processes read the file again when it changed, so a rotated password reaches new
connections without a restart. (dict "root" $ "c" <component>) -> a YAML list of
{ secret, key, file, env }: the Secret and key, the file name under /etc/brand-records/secrets,
and the variable naming it.
- Kafka's SASL password (plain, scram) from kafka.sasl.password, unless kafka.sasl.passwordFile
  names a file something else writes (a Vault agent);
- each service's database password (<SERVICE>_DATABASE_PASSWORD) with database.passwordFiles;
- the Redis password (REDIS_PASSWORD) with redis.passwordFile.
*/}}
{{- define "brand-records.secretFiles" -}}
{{- $v := .root.Values -}}
{{- $files := list -}}
{{- if and (has "kafka" .c.backends) (include "brand-records.kafkaPasswordFromSecret" .root) -}}
{{- $files = append $files (dict "secret" (include "brand-records.kafkaPasswordSecretName" .root) "key" $v.kafka.sasl.password.secretKey "file" "kafka-sasl-password" "env" "KAFKA_SASL_PASSWORD_FILE") -}}
{{- end -}}
{{- if and (has "postgres" .c.backends) $v.database.passwordFiles -}}
{{- $service := .c.configFrom | default .c.key -}}
{{- $files = append $files (dict "secret" (include "brand-records.secretName" .root) "key" (printf "%s_DATABASE_PASSWORD" (upper $service)) "file" "database-password" "env" "DATABASE_PASSWORD_FILE") -}}
{{- end -}}
{{- if and (has "redis" .c.backends) $v.redis.passwordFile -}}
{{- $files = append $files (dict "secret" (include "brand-records.secretName" .root) "key" "REDIS_PASSWORD" "file" "redis-password" "env" "REDIS_PASSWORD_FILE") -}}
{{- end -}}
{{- range $name := include "brand-records.startSecretsAsFiles" . | fromYamlArray -}}
{{- $key := index (index $.c.secretEnv $name) 0 -}}
{{- $files = append $files (dict "secret" (include "brand-records.secretName" $.root) "key" $key "file" (lower (replace "_" "-" $name)) "env" (printf "%s_FILE" $name) "podSpec" true) -}}
{{- end -}}
{{- toYaml $files -}}
{{- end -}}

{{/*
With secrets.asFiles, the names of a component's secretEnv it reads at start and must have (not
optional): each is given as a file (`<NAME>_FILE`, brand-records.secretFiles) and not as a
variable, which the processes refuse beside its file. `<NAME>_FILE` goes in the pod spec beside
where `<NAME>` would be, not in the shared ConfigMap (podSpec): a pod of the previous
ReplicaSet restarted mid-rollout after secrets.asFiles changed would otherwise get the new
ConfigMap's `<NAME>_FILE` beside its own `<NAME>`, or neither, and stop. The list is the processes' own
(packages/shared/src/config/startSecretFiles.ts), less the optional `*_PREVIOUS` values.
(dict "root" $ "c" <component>) -> a YAML list of variable names.
*/}}
{{- define "brand-records.startSecretsAsFiles" -}}
{{- $names := list -}}
{{- if .root.Values.secrets.asFiles -}}
{{- $startSecrets := list "INTERNAL_TOKEN" "ADMIN_TOKEN" "CONSOLE_TOKEN" "CURSOR_SECRET" "WEBHOOK_SECRET_KEY" "CONSOLE_ASSERTION_PRIVATE_KEY" "SMTP_URL" -}}
{{- range $env, $ref := .c.secretEnv -}}
{{- $optional := and (index $ref 1) (not (and (eq (len $ref) 3) $.root.Values.console.enabled)) -}}
{{- if and (has $env $startSecrets) (not $optional) -}}
{{- $names = append $names $env -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- toYaml $names -}}
{{- end -}}

{{/*
A component's process arguments with V8's old space capped at nodeHeapPercentOfMemoryLimit of
its container's memory limit (values.yaml says why): `--max-old-space-size=<MiB>` right after
"node". Unchanged without a memory limit, at 0, or for a process that is not node.
*/}}
{{- define "brand-records.nodeArgs" -}}
{{- $args := .args -}}
{{- $percent := int .root.Values.nodeHeapPercentOfMemoryLimit -}}
{{- $limit := dig "limits" "memory" "" (.resources | default dict) -}}
{{- if and $limit (gt $percent 0) (eq (first $args) "node") -}}
{{- $mib := include "brand-records.mebibytes" $limit | float64 -}}
{{- $heap := divf (mulf $mib $percent) 100 | floor | int -}}
{{- $args = concat (list "node" (printf "--max-old-space-size=%d" $heap)) (rest $args) -}}
{{- end -}}
{{- toJson $args -}}
{{- end -}}

{{/* A Kubernetes memory quantity ("512Mi", "1.5Gi", "800M", "268435456") in MiB. */}}
{{- define "brand-records.mebibytes" -}}
{{- $q := toString . -}}
{{- $number := regexFind "^[0-9]+(\\.[0-9]+)?" $q -}}
{{- $unit := trimPrefix $number $q -}}
{{- $perUnit := dict "" 0.00000095367431640625 "k" 0.0009765625 "Ki" 0.0009765625 "M" 0.95367431640625 "Mi" 1.0 "G" 953.67431640625 "Gi" 1024.0 "T" 953674.31640625 "Ti" 1048576.0 -}}
{{- if or (not $number) (not (hasKey $perUnit $unit)) -}}
{{- fail (printf "memory limit %q: expected a number with Ki, Mi, Gi, Ti, k, M, G, T or none" $q) -}}
{{- end -}}
{{- mulf (float64 $number) (index $perUnit $unit) -}}
{{- end -}}
