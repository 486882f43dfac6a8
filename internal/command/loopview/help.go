package loopview

// Each subcommand's help: its usage line, a blank line, then examples and
// text (the layout cli.WriteHelp renders).
const runsHelp = `[OPTIONS]

Examples:
  $ loop-view runs
  $ loop-view runs --failed --last 5
  $ loop-view runs --jq .run_id -r

One line per run: id, name, status, iterations (passed/failed), tokens
in/out, duration, cost, age. A stuck run nobody resolved yet shows as STUCK,
a running one whose driver is gone as interrupted (--json: run.json with
"interrupted": true). Reads run.json files only, so it stays fast with
many runs.`

const logsHelp = `[OPTIONS] [RUN [ITER]]

Examples:
  $ loop-view logs -v
  $ loop-view logs RUN --where '.exit_code != 0 and .duration_ms > 1000'
  $ loop-view logs RUN --follow --until-done

One line per iteration: '[N] COMMAND — exit CODE — TIME — K files'. -v adds
tool calls and token counts (for iterations an agent ran); --follow prints
new iterations as they are recorded.`

const outputHelp = `[OPTIONS] [RUN [ITER]]

Examples:
  $ loop-view output RUN
  $ loop-view output RUN 3 --full

'## Iteration N — Exit CODE — TIME' and the first 200 characters of each
iteration's validation stdout; --full prints all of stdout, then stderr.`

const showHelp = `[OPTIONS] [RUN] ITER

Examples:
  $ loop-view show RUN 3 | less
  $ loop-view show RUN 3 --stderr
  $ loop-view show --run RUN 3 --file changes.patch

Copies one file of an iteration folder as stored, byte for byte: the
validation's stdout (default), --stderr, --executor (the agent's streams),
--meta or any --file. RUN may come from --run or LOOP_RUN_ID instead.`

const describeHelp = `[OPTIONS] [RUN]

Examples:
  $ loop-view describe
  $ loop-view describe RUN --jq .status -r

Status, artifact, totals, timestamps and the paths of the run's files.
'artifact: PATH (STATE)' is the file the run produced, '-' when it names
none (the work is in the workspace), and its state: draft while the run
goes on, complete once the validation passed, failed. --json prints
run.json with "paths" and "live" added.`

const tailHelp = `[OPTIONS] [RUN]

Examples:
  $ loop-view tail
  $ loop-view tail RUN --json --quiet

The agent's output, then the validation's, as they are written, iteration
after iteration; exits 0 once the run has ended (a line says so if it had
before tail began), 1 with a line saying so once no driver drives it
(paused, or interrupted: its driver was killed) or it was deleted.
An agent's JSON stream is told for people: its text and tool calls one
line each, failed tools, retry notices, the result. --json prints the raw
lines as events. Reads the spool only, so it never disturbs the driver.`
