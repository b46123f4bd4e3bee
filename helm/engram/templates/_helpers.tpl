{{/* Names and labels. */}}
{{- define "engram.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "engram.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "engram.selectorLabels" -}}
app.kubernetes.io/name: {{ include "engram.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "engram.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "engram.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: engram
{{- end }}

{{/* The indexer pods (indexer.enabled): a name of their own, so that neither the
main Deployment's selector nor the Service's picks them up. */}}
{{- define "engram.indexerName" -}}
{{- printf "%s-indexer" (include "engram.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "engram.indexerSelectorLabels" -}}
app.kubernetes.io/name: {{ include "engram.name" . }}-indexer
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: indexer
{{- end }}

{{- define "engram.indexerLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "engram.indexerSelectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: engram
{{- end }}

{{- define "engram.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "engram.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "engram.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{- define "engram.secretName" -}}
{{- default (include "engram.fullname" .) .Values.secrets.existingSecret }}
{{- end }}

{{/*
Rules the schema cannot express in a message a person reads first; `helm install`
stops with these.
*/}}
{{- define "engram.validate" -}}
{{- $backend := .Values.config.vector_backend | default "edge" }}
{{- if and (eq $backend "edge") (or (gt (int .Values.replicaCount) 1) .Values.autoscaling.enabled) }}
{{- fail "engram: more than one replica (replicaCount > 1 or autoscaling.enabled) needs the Qdrant server: set config.vector_backend=qdrant and a Qdrant URL. The embedded vector engine belongs to one process." }}
{{- end }}
{{- if and (eq $backend "edge") .Values.indexer.enabled }}
{{- fail "engram: indexer.enabled runs the indexer in pods of its own, which needs the Qdrant server: set config.vector_backend=qdrant and a Qdrant URL. The embedded vector engine belongs to one process." }}
{{- end }}
{{- if and (eq $backend "qdrant") (not .Values.secrets.existingSecret) (not .Values.secrets.qdrantUrl) (not .Values.config.qdrant_url) }}
{{- fail "engram: config.vector_backend=qdrant needs a Qdrant URL: secrets.qdrantUrl, config.qdrant_url or secrets.existingSecret" }}
{{- end }}
{{- if and (not .Values.secrets.existingSecret) (or (not .Values.secrets.databaseUrl) (not .Values.secrets.redisUrl)) }}
{{- fail "engram: set secrets.databaseUrl and secrets.redisUrl, or secrets.existingSecret naming a Secret that holds them" }}
{{- end }}
{{- end }}

{{/* The ENGRAM_* variables that come from the Secret (optional ones may be absent). */}}
{{- define "engram.secretEnv" -}}
{{- $secret := include "engram.secretName" . }}
{{- $keys := .Values.secrets.keys }}
{{- $own := not .Values.secrets.existingSecret }}
{{- $items := list
  (list "ENGRAM_DATABASE_URL" $keys.databaseUrl false .Values.secrets.databaseUrl)
  (list "ENGRAM_REDIS_URL" $keys.redisUrl false .Values.secrets.redisUrl)
  (list "ENGRAM_QDRANT_URL" $keys.qdrantUrl true .Values.secrets.qdrantUrl)
  (list "ENGRAM_QDRANT_API_KEY" $keys.qdrantApiKey true .Values.secrets.qdrantApiKey)
  (list "ENGRAM_BOOTSTRAP_TOKEN" $keys.bootstrapToken true .Values.secrets.bootstrapToken)
  (list "ENGRAM_LLM_API_KEY" $keys.llmApiKey true .Values.secrets.llmApiKey)
  (list "ENGRAM_EMBEDDING_API_KEY" $keys.embeddingApiKey true .Values.secrets.embeddingApiKey)
  (list "ENGRAM_PAGE_TOKEN_SECRET" $keys.pageTokenSecret true .Values.secrets.pageTokenSecret) }}
{{- range $items }}
{{- $name := index . 0 }}{{ $key := index . 1 }}{{ $optional := index . 2 }}{{ $value := index . 3 }}
{{- if or (not $own) $value }}
- name: {{ $name }}
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ $key }}
      {{- if $optional }}
      optional: true
      {{- end }}
{{- end }}
{{- end }}
{{- end }}
