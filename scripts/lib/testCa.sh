#!/usr/bin/env bash
# testCa.sh DIR: a throwaway certificate authority and a server certificate for localhost,
# 127.0.0.1 and ::1, for local HTTPS receivers (npm run up: .local/ca/; tests: a temp dir).
# Writes DIR/ca.pem, DIR/ca-key.pem, DIR/localhost.pem, DIR/localhost-key.pem. Files that
# already exist are kept, so the CA a developer's tools trust stays the same across runs.
# The webhooks service trusts DIR/ca.pem through WEBHOOK_EXTRA_CA_FILE. Never a production CA.
set -euo pipefail
dir=${1:?usage: testCa.sh DIR}
mkdir -p "$dir"
cd "$dir"
umask 077
if [ ! -f ca.pem ] || [ ! -f ca-key.pem ]; then
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout ca-key.pem -out ca.pem -days 825 -subj "/CN=Brand Records local test CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    2>/dev/null
  rm -f localhost.pem localhost-key.pem
fi
if [ ! -f localhost.pem ] || [ ! -f localhost-key.pem ]; then
  printf '%s\n' 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1' 'basicConstraints=CA:FALSE' \
    'keyUsage=critical,digitalSignature' 'extendedKeyUsage=serverAuth' >localhost.ext
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout localhost-key.pem -out localhost.csr -subj "/CN=localhost" 2>/dev/null
  openssl x509 -req -in localhost.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial \
    -out localhost.pem -days 825 -extfile localhost.ext 2>/dev/null
  rm -f localhost.csr localhost.ext ca.srl
fi
chmod 644 ca.pem localhost.pem
