#!/usr/bin/env bash
# Seeds each fuzz target's corpus (fuzz/corpus/<target>/) with the shipped
# files it reads. Run from the repository's root: bash fuzz/seed-corpus.sh
set -euo pipefail
seed() { mkdir -p "fuzz/corpus/$1"; shift; for f in "$@"; do cp "$f" "fuzz/corpus/$target/"; done; }
target=scenario; seed "$target" scenarios/*.toml
target=roster; seed "$target" scenarios/rosters/*.toml
target=rules_stand_to; seed "$target" scenarios/rules/stand-to.toml
target=rules_volley_fire; seed "$target" scenarios/rules/volley-fire.toml
target=rules_little_colonial; seed "$target" scenarios/rules/little-colonial.toml
target=rules_soldiers_in_time; seed "$target" scenarios/rules/soldiers-in-time.toml
target=layout; seed "$target" calibration/table*.toml
target=camera; seed "$target" fixtures/detect/*.camera.toml
target=detector_params; seed "$target" calibration/vision.toml
target=script; seed "$target" scenarios/scripts/*.toml
# Parameter files: empty (every default) and one line each; a played
# game's log for each shipped script.
mkdir -p fuzz/corpus/tracker_params fuzz/corpus/hand_params fuzz/corpus/game_log
: > fuzz/corpus/tracker_params/empty.toml
: > fuzz/corpus/hand_params/empty.toml
spotter=${SPOTTER:-target/debug/spotter}
for s in scenarios/scripts/*.toml; do
    log="fuzz/corpus/game_log/$(basename "$s" .toml).jsonl"
    rm -f "$log"
    "$spotter" play --script "$s" --log "$log" --quiet >/dev/null
done
