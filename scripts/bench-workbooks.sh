#!/usr/bin/env bash
# bench-workbooks.sh [CORPUS_DIR]: render the workbook corpus once with
# package workbook (a small Go binary) and once with Debian's pandas, each
# as one process over every file, and print wall time, peak memory (max
# RSS from /usr/bin/time -v) and their ratios. Each side runs RUNS times
# (default 3) and the fastest run is reported.
#
# Needs: go, /usr/bin/time, and Debian's python (/usr/bin/python3, not a
# pyenv one) with pandas and openpyxl:
#   apt-get update && apt-get install -y python3-pandas python3-openpyxl
# Debian has no pyxlsb package, so the .xlsb files are left out of the
# comparison on both sides (the Go side is also timed on the full corpus).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
corpus=${1:-$root/../shared/corpora/workbooks/files}
runs=${RUNS:-3}
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! "$py" -c 'import pandas, openpyxl' 2>/dev/null; then
	echo "bench-workbooks: $py lacks pandas/openpyxl; run: apt-get install -y python3-pandas python3-openpyxl" >&2
	exit 1
fi
pdver=$("$py" -c 'import pandas, openpyxl; print(pandas.__version__, openpyxl.__version__)')

(cd "$root" && go build -o "$tmp/benchworkbooks" ./scripts/benchworkbooks)

mapfile -t all < <(find "$corpus" -maxdepth 1 -type f \( -name '*.xlsx' -o -name '*.xlsm' -o -name '*.xlsb' \) | sort)
mapfile -t ooxml < <(printf '%s\n' "${all[@]}" | grep -v '\.xlsb$')

cat >"$tmp/render.py" <<'PY'
import sys, warnings
import pandas as pd
warnings.simplefilter("ignore")
out = sys.stdout
for path in sys.argv[1:]:
    xls = pd.ExcelFile(path)
    text = ""
    for name in xls.sheet_names:
        df = xls.parse(name)
        text += f"Sheet name: {name}\n{df.to_string(index=False)}\n\n"
    out.write(text)
PY

# measure NAME OUT CMD...: best wall seconds, that run's max RSS in KiB
# and its CPU seconds (user+sys, less sensitive to a busy machine).
measure() {
	local name=$1 out=$2
	shift 2
	local best_s="" best_kb="" best_cpu=""
	for _ in $(seq "$runs"); do
		/usr/bin/time -v "$@" >"$out" 2>"$tmp/time.txt" || { cat "$tmp/time.txt" >&2; exit 1; }
		local wall kb s cpu
		wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$tmp/time.txt")
		kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/time.txt")
		cpu=$(awk -F': ' '/User time \(seconds\)|System time \(seconds\)/ { c += $2 } END { printf "%.2f", c }' "$tmp/time.txt")
		s=$(awk -v t="$wall" 'BEGIN { n = split(t, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }')
		if [ -z "$best_s" ] || awk -v a="$s" -v b="$best_s" 'BEGIN { exit !(a < b) }'; then
			best_s=$s best_kb=$kb best_cpu=$cpu
		fi
	done
	printf '%s %s %s %s\n' "$name" "$best_s" "$best_kb" "$best_cpu"
}

read -r _ go_s go_kb go_cpu < <(measure go "$tmp/go.txt" "$tmp/benchworkbooks" "${ooxml[@]}")
read -r _ py_s py_kb py_cpu < <(measure pandas "$tmp/py.txt" "$py" "$tmp/render.py" "${ooxml[@]}")
read -r _ all_s all_kb all_cpu < <(measure go-all "$tmp/go-all.txt" "$tmp/benchworkbooks" "${all[@]}")

same=no
cmp -s "$tmp/go.txt" "$tmp/py.txt" && same=yes

echo "corpus: $corpus"
echo "pandas/openpyxl: $pdver (Debian); runs: $runs, fastest shown"
printf '%-28s %10s %10s %14s\n' "" "wall (s)" "cpu (s)" "max RSS (KiB)"
printf '%-28s %10s %10s %14s\n' "go, ${#ooxml[@]} xlsx/xlsm" "$go_s" "$go_cpu" "$go_kb"
printf '%-28s %10s %10s %14s\n' "pandas, ${#ooxml[@]} xlsx/xlsm" "$py_s" "$py_cpu" "$py_kb"
printf '%-28s %10s %10s %14s\n' "go, all ${#all[@]} files" "$all_s" "$all_cpu" "$all_kb"
awk -v g="$go_s" -v p="$py_s" -v gc="$go_cpu" -v pc="$py_cpu" -v gk="$go_kb" -v pk="$py_kb" 'BEGIN {
	if (g > 0) printf "speed-up (wall): %.1fx faster (target >= 20x)\n", p / g
	if (gc > 0) printf "speed-up (cpu):  %.1fx\n", pc / gc
	printf "memory: %.3f of pandas peak RSS (target <= 0.25)\n", gk / pk
}'
echo "outputs byte-identical on the xlsx/xlsm set: $same"
