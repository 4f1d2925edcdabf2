# Timing helpers sourced by scripts/bench-pipeline.sh and scripts/ab.sh.

# secs CMD...: wall-clock seconds of one run (output discarded). The clock is bash's EPOCHREALTIME
# where it has one: a `date` forked inside the timed span added about 1.3 ms to each run here, 1%
# of a 2-thread `check`.
secs() {
  local t0 t1
  t0=${EPOCHREALTIME:-$(date +%s.%N)}
  "$@" >/dev/null 2>&1 || true
  t1=${EPOCHREALTIME:-$(date +%s.%N)}
  echo "${t1/,/.} - ${t0/,/.}" | bc -l
}
# median: the median of the numbers on stdin, one a line.
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# middle_half: the first and third quartiles of the numbers on stdin, one a line, as "Q1-Q3".
middle_half() { sort -g | awk '{a[NR]=$1} END {q=int((NR+3)/4); printf "%.2f-%.2f", a[q], a[NR+1-q]}'; }
# quantile Q: the Q-quantile (0 = the least, 0.5 = about the median) of the numbers on stdin.
quantile() { sort -g | awk -v q="$1" '{a[NR]=$1} END {print a[int(q * (NR - 1)) + 1]}'; }
