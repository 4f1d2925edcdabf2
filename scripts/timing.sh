# Timing helpers sourced by the bench-*.sh scripts and scripts/ab.sh.

# bench_corpus: sets out (target/bench) and corpus, the 100 MB corpus there, built once by the
# benchmark kit's make-corpus.sh ($PGNKIT_SHARED, by default beside the repository).
bench_corpus() {
  shared=${PGNKIT_SHARED:-../shared}
  out=target/bench
  mkdir -p "$out"
  corpus=$out/corpus.pgn
  [ -s "$corpus" ] || bash "$shared/bench/make-corpus.sh" "$corpus" >/dev/null
}

# bench_bin: sets bin to $PGNKIT, else to a release build made now.
bench_bin() {
  [ -n "${PGNKIT:-}" ] || cargo build --release --quiet
  bin=${PGNKIT:-target/release/pgnkit}
}

# wall_cpu CMD...: "WALL CPU" seconds of one run (output discarded): the wall clock from bash's
# EPOCHREALTIME, read inside the subshell (a `date` forked inside the timed span added about 1.3 ms
# to each run here, 1% of a 2-thread `check`), and user + system CPU of every thread from `time`.
wall_cpu() {
  local out user sys t0 t1
  out=$( { TIMEFORMAT='%3U %3S'; t0=$EPOCHREALTIME; time "$@" >/dev/null 2>&1 || true; t1=$EPOCHREALTIME; echo "${t0/,/.} ${t1/,/.}"; } 2>&1 )
  { read -r user sys; read -r t0 t1; } <<<"$out"
  echo "$(echo "$t1 - $t0" | bc -l) $(echo "$user + $sys" | bc -l)"
}
# read_back FILE...: each file dropped from the page cache and read back once, so timed runs find
# it as a file read from disk is cached (read-ahead's large folios). Held in 4 KiB pages instead
# (as a file faulted in through a mapping after the host's pageout can be), mapping it costs each
# program about 10 ms more per 100 MB (docs/performance.md, "Page-cache state").
read_back() {
  local f
  for f in "$@"; do
    sync "$f" # dirty pages (a file just written) are not dropped
    dd if="$f" iflag=nocache count=0 status=none
    cat "$f" >/dev/null
  done
}
# secs CMD...: wall-clock seconds of one run (output discarded).
secs() { local wall _; read -r wall _ <<<"$(wall_cpu "$@")"; echo "$wall"; }
# median: the median of the numbers on stdin, one a line.
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# middle_half: the first and third quartiles of the numbers on stdin, one a line, as "Q1-Q3".
middle_half() { sort -g | awk '{a[NR]=$1} END {q=int((NR+3)/4); printf "%.2f-%.2f", a[q], a[NR+1-q]}'; }
# quantile Q: the Q-quantile (0 = the least, 0.5 = about the median) of the numbers on stdin.
quantile() { sort -g | awk -v q="$1" '{a[NR]=$1} END {print a[int(q * (NR - 1)) + 1]}'; }
# timed NAME CMD...: one run of CMD; its wall-clock seconds go to NAME's entry of the caller's
# associative array `times`, its CPU seconds to `cpus` (declare -A times cpus first).
timed() {
  local name=$1 wall cpu
  shift
  read -r wall cpu <<<"$(wall_cpu "$@")"
  times[$name]+="$wall "
  cpus[$name]+="$cpu "
}
# run_pairs RUNS: RUNS rounds over the caller's array `pairs` ("A|CMD|B|CMD" each); each pair runs
# a-b in even rounds and b-a in odd ones, so the first of a pair does not always follow the same
# command.
run_pairs() {
  local i p a acmd b bcmd
  for ((i = 0; i < $1; i++)); do
    for p in "${pairs[@]}"; do
      IFS='|' read -r a acmd b bcmd <<<"$p"
      if ((i % 2 == 0)); then
        timed "$a" $acmd
        timed "$b" $bcmd
      else
        timed "$b" $bcmd
        timed "$a" $acmd
      fi
    done
  done
}
# times_of NAME, cpus_of NAME: the wall or CPU times of NAME's runs, one a line, in the order they ran.
times_of() { tr ' ' '\n' <<<"${times[$1]}" | grep .; }
cpus_of() { tr ' ' '\n' <<<"${cpus[$1]}" | grep .; }
