# shellcheck shell=bash
# The reviewer, the final verification and the merge (sourced by
# scripts/loop): actions `loop-drive --next` asks for after an iteration.

# act_review: the reviewer reads the task and iteration A[iteration]'s diff;
# its call is an attempt of the run (tokens and cost in the totals).
act_review() {
  local i=${A[iteration]}
  log "iteration $i: review"
  run_child "$LK_STEP" --run "$RUN" --dir "${S[dir]}" --prompt "${S[prompt]}" --review "$i" \
    --review-marker "${S[review_marker]:-review}" --timeout "${S[timeout]:-30m}" --exit-zero \
    -- sh -c "${S[reviewer]}" >"$TMP/review.json"
  checked loop-step $?
  "$LK_RECORD" --run "$RUN" --attempt --kind reviewer <"$TMP/review.json" >/dev/null
  checked loop-record $?
}

# act_verify: one final verification command, kept with its exit code.
act_verify() {
  log "final verification ${A[index]}: ${A[command]}"
  run_child "$LK_VALIDATE" --run "$RUN" --dir "${S[dir]}" --timeout "${S[validate_timeout]:-10m}" \
    --exit-zero --shell "${A[command]}" >"$TMP/verify.json"
  checked loop-validate $?
  "$LK_RECORD" --run "$RUN" --verify <"$TMP/verify.json" >/dev/null
  checked loop-record $?
}

# act_merge: the completed run's branch goes into its merge target in the
# primary worktree; loop-drive records how, and the next action acts on it.
act_merge() {
  log "merging ${S[run_branch]:-} into ${A[target]} (${A[strategy]})"
  "$LK_DRIVE" --merge --run "$RUN" >/dev/null
  checked loop-drive $?
}
