// Generates the golden files of seed 002's SystemCapturedProgress by running
// the seed's own Rust code, copied verbatim below, on each case. Regenerate:
//   rustc -O -o /tmp/gen002 gen.rs && /tmp/gen002 .
// Each case becomes NAME.txtar with the limits, the IterationLog lines fed
// to loop-progress, and the exact bytes get_progress() returned. Inputs are
// printable ASCII (plus \n and \t): the seed slices bytes, so on ASCII its
// byte counts are character counts, and Rust's {:?} is valid JSON for them.

use std::collections::VecDeque;
use std::fs;

// ---- seed 002, verbatim -------------------------------------------------

/// Context passed to progress strategy after each iteration
#[derive(Debug, Clone)]
pub struct IterationContext {
    /// Current iteration number (1-indexed)
    pub iteration: u32,
    /// The validation command that was run
    pub validation_command: String,
    /// Exit code from validation (0 = success)
    pub exit_code: i32,
    /// Stdout from validation command
    pub stdout: String,
    /// Stderr from validation command
    pub stderr: String,
    /// How long validation took
    pub duration_ms: u64,
    /// Files modified during this iteration (from git status)
    pub files_changed: Vec<String>,
}

pub trait ProgressStrategy: Send + Sync {
    fn record(&mut self, ctx: &IterationContext) -> String;
    fn get_progress(&self) -> String;
    fn clear(&mut self);
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[derive(Debug, Clone)]
pub struct SystemCapturedProgress {
    entries: VecDeque<String>,
    max_entries: usize,
    max_output_chars: usize,
}

impl SystemCapturedProgress {
    pub fn with_limits(max_entries: usize, max_output_chars: usize) -> Self {
        Self {
            entries: VecDeque::with_capacity(max_entries),
            max_entries,
            max_output_chars,
        }
    }
}

impl ProgressStrategy for SystemCapturedProgress {
    fn record(&mut self, ctx: &IterationContext) -> String {
        // Combine stdout and stderr, prefer stdout
        let output = if !ctx.stdout.is_empty() {
            &ctx.stdout
        } else {
            &ctx.stderr
        };

        // Truncate output, keeping the END (most relevant for errors)
        let truncated = if output.len() > self.max_output_chars {
            let start = output.len() - self.max_output_chars;
            format!("...[truncated]...\n{}", &output[start..])
        } else {
            output.clone()
        };

        // Format entry
        let entry = format!(
            "## Iteration {}\n\
             **Command:** `{}`\n\
             **Exit code:** {}\n\
             **Duration:** {}ms\n\
             **Files changed:** {}\n\
             **Output:**\n```\n{}\n```\n\n",
            ctx.iteration,
            ctx.validation_command,
            ctx.exit_code,
            ctx.duration_ms,
            if ctx.files_changed.is_empty() {
                "none".to_string()
            } else {
                ctx.files_changed.join(", ")
            },
            truncated.trim(),
        );

        // Add to queue, evict oldest if at capacity
        if self.entries.len() >= self.max_entries {
            self.entries.pop_front();
        }
        self.entries.push_back(entry.clone());

        entry
    }

    fn get_progress(&self) -> String {
        self.entries.iter().cloned().collect::<Vec<_>>().join("")
    }

    fn clear(&mut self) {
        self.entries.clear();
    }

    fn len(&self) -> usize {
        self.entries.len()
    }
}

// ---- cases --------------------------------------------------------------

// make_ctx is the seed's test helper.
fn make_ctx(iteration: u32, exit_code: i32, output: &str) -> IterationContext {
    IterationContext {
        iteration,
        validation_command: "cargo test".to_string(),
        exit_code,
        stdout: output.to_string(),
        stderr: String::new(),
        duration_ms: 1000,
        files_changed: vec!["src/lib.rs".to_string()],
    }
}

fn ctx(iteration: u32, cmd: &str, exit_code: i32, stdout: &str, stderr: &str, ms: u64, files: &[&str]) -> IterationContext {
    IterationContext {
        iteration,
        validation_command: cmd.to_string(),
        exit_code,
        stdout: stdout.to_string(),
        stderr: stderr.to_string(),
        duration_ms: ms,
        files_changed: files.iter().map(|s| s.to_string()).collect(),
    }
}

fn json_line(c: &IterationContext) -> String {
    let files: Vec<String> = c.files_changed.iter().map(|f| format!("{:?}", f)).collect();
    format!(
        "{{\"iteration\":{},\"validation_command\":{:?},\"exit_code\":{},\"stdout\":{:?},\"stderr\":{:?},\"duration_ms\":{},\"files_changed\":[{}]}}\n",
        c.iteration, c.validation_command, c.exit_code, c.stdout, c.stderr, c.duration_ms, files.join(",")
    )
}

fn write_case(dir: &str, name: &str, entries: usize, chars: usize, ctxs: &[IterationContext]) {
    let mut p = SystemCapturedProgress::with_limits(entries, chars);
    let mut input = String::new();
    for c in ctxs {
        p.record(c);
        input.push_str(&json_line(c));
    }
    let out = format!(
        "seed 002 SystemCapturedProgress::with_limits({}, {}) fed the records below\n-- limits --\n{} {}\n-- input.jsonl --\n{}-- want.md --\n{}",
        entries, chars, entries, chars, input, p.get_progress()
    );
    fs::write(format!("{}/{}.txtar", dir, name), out).unwrap();
}

fn main() {
    let dir = std::env::args().nth(1).unwrap_or(".".to_string());
    let d = dir.as_str();

    // The seed's own tests.
    write_case(d, "records_one_iteration", 5, 500, &[make_ctx(1, 1, "test failed")]);
    let five: Vec<_> = (1..=5).map(|i| make_ctx(i, 1, &format!("error {}", i))).collect();
    write_case(d, "keeps_last_entries", 3, 100, &five);
    write_case(d, "truncates_output", 5, 50, &[make_ctx(1, 1, &"x".repeat(200))]);
    write_case(d, "empty_history", 5, 500, &[]);
    write_case(d, "survives_serialization", 5, 500, &[ctx(1, "make test", 1, "FAILED: test_foo", "", 500, &[])]);

    // Output choice and files.
    write_case(d, "prefers_stdout", 5, 500, &[ctx(1, "go test ./...", 1, "stdout text\n", "stderr text\n", 12, &["a.go"])]);
    write_case(d, "falls_back_to_stderr", 5, 500, &[ctx(2, "go test ./...", 2, "", "only stderr\n", 7, &["a.go"])]);
    write_case(d, "files_joined", 5, 500, &[ctx(3, "cargo test", 1, "x\n", "", 2341, &["src/lib.rs", "src/auth.rs", "tests/it.rs"])]);
    write_case(d, "files_none", 5, 500, &[ctx(1, "cargo test", 0, "ok\n", "", 5, &[])]);
    write_case(d, "no_output", 5, 500, &[ctx(1, "true", 0, "", "", 0, &[])]);

    // DESIGN.md's example entry: 8 tests, the end kept.
    let long = format!(
        "{}running 8 tests\ntest auth::test_login ... ok\ntest auth::test_validate ... FAILED\n",
        "compiling loopkit v0.1.0 (/work)\n".repeat(20)
    );
    write_case(d, "design_example", 5, 60, &[ctx(3, "cargo test", 1, &long, "", 2341, &["src/lib.rs", "src/auth.rs"])]);

    // Edges of the cut and the trim.
    write_case(d, "exactly_max", 5, 10, &[ctx(1, "t", 1, "0123456789", "", 1, &[])]);
    write_case(d, "one_over_max", 5, 10, &[ctx(1, "t", 1, "0123456789A", "", 1, &[])]);
    write_case(d, "trim_whitespace", 5, 500, &[ctx(1, "t", 1, "\n\n   padded line  \n\t\n", "", 1, &[])]);
    write_case(d, "cut_then_trim", 5, 12, &[ctx(1, "t", 1, "head text\n\n\n        tail\n\n", "", 1, &[])]);
    write_case(d, "cut_all_blank", 5, 4, &[ctx(1, "t", 1, "abcdef\n  \n\n", "", 1, &[])]);
    write_case(d, "zero_chars", 5, 0, &[ctx(1, "t", 1, "abc", "", 1, &[])]);
    write_case(d, "errored_validation", 5, 500, &[ctx(4, "sleep 100", -1, "partial\n", "", 90000, &[])]);
    write_case(d, "backticks_in_command", 5, 500, &[ctx(1, "sh -c 'echo `date`'", 0, "```\nfenced\n```\n", "", 3, &["a b/c.go"])]);
    let ten: Vec<_> = (1..=10).map(|i| ctx(i, "make ci", if i == 10 { 0 } else { 1 }, &format!("FAIL {}\n", i), "", 100 * i as u64, &[])).collect();
    write_case(d, "default_limits_ten", 5, 500, &ten);
    write_case(d, "one_entry", 1, 500, &ten);
}
