#!/usr/bin/env bash
# What a scheduled rerun with nothing new costs (issue 23, item 1): the CPU time of a no-op `eraflow export`
# rerun over small and big archives of the same count, against `--verify-outputs` (every input and output
# hashed: what every rerun cost before), and, when `moto_server` is installed, the requests a no-op rerun into an
# S3-compatible store makes, counted in the server's request log. Figures go into docs/performance.md.
#
# Usage: scripts/bench-noop-rerun.sh [BIN] [WORK_DIR]   (default target/release/eraflow, a temporary folder)
# Environment: FILES (archives per set, default 4), BIG_BLOCKS and BIG_TXS (blocks per file and transactions per
# block of the big set, default 8192 and 24; the test suite runs the script at a tiny size).
set -euo pipefail
BIN=$(realpath "${1:-target/release/eraflow}")
WORK=${2:-$(mktemp -d)}
FILES=${FILES:-4}
BIG_TXS=${BIG_TXS:-24}
BIG_BLOCKS=${BIG_BLOCKS:-8192}
mkdir -p "$WORK"
echo "eraflow: $BIN; work: $WORK; load average: $(cut -d' ' -f1-3 /proc/loadavg)"

# CPU seconds (user + system, from getrusage: microseconds, where time(1) rounds to 10 ms) of a command, its
# output discarded.
cpu() {
  python3 - "$@" <<'PY'
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{r.ru_utime + r.ru_stime:.4f}")
PY
}

# The least of three runs of a command's CPU seconds.
best_cpu() {
  local best=""
  for _ in 1 2 3; do
    local t
    t=$(cpu "$@")
    if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$t; fi
  done
  echo "$best"
}

for set in small big; do
  case $set in
    small) blocks=256; txs=2 ;;
    big) blocks=$BIG_BLOCKS; txs=$BIG_TXS ;;
  esac
  in="$WORK/$set/in"
  out="$WORK/$set/out"
  if [ ! -d "$in" ]; then
    "$BIN" --quiet synth --out "$in" --files "$FILES" --blocks "$blocks" --txs-per-block "$txs" >/dev/null
  fi
  rm -rf "$out"
  "$BIN" --quiet export --no-senders --out "$out" "$in" >/dev/null 2>&1
  in_mb=$(du -cb "$in"/*.era1 | tail -1 | awk '{printf "%.1f", $1 / 1e6}')
  out_mb=$(du -cb --exclude=_eraflow "$out" | tail -1 | awk '{printf "%.1f", $1 / 1e6}')
  noop=$(best_cpu "$BIN" --quiet export --no-senders --out "$out" "$in")
  full=$(best_cpu "$BIN" --quiet export --no-senders --verify-outputs --out "$out" "$in")
  proof=$("$BIN" --quiet export --no-senders --json --out "$out" "$in" 2>/dev/null |
    python3 -c 'import json,sys; r=json.load(sys.stdin); print(sorted({(f["proof"]["input"], f["proof"]["outputs"]) for f in r["stages"][0]["files"]}))')
  echo "$set: $FILES archives, ${in_mb} MB in, ${out_mb} MB of Parquet; no-op rerun ${noop} s CPU (proof $proof); --verify-outputs ${full} s CPU"
done

if command -v moto_server >/dev/null; then
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  moto_server -H 127.0.0.1 -p "$port" >/dev/null 2>"$WORK/moto.log" &
  moto=$!
  trap 'kill $moto' EXIT
  for _ in $(seq 100); do
    if python3 -c "import socket; socket.create_connection(('127.0.0.1', $port))" 2>/dev/null; then break; fi
    sleep 0.1
  done
  python3 -c "import urllib.request as u; u.urlopen(u.Request('http://127.0.0.1:$port/noop', method='PUT'))"
  export AWS_ENDPOINT_URL="http://127.0.0.1:$port" AWS_ALLOW_HTTP=true AWS_ACCESS_KEY_ID=testing \
    AWS_SECRET_ACCESS_KEY=testing AWS_REGION=us-east-1
  requests() { grep -c ' HTTP/1.1" ' "$WORK/moto.log" || true; }
  for set in small big; do
    s3="s3://noop/$set"
    "$BIN" --quiet export --no-senders --out "$s3" "$WORK/$set/in" >/dev/null 2>&1
    before=$(requests)
    noop=$(cpu "$BIN" --quiet export --no-senders --out "$s3" "$WORK/$set/in")
    after=$(requests)
    parquet=$(tail -n +"$((before + 1))" "$WORK/moto.log" | grep -c '"GET [^ ]*\.parquet' || true)
    echo "$set into S3 (moto): no-op rerun $((after - before)) requests for $FILES sources, $parquet GETs of a Parquet object, ${noop} s CPU"
  done
fi
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
