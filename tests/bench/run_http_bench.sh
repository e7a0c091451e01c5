#!/usr/bin/env bash
# HTTP benchmark: wrk against corridor and against a minimal Beast reference server built from the
# same tree, measured in the same run on this machine.
#
# usage: tests/bench/run_http_bench.sh BUILD_DIR [--with-log-off]
#
#   BUILD_DIR       a build directory holding corridor and tests/bench/corridor_bench_reference
#                   (ninja -C BUILD_DIR corridor corridor_bench_reference)
#   --with-log-off  also measure GET /config on a second corridor whose access log is turned off
#                   with a config override (log.access=false); the goal check always uses the
#                   default configuration, access log on.
#
# Environment (all optional):
#   BENCH_THREADS      io threads of both servers (default: the number of cores)
#   BENCH_CONNECTIONS  wrk connections (default 64)
#   BENCH_WRK_THREADS  wrk threads (default 2)
#   BENCH_WARMUP       warm-up run length per target, e.g. 5s (default 5s)
#   BENCH_DURATION     measured run length per target (default 12s)
#
# Prints, for each target, requests/s, p50, p99 and the count of non-2xx responses, the ratios of
# corridor to the reference, and the goal check: authenticated GET /config at >= 60% of the
# reference's requests/s with p99 under 5 ms. Stops every process it started, whatever happens.
set -euo pipefail

if [[ $# -lt 1 || "$1" == -h || "$1" == --help ]]; then
    sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi

BUILD_DIR=$(cd "$1" && pwd)
shift
WITH_LOG_OFF=0
for arg in "$@"; do
    case "$arg" in
        --with-log-off) WITH_LOG_OFF=1 ;;
        *) echo "run_http_bench.sh: unknown argument $arg" >&2; exit 2 ;;
    esac
done

SOURCE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CORRIDOR="$BUILD_DIR/corridor"
REFERENCE="$BUILD_DIR/tests/bench/corridor_bench_reference"
THREADS=${BENCH_THREADS:-$(nproc)}
CONNECTIONS=${BENCH_CONNECTIONS:-64}
WRK_THREADS=${BENCH_WRK_THREADS:-2}
WARMUP=${BENCH_WARMUP:-5s}
DURATION=${BENCH_DURATION:-12s}
VERSION_SEGMENT=2025-10-13

for binary in "$CORRIDOR" "$REFERENCE"; do
    if [[ ! -x "$binary" ]]; then
        echo "run_http_bench.sh: $(basename "$binary") is not built in the given build directory;" \
             "run: ninja -C BUILD_DIR corridor corridor_bench_reference" >&2
        exit 1
    fi
done
if ! command -v wrk >/dev/null; then
    echo "wrk is missing; installing it from Debian" >&2
    if [[ $(id -u) -eq 0 ]]; then apt-get install -y wrk >&2; else sudo apt-get install -y wrk >&2; fi
fi
for tool in curl base64; do
    command -v "$tool" >/dev/null || { echo "run_http_bench.sh: $tool is required" >&2; exit 1; }
done

WORK=$(mktemp -d -t corridor-bench.XXXXXX)
STARTED=()
WRK_PID=""

stop_started() {
    local pid
    for pid in "${STARTED[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${STARTED[@]}"; do
        for _ in $(seq 1 100); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    STARTED=()
}
cleanup() {
    set +e
    # wrk stops by itself after its run; on an interrupt it is stopped here.
    [[ -n "$WRK_PID" ]] && { kill -TERM "$WRK_PID"; wait "$WRK_PID"; } 2>/dev/null
    stop_started
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Waits for "listening on http://HOST:PORT" in a server's output file; prints the port.
wait_for_port() {
    local output=$1 pid=$2 name=$3 port=""
    for _ in $(seq 1 200); do
        port=$(grep -m1 -o 'listening on http://[^ ]*' "$output" 2>/dev/null | sed 's/.*://' || true)
        [[ -n "$port" ]] && { echo "$port"; return 0; }
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "run_http_bench.sh: $name exited at start:" >&2
            cat "$output" "$output.err" "${output%.out}.log" >&2 2>/dev/null || true
            return 1
        fi
        sleep 0.1
    done
    echo "run_http_bench.sh: $name did not start within 20 s" >&2
    return 1
}

# Writes a corridor configuration for a fresh SQLite database in the work folder.
write_config() {
    local file=$1 database=$2 log_access=$3 log_file=$4
    cat >"$file" <<EOF
{
  "listen": "127.0.0.1:0",
  "database": "sqlite:$database",
  "threads": $THREADS,
  "currencies_file": "$SOURCE_DIR/conf/currencies.json",
  "rates_file": "$SOURCE_DIR/conf/rates.json",
  "funding_file": "$SOURCE_DIR/conf/funding.json",
  "uma_providers_file": "$SOURCE_DIR/conf/uma-providers.json",
  "plugins": {"dir": "$WORK/plugins", "rails": []},
  "admin_listen": "127.0.0.1:0",
  "log": {"access": $log_access, "level": "info", "file": "$log_file"}
}
EOF
}

# Starts a corridor with a fresh database and a platform; sets CORRIDOR_PORT and CORRIDOR_AUTH.
start_corridor() {
    local name=$1 log_access=$2
    local config="$WORK/$name.json" output="$WORK/$name.out"
    write_config "$config" "$WORK/$name.db" "$log_access" "$WORK/$name.log"
    local created client_id client_secret
    created=$("$CORRIDOR" platform create --config "$config" --name "Bench $name" \
        --uma-domain "$name.bench.example" --json)
    client_id=$(printf '%s' "$created" | grep -o '"sandbox":{[^}]*}' | grep -o '"clientId":"[^"]*"' | cut -d'"' -f4)
    client_secret=$(printf '%s' "$created" | grep -o '"sandbox":{[^}]*}' | grep -o '"clientSecret":"[^"]*"' | cut -d'"' -f4)
    [[ -n "$client_id" && -n "$client_secret" ]] || { echo "cannot read credentials: $created" >&2; exit 1; }
    CORRIDOR_AUTH="Basic $(printf '%s:%s' "$client_id" "$client_secret" | base64 -w0)"
    # The log (access lines included) goes to log.file, as an operator's would; it is opened for
    # appending, so it can be emptied between runs. The tests run as root in their containers:
    # --allow-root is a setting of this benchmark only (serve refuses root without it).
    local allow_root=()
    [[ $(id -u) -eq 0 ]] && allow_root=(--allow-root)
    "$CORRIDOR" serve --config "$config" --listen 127.0.0.1:0 "${allow_root[@]}" >>"$output" 2>"$output.err" &
    CORRIDOR_PID=$!
    STARTED+=("$CORRIDOR_PID")
    CORRIDOR_PORT=$(wait_for_port "$output" "$CORRIDOR_PID" "corridor ($name)")
}

write_lua() {
    local file=$1 method=$2 auth=$3 body=$4
    {
        echo "wrk.method = \"$method\""
        [[ -n "$auth" ]] && echo "wrk.headers[\"Authorization\"] = \"$auth\""
        if [[ -n "$body" ]]; then
            echo "wrk.headers[\"Content-Type\"] = \"application/json\""
            echo "wrk.body = '$body'"
        fi
        cat <<'EOF'
function done(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format("BENCH requests=%d duration_us=%d p50_us=%d p99_us=%d non2xx=%d socket_errors=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    errors.status, errors.connect + errors.read + errors.write + errors.timeout))
end
EOF
    } >"$file"
}

# CPU time (user + system) a process has used so far, in microseconds.
CLOCK_TICKS=$(getconf CLK_TCK)
cpu_us() {
    awk -v hz="$CLOCK_TICKS" '{ sub(/^.*\) /, ""); printf "%.0f", ($12 + $13) * 1e6 / hz }' "/proc/$1/stat"
}

# run_target LABEL URL LUA SERVER_PID [LOG_FILE_TO_EMPTY]: warm-up, then the measured run; records
# the figures, with the server's CPU time per request (less sensitive than requests/s to other
# work on the machine).
LABELS=()
declare -A RPS P50 P99 NON2XX SOCKERR CPU
run_target() {
    local label=$1 url=$2 lua=$3 server_pid=$4 log=${5:-}
    local out="$WORK/wrk.out"
    wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"$WARMUP" --latency -s "$lua" "$url" >/dev/null &
    WRK_PID=$!
    wait "$WRK_PID"
    WRK_PID=""
    [[ -n "$log" ]] && : >"$log"
    local cpu_before cpu_after
    cpu_before=$(cpu_us "$server_pid")
    wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -s "$lua" "$url" >"$out" &
    WRK_PID=$!
    wait "$WRK_PID"
    WRK_PID=""
    cpu_after=$(cpu_us "$server_pid")
    [[ -n "$log" ]] && : >"$log"
    local line
    line=$(grep '^BENCH ' "$out") || { echo "wrk printed no summary for $label:" >&2; cat "$out" >&2; exit 1; }
    local requests duration p50 p99 non2xx socket_errors
    requests=$(sed 's/.*requests=\([0-9]*\).*/\1/' <<<"$line")
    duration=$(sed 's/.*duration_us=\([0-9]*\).*/\1/' <<<"$line")
    p50=$(sed 's/.*p50_us=\([0-9]*\).*/\1/' <<<"$line")
    p99=$(sed 's/.*p99_us=\([0-9]*\).*/\1/' <<<"$line")
    non2xx=$(sed 's/.*non2xx=\([0-9]*\).*/\1/' <<<"$line")
    socket_errors=$(sed 's/.*socket_errors=\([0-9]*\).*/\1/' <<<"$line")
    LABELS+=("$label")
    RPS[$label]=$(awk -v r="$requests" -v d="$duration" 'BEGIN { printf "%.0f", r / (d / 1e6) }')
    P50[$label]=$p50
    P99[$label]=$p99
    NON2XX[$label]=$non2xx
    SOCKERR[$label]=$socket_errors
    CPU[$label]=$(awk -v c=$((cpu_after - cpu_before)) -v r="$requests" 'BEGIN { printf "%.1f", (r > 0 ? c / r : 0) }')
    printf '  %-44s done: %s requests in %s s\n' "$label" "$requests" \
        "$(awk -v d="$duration" 'BEGIN { printf "%.1f", d / 1e6 }')"
}

ms() { awk -v us="$1" 'BEGIN { printf "%.2f ms", us / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }

echo "corridor HTTP benchmark: $(nproc) cores, server threads $THREADS, wrk -t$WRK_THREADS" \
     "-c$CONNECTIONS, warm-up $WARMUP, measured $DURATION per target"
echo "load before: $(uptime | sed 's/.*load average/load average/')"

start_corridor corridor true
MAIN_PORT=$CORRIDOR_PORT
MAIN_AUTH=$CORRIDOR_AUTH
CONFIG_URL="http://127.0.0.1:$MAIN_PORT/$VERSION_SEGMENT/config"
CUSTOMERS_URL="http://127.0.0.1:$MAIN_PORT/$VERSION_SEGMENT/customers"

# The reference serves a body of the same bytes as corridor's GET /config.
status=$(curl -s -o "$WORK/config-body.json" -w '%{http_code}' -H "Authorization: $MAIN_AUTH" "$CONFIG_URL")
[[ "$status" == 200 ]] || { echo "GET /config answered $status" >&2; exit 1; }
BODY_BYTES=$(wc -c <"$WORK/config-body.json")
"$REFERENCE" --threads "$THREADS" --listen 127.0.0.1:0 --body-file "$WORK/config-body.json" \
    >"$WORK/reference.out" 2>"$WORK/reference.out.err" &
REFERENCE_PID=$!
STARTED+=("$REFERENCE_PID")
REFERENCE_PORT=$(wait_for_port "$WORK/reference.out" "$REFERENCE_PID" reference)

write_lua "$WORK/plain.lua" GET "" ""
write_lua "$WORK/get.lua" GET "$MAIN_AUTH" ""
write_lua "$WORK/post.lua" POST "$MAIN_AUTH" '{"customerType":"INDIVIDUAL"}'

REF="reference GET ($BODY_BYTES-byte JSON)"
GET="corridor GET /config"
POST="corridor POST /customers"
GET_OFF="corridor GET /config, access log off"
MAIN_PID=$CORRIDOR_PID
run_target "$REF" "http://127.0.0.1:$REFERENCE_PORT/" "$WORK/plain.lua" "$REFERENCE_PID"
run_target "$GET" "$CONFIG_URL" "$WORK/get.lua" "$MAIN_PID" "$WORK/corridor.log"
run_target "$POST" "$CUSTOMERS_URL" "$WORK/post.lua" "$MAIN_PID" "$WORK/corridor.log"
if [[ $WITH_LOG_OFF -eq 1 ]]; then
    stop_started
    start_corridor nolog false
    write_lua "$WORK/get-nolog.lua" GET "$CORRIDOR_AUTH" ""
    run_target "$GET_OFF" "http://127.0.0.1:$CORRIDOR_PORT/$VERSION_SEGMENT/config" "$WORK/get-nolog.lua" \
        "$CORRIDOR_PID"
fi
echo "load after: $(uptime | sed 's/.*load average/load average/')"

echo
printf '%-38s %10s %9s %9s %7s %8s %8s %8s %8s %8s\n' target "requests/s" p50 p99 non-2xx \
    "sock-err" "cpu-us" "rps/ref" "p50/ref" "p99/ref"
for label in "${LABELS[@]}"; do
    printf '%-38s %10s %9s %9s %7s %8s %8s %8s %8s %8s\n' "$label" "${RPS[$label]}" \
        "$(ms "${P50[$label]}")" "$(ms "${P99[$label]}")" "${NON2XX[$label]}" "${SOCKERR[$label]}" \
        "${CPU[$label]}" "$(ratio "${RPS[$label]}" "${RPS[$REF]}")" \
        "$(ratio "${P50[$label]}" "${P50[$REF]}")" "$(ratio "${P99[$label]}" "${P99[$REF]}")"
done
echo "(non-2xx: responses with status >= 400 as wrk counts them; sock-err: connect, read and write"
echo " errors and wrk's 2 s timeouts; cpu-us: the server's CPU time, user + system, per request)"
echo
share=$(awk -v a="${RPS[$GET]}" -v b="${RPS[$REF]}" 'BEGIN { printf "%.0f", 100 * a / b }')
rps_ok=$(awk -v a="${RPS[$GET]}" -v b="${RPS[$REF]}" 'BEGIN { print (a >= 0.6 * b) ? 1 : 0 }')
p99_ok=$(( ${P99[$GET]} < 5000 ? 1 : 0 ))
errors_ok=$(( ${NON2XX[$GET]} + ${SOCKERR[$GET]} == 0 ? 1 : 0 ))
verdict() { [[ $1 -eq 1 ]] && echo met || echo MISSED; }
echo "goal: authenticated GET /config at >= 60% of the reference's requests/s: $share% ($(verdict $rps_ok))"
echo "goal: authenticated GET /config p99 < 5 ms: $(ms "${P99[$GET]}") ($(verdict $p99_ok))"
echo "goal: no non-2xx or socket errors on GET /config: $(verdict $errors_ok)"
if [[ $rps_ok -eq 1 && $p99_ok -eq 1 && $errors_ok -eq 1 ]]; then
    echo "GOAL MET"
else
    echo "GOAL MISSED"
fi
