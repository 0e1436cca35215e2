#!/usr/bin/env bash
# data distill over https: the stand-in server behind TLS with a self-signed certificate made
# here. Without --ca-cert the certificate is not trusted and no request is answered; with
# --ca-cert (and, separately, with --insecure) every request is; plain http is distill_test.sh.
set -euo pipefail
TRITONRL="$1"
PY="$2"
TASKS="$3"
HERE="$(cd "$(dirname "$0")" && pwd)"
T="$(mktemp -d)"
mkdir -p "$T/suite"
cp "$TASKS/level1/1_ReLU.py" "$T/suite/"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=127.0.0.1" \
  -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
  -keyout "$T/key.pem" -out "$T/cert.pem" 2>/dev/null
python3 "$HERE/fake_openai_server.py" "$T/port" "$TASKS/solutions/level1/1_ReLU.py" \
  "$T/cert.pem" "$T/key.pem" &
SERVER=$!
trap 'kill $SERVER; rm -rf "$T"' EXIT
for _ in $(seq 50); do [[ -s "$T/port" ]] && break; sleep 0.1; done
URL="https://127.0.0.1:$(cat "$T/port")"
ARGS=(--endpoint "$URL" --model teacher --tasks "$T/suite" --k 2 --retries 2 --backoff 0.05
      --python "$PY" --jobs 1)
count() { "$PY" -c 'import json, ssl, sys, urllib.request
ctx = ssl.create_default_context(cafile=sys.argv[2])
print(json.load(urllib.request.urlopen(sys.argv[1] + "/count", context=ctx))["answered"])' "$URL" "$T/cert.pem"; }

# Untrusted: every request fails at the handshake, none reaches the server.
"$TRITONRL" data distill "${ARGS[@]}" --out "$T/a.jsonl" | tee "$T/log_a"
grep -q "SSLServerVerification (the server.s certificate is not trusted" "$T/a.jsonl.ledger.jsonl"
[[ "$(count)" == 0 ]]
# Trusted through --ca-cert.
"$TRITONRL" data distill "${ARGS[@]}" --out "$T/b.jsonl" --ca-cert "$T/cert.pem" | tee "$T/log_b"
grep -q "^requests 2  finished 2  new 2 " "$T/log_b"
[[ "$(count)" == 2 ]]
# --insecure: no verification.
"$TRITONRL" data distill "${ARGS[@]}" --out "$T/c.jsonl" --insecure | tee "$T/log_c"
grep -q "^requests 2  finished 2  new 2 " "$T/log_c"
[[ "$(count)" == 4 ]]
# A CA file that is not there is refused before any request.
if "$TRITONRL" data distill "${ARGS[@]}" --out "$T/d.jsonl" --ca-cert "$T/missing.pem" 2>"$T/err_d"; then
  echo "a missing --ca-cert was accepted" >&2
  exit 1
fi
grep -q "missing.pem" "$T/err_d"
echo ok
