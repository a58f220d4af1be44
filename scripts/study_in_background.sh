#!/usr/bin/env bash
# A study's scale run in the background of a working session, its finished
# points saved and committed as they come, so that nothing done is lost when
# the machine goes: a later `g5net study run` on any machine takes the
# committed points instead of running them again (g5net/runs/store.py adopt).
#
#   nohup scripts/study_in_background.sh niagara2-nic medium > study.log 2>&1 &
#
# Every SAVE_EVERY_S (default 600) and once more at the end it saves the
# points finished so far (`g5net study save`), writes that scale's report and
# the README's study block again, and commits those alone, when they changed.
# The run itself is `g5net study run NAME --scale SCALE --jobs JOBS` (JOBS
# default 2), niced; its progress goes to this script's output.
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:?usage: $0 STUDY SCALE}
scale=${2:?usage: $0 STUDY SCALE}
every=${SAVE_EVERY_S:-600}
jobs=${JOBS:-2}
g5net=.venv/bin/g5net
results="studies/$name/results/$scale"
report="studies/$name/report/$scale"

save() {
  # Nothing finished yet is no error: the next save finds it.
  "$g5net" study save "$name" --scale "$scale" -q >/dev/null 2>&1 || return 0
  # The scale's report and the README's study block follow its results
  # (tests/test_studies.py holds them to it). README.md is committed whole:
  # leave no other edit of it uncommitted while this runs.
  "$g5net" study report "$name" --scale "$scale" >/dev/null
  .venv/bin/python scripts/gen_docs.py >/dev/null
  git add -- "$results" "$report" README.md
  if ! git diff --cached --quiet -- "$results" "$report" README.md; then
    git commit -q -m "Study $name, $scale scale: $(ls -d "$results"/*/ 2>/dev/null | wc -l) points saved so far (committed by scripts/study_in_background.sh as they finish)" -- "$results" "$report" README.md
    echo "study_in_background: committed $results at $(date -u +%H:%M:%S)"
  fi
}

nice -n 5 "$g5net" study run "$name" --scale "$scale" --jobs "$jobs" &
run=$!
trap 'kill "$run" 2>/dev/null || true' INT TERM
while kill -0 "$run" 2>/dev/null; do
  for _ in $(seq "$every"); do
    kill -0 "$run" 2>/dev/null || break
    sleep 1
  done
  save
done
status=0
wait "$run" || status=$?
save
exit "$status"
