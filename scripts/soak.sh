#!/usr/bin/env bash
# The soak test: an evening-long game. The app runs headless on the demo
# recording (looped), with scripted game commands (scripts/soak-commands.txt)
# so that its game log grows; it is killed with kill -9 at random moments
# and started again, resuming the game from its log. After each resume the
# script checks that the replayed game is the game before the kill: the log
# left by the killed app is a prefix of the resumed one, the resumed game has
# every record that log holds, and its state digest equals the digest the
# killed app printed after that record. It samples the app's memory (VmRSS)
# and counts the frames the app dropped.
#
#   scripts/soak.sh [SECONDS] [FPS]        (defaults: 180 s, 5 fps)
#
# Environment: SPOTTER (the binary; default target/release/spotter),
# SOAK_DIR (work folder; default a new temp folder), SOAK_KILL_MIN /
# SOAK_KILL_MAX (seconds between kills; default 15 / 240), SOAK_FINAL
# (seconds of the last run, which ends by itself; default a quarter of the
# duration, at most 600), SOAK_STEP (seconds between commands; default 2).
# Exit status 0 when every replay matched and no run failed.

set -u
cd "$(dirname "$0")/.."

DURATION=${1:-180}
FPS=${2:-5}
BIN=${SPOTTER:-target/release/spotter}
KILL_MIN=${SOAK_KILL_MIN:-15}
KILL_MAX=${SOAK_KILL_MAX:-240}
STEP=${SOAK_STEP:-2}
FINAL=${SOAK_FINAL:-$((DURATION / 4 < 600 ? DURATION / 4 : 600))}
WORK=${SOAK_DIR:-$(mktemp -d /tmp/spotter-soak.XXXXXX)}
GAMES="$WORK/games"
mkdir -p "$GAMES"

[ -x "$BIN" ] || { echo "soak: no binary at $BIN (cargo build --release)"; exit 2; }

rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null; }
newest_log() { ls -t "$GAMES"/*.jsonl 2>/dev/null | grep -v '\.damaged' | head -n 1; }
# The digest an earlier run printed for the game after K records (the runs
# before this one: their lines are gathered in digests.txt as each ends).
digest_for() { grep -h -E "^soak (start|committed) records=$1 " "$WORK/digests.txt" 2>/dev/null | head -n 1 | sed 's/.*digest=//'; }

start=$(date +%s)
deadline=$((start + DURATION))
run=0 kills=0 resumes=0 matched=0 matched_log_only=0 mismatched=0 failed_runs=0
dropped_total=0 shown_total=0
rss_first="" rss_last="" rss_max=0
prev_log="" prev_records=""
final_rss_start="" final_rss_warm="" final_rss_end=""

echo "soak: $DURATION s at $FPS fps, kills every $KILL_MIN..$KILL_MAX s, work folder $WORK"
while :; do
  now=$(date +%s)
  left=$((deadline - now))
  [ "$left" -le 0 ] && break
  run=$((run + 1))
  out="$WORK/run-$run.out"
  if [ "$left" -le "$FINAL" ]; then final=1; limit=$left; else final=0; limit=$((left + 600)); fi
  new_game=()
  [ "$run" -eq 1 ] && new_game=(--new-game)
  nice -n 19 "$BIN" app --demo --fps "$FPS" --games-dir "$GAMES" "${new_game[@]}" \
    --bench "$limit" --bench-script scripts/soak-commands.txt --bench-step "$STEP" \
    >"$out" 2>&1 &
  pid=$!
  # The game as the app opened it.
  for _ in $(seq 1 600); do
    grep -q '^soak start ' "$out" && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  line=$(grep -m1 '^soak start ' "$out")
  if [ -z "$line" ]; then
    echo "run $run: the app never opened the game:"; sed 's/^/  /' "$out" | tail -n 20
    failed_runs=$((failed_runs + 1)); kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    break
  fi
  records=$(echo "$line" | sed 's/.*records=\([0-9]*\).*/\1/')
  digest=$(echo "$line" | sed 's/.*digest=//')
  if [ "$run" -gt 1 ]; then
    resumes=$((resumes + 1))
    verdict="mismatch"
    log=$(newest_log)
    prefix_ok=1
    if [ -n "$prev_log" ] && ! cmp -s -n "$(stat -c %s "$prev_log")" "$prev_log" "$log"; then
      prefix_ok=0
    fi
    want=$(digest_for "$records")
    if [ "$records" != "$prev_records" ] || [ "$prefix_ok" -ne 1 ]; then
      mismatched=$((mismatched + 1))
    elif [ -z "$want" ]; then
      # Killed between writing the record and printing its digest: the log
      # prefix and the record count are all there is to compare.
      matched_log_only=$((matched_log_only + 1)); verdict="log prefix and count"
    elif [ "$want" = "$digest" ]; then
      matched=$((matched + 1)); verdict="matched"
    else
      mismatched=$((mismatched + 1))
    fi
    echo "run $run: resumed $records records (log held $prev_records), digest $digest: $verdict"
  else
    echo "run $run: new game, $records records"
  fi
  sleep 5
  rss0=$(rss_kb "$pid"); rss1=$rss0
  [ -z "$rss_first" ] && rss_first=$rss0
  [ "$final" -eq 1 ] && final_rss_start=$rss0
  if [ "$final" -eq 1 ]; then
    wait_s=$((limit + 120))
  else
    wait_s=$((KILL_MIN + RANDOM % (KILL_MAX - KILL_MIN + 1)))
  fi
  t_end=$(($(date +%s) + wait_s))
  t_run=$(date +%s)
  while [ "$(date +%s)" -lt "$t_end" ] && kill -0 "$pid" 2>/dev/null; do
    r=$(rss_kb "$pid")
    if [ -n "$r" ]; then
      rss1=$r; [ "$r" -gt "$rss_max" ] && rss_max=$r
      echo "$run $(($(date +%s) - t_run)) $r" >>"$WORK/rss.txt"
      # Warm: a minute in, every photo of the recording decoded and seen.
      [ "$final" -eq 1 ] && [ -z "$final_rss_warm" ] && [ $(($(date +%s) - t_run)) -ge 60 ] && final_rss_warm=$r
    fi
    sleep 1
  done
  if [ "$final" -eq 1 ]; then
    wait "$pid"; rc=$?
    [ "$rc" -ne 0 ] && { echo "run $run: exit status $rc"; failed_runs=$((failed_runs + 1)); }
    final_rss_end=$rss1
  elif kill -0 "$pid" 2>/dev/null; then
    kill -9 "$pid"; wait "$pid" 2>/dev/null
    kills=$((kills + 1))
  else
    wait "$pid"; echo "run $run: ended by itself before its kill (status $?)"; tail -n 5 "$out"
    failed_runs=$((failed_runs + 1))
  fi
  rss_last=$rss1
  grep -E '^soak (start|committed) ' "$out" >>"$WORK/digests.txt"
  status=$(grep '^soak status ' "$out" | tail -n 1)
  d=$(echo "$status" | sed -n 's/.*frames_dropped=\([0-9]*\).*/\1/p'); d=${d:-0}
  s=$(echo "$status" | sed -n 's/.*frames_shown=\([0-9]*\).*/\1/p'); s=${s:-0}
  dropped_total=$((dropped_total + d)); shown_total=$((shown_total + s))
  log=$(newest_log)
  # What the next run must resume: the log's complete lines (a line torn by
  # the kill is not committed).
  prev_log="$WORK/log-after-run-$run.jsonl"
  if [ -n "$log" ]; then
    size=$(stat -c %s "$log")
    keep=$(head -c "$size" "$log" | tr -cd '\n' | wc -c)
    head -n "$keep" "$log" >"$prev_log"
    # A record is an undo, or a command with its events and its end line
    # (a command without its end is not committed).
    prev_records=$(grep -c -E '^\{"kind":"(end|undo)"' "$prev_log")
  fi
  echo "run $run: $(($(date +%s) - t_run + 5)) s, RSS $rss0 -> $rss1 kB, frames shown $s, dropped $d, log $prev_records records"
done

elapsed=$(($(date +%s) - start))
echo
echo "soak summary"
echo "  duration:        $elapsed s ($run runs)"
echo "  kills (-9):      $kills"
echo "  resumes:         $resumes"
echo "  replays matched: $matched by state digest, $matched_log_only by log prefix and count only, $mismatched mismatched"
echo "  RSS:             first run start $rss_first kB, last run end $rss_last kB, max $rss_max kB"
echo "  final run RSS:   start ${final_rss_start:--} kB, after 60 s ${final_rss_warm:--} kB, end ${final_rss_end:--} kB (${FINAL} s without a kill)"
echo "  RSS samples:     $WORK/rss.txt (run, seconds into the run, kB)"
echo "  frames:          $shown_total shown, $dropped_total dropped"
echo "  failed runs:     $failed_runs"
echo "  log:             $(newest_log) ($prev_records records)"
[ "$mismatched" -eq 0 ] && [ "$failed_runs" -eq 0 ]
