# shellcheck shell=bash
# The reviewer, the final verification and the merge (sourced by
# scripts/loop): the review act_iterate runs, and actions `loop-drive
# next` asks for after an iteration.

# review_step I/MAX: between the step and the validation, the reviewer
# reads the task and the step's change; its record ($TMP/review.json) goes
# into the iteration with the step's (the verdict, a reviewer attempt).
review_step() {
  log "iteration $1: review"
  run_child "$TMP/review.json" "$LK_STEP" --run "$RUN" --dir "${S[dir]}" --prompt "${S[prompt]}" --review "$TMP/step.json" \
    --review-marker "${S[review_marker]}" --timeout "${A[step_timeout]:-${S[timeout]}}" ${A[deadline_ms]:+--deadline "${A[deadline_ms]}"} --exit-zero "${CALL[@]}" \
    ${S[plan]:+--plan "${S[plan]}"} -- sh -c "${S[reviewer]}"
  checked loop-step $?
}

# act_verify: one final verification command, kept with its exit code.
act_verify() {
  log "final verification ${A[index]}: ${A[command]}"
  run_child "$TMP/verify.json" "$LK_VALIDATE" --run "$RUN" --dir "${S[dir]}" --timeout "${S[validate_timeout]}" \
    ${A[deadline_ms]:+--deadline "${A[deadline_ms]}"} --exit-zero --shell "${A[command]}"
  checked loop-validate $?
  "$LK_RECORD" verify --run "$RUN" <"$TMP/verify.json" >/dev/null
  checked loop-record $?
}

# act_merge: the completed run's branch goes into its merge target in the
# primary worktree; loop-drive records how, and the next action acts on it.
act_merge() {
  log "merging ${S[run_branch]} into ${A[target]} (${A[strategy]})"
  "$LK_DRIVE" merge --run "$RUN" >/dev/null
  checked loop-drive $?
}
