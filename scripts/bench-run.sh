#!/usr/bin/env bash
# bench-run.sh EVALMD... : whole runs of one generated sheet against the fake
# OpenAI server on 127.0.0.1 (1 ms a reply, -c 64), the same command again
# (a rerun: every answer reused, nothing asked), then agg over the run's
# output, for each evalmd binary given, the binaries interleaved in each of
# ROUNDS rounds (default 1) so that each sees the same load. QUESTIONS lists
# the sheet sizes (default "10000 100000"); WORK is where sheets and outputs
# go (default a temporary folder, removed at the end). Each line printed
# is tab-separated: binary, questions, run or agg, the 1-minute load average
# before it, wall seconds, user and system CPU seconds, peak RSS in KiB
# (/usr/bin/time -v), exit status. PHASES (default "run rerun agg") picks
# what is timed; a run is made in any case.
#
#   go build -o /tmp/evalmd-new ./cmd/evalmd
#   QUESTIONS="10000 100000 1000000" ROUNDS=3 scripts/bench-run.sh /tmp/evalmd-old /tmp/evalmd-new
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${ROUNDS:-1}
sizes=${QUESTIONS:-10000 100000}
work=${WORK:-}
if [ -z "$work" ]; then
	work=$(mktemp -d)
	trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
else
	mkdir -p "$work"
	trap 'kill "$server" 2>/dev/null || true' EXIT
fi
[ $# -gt 0 ] || { echo "usage: bench-run.sh EVALMD..." >&2; exit 2; }
# The runs' user config folder, and the key a run seals its outputs with
# (which a rerun needs to reuse them), are the bench's own, not the user's.
export XDG_CONFIG_HOME="$work/config"

(cd "$root" && go test -c -o "$work/fakeserver.test" ./internal/testkit/fakeserver)
rm -f "$work/url"
FAKESERVER_URL_FILE="$work/url" "$work/fakeserver.test" -test.run '^TestServe$' -test.timeout 0 >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 100); do [ -s "$work/url" ] && break; sleep 0.1; done
url=$(cat "$work/url")

for n in $sizes; do
	sheet="$work/input-q$n.md"
	[ -s "$sheet" ] || (cd "$root" && BENCHKIT_SHEET="$sheet" BENCHKIT_QUESTIONS="$n" go test -count=1 -run '^TestWriteBenchSheet$' ./internal/testkit/benchkit >/dev/null)
done

# measure BIN N PHASE CMD...: one timed process, one line.
measure() {
	local bin=$1 n=$2 phase=$3
	shift 3
	local load status=0
	load=$(cut -d' ' -f1 /proc/loadavg)
	/usr/bin/time -v -o "$work/time" "$@" >"$work/stdout" 2>"$work/stderr" || status=$?
	awk -F': ' -v bin="$bin" -v n="$n" -v phase="$phase" -v load="$load" -v status="$status" '
		/Elapsed \(wall clock\)/ { k = split($2, t, ":"); wall = (k == 3) ? t[1]*3600 + t[2]*60 + t[3] : t[1]*60 + t[2] }
		/User time/ { user = $2 } /System time/ { sys = $2 } /Maximum resident/ { rss = $2 }
		END { printf "%s\t%d\t%s\t%s\t%.2f\t%s\t%s\t%s\t%s\n", bin, n, phase, load, wall, user, sys, rss, status }' "$work/time"
	[ "$status" = 0 ] || tail -3 "$work/stderr" >&2
}

# timed PHASE says whether PHASES holds PHASE.
timed() { case " ${PHASES:-run rerun agg} " in *" $1 "*) return 0 ;; esac; return 1; }

printf 'binary\tquestions\tphase\tload\twall_s\tuser_s\tsys_s\tmaxrss_kib\tstatus\n'
for _ in $(seq "$rounds"); do
	for n in $sizes; do
		for bin in "$@"; do
			out="$work/out-$n"
			rm -rf "$out"
			run=("$bin" run -f "$work/input-q$n.md" -m openai-api/fake/m --base-url "$url" -c 64 -o "$out")
			if timed run; then measure "$bin" "$n" run "${run[@]}"; else "${run[@]}" >/dev/null 2>&1; fi
			if timed rerun; then measure "$bin" "$n" rerun "${run[@]}"; fi
			if timed agg; then measure "$bin" "$n" agg "$bin" agg -i "$out" -o "$work/agg-$n.md"; fi
			rm -rf "$out"
		done
	done
done
