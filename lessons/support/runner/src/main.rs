//! `cargo workbook`: the workbook's front door, for students and instructors.

mod building;
mod catalog;
mod class;
mod commands;
mod dev;
mod play;
mod progress;
mod progress_clock;
mod repeat_kafka;
mod results;
mod shipped;
mod status;
mod supervise;
mod sync_lists;
mod tests_run;
mod trace;
mod watch;
mod workspace;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "cargo workbook",
    bin_name = "cargo workbook",
    about = "Idempotency is a database constraint: the workbook's exercises, hints and checks.",
    after_help = "Lessons are named by number (01), key (check-then-act) or folder."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// How `check` and the status print their verdict: words for a person, or JSON for a tool
    /// (an editor, a grader; the shape: lessons/support/runner/results.schema.json).
    #[arg(long, global = true, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// Every lesson: solved or not, its chapter, and which one is next (the default).
    Status,
    /// Run one exercise's tests and explain the verdict.
    Check {
        lesson: String,
        /// The lesson's tests on a Kafka-protocol broker instead (lessons 07 and 08): the broker at
        /// KAFKA_BOOTSTRAP_SERVERS, or one the tests start.
        #[arg(long)]
        kafka: bool,
    },
    /// Check the current exercise (or the one named) again on every save. Keys: q quit, h hint,
    /// n next lesson, Enter check now.
    Watch { lesson: Option<String> },
    /// The next hint for a lesson: first a nudge, then the mechanism, never the code.
    Hint { lesson: String },
    /// Restore a lesson's exercise files as shipped (your changes to them are lost).
    Reset { lesson: String },
    /// The exercise against its solution, coloured (once the exercise passes, or with --force).
    Diff {
        lesson: String,
        #[arg(long)]
        force: bool,
    },
    /// Print the solution's handler (once the exercise passes, or with --force).
    Solution {
        lesson: String,
        #[arg(long)]
        force: bool,
    },
    /// Maintainers and CI: every shipped exercise fails for its intended reason, every solution
    /// passes, each exercise runs the same test file as its solution, and every lesson's wrong
    /// fixes are caught for the right reason (or pass, if they are correct after all).
    Verify,
    /// Maintainers: write what the lessons' manifests (lessons/NN-key/lesson.toml) decide: the
    /// lists of lessons in the book's contents, the README and the instructor's index, and a new
    /// lesson's shipped copy.
    Sync,
    /// A database of your own to poke at: start, status (with a psql command), stop (keeps the
    /// data), url [DATABASE].
    Db {
        #[arg(value_parser = ["start", "status", "stop", "url"])]
        action: String,
        database: Option<String>,
    },
    /// The Kafka track's broker, kept running for console tools: start [--fresh] (--fresh
    /// empties its log first), status, stop (keeps the log), url (its bootstrap address).
    Kafka {
        #[arg(value_parser = ["start", "status", "stop", "url"])]
        action: String,
        #[arg(long)]
        fresh: bool,
    },
    /// Hand events (one JSON object a line, from FILE or typed in) to a lesson's handler,
    /// against the database of `db start`, and say what each delivery did.
    Deliver {
        lesson: String,
        /// A file of events, or - (the default) for standard input.
        input: Option<String>,
        /// Your exercise's handler instead of the solution's (database workbook_NN_mine).
        #[arg(long)]
        mine: bool,
        /// Build the lesson's database again, empty, before delivering.
        #[arg(long)]
        fresh: bool,
    },
    /// Start a lesson's HTTP API (the payments of lessons 11 and 12) against the database of `db
    /// start`, for curl; it runs until Ctrl-C.
    Serve {
        lesson: String,
        /// Your exercise's handler behind the API instead of the solution's (database
        /// workbook_NN_mine).
        #[arg(long)]
        mine: bool,
        /// Build the lesson's database again, empty, before serving.
        #[arg(long)]
        fresh: bool,
        /// The port on 127.0.0.1 (the default is 80 followed by the lesson's number; 0 takes any
        /// free port).
        #[arg(long)]
        port: Option<u16>,
    },
    /// Play a race you wrote (a spec) against the shipped exercise and the solution.
    ///
    /// A spec is written as in lessons/NN-…/specs/, or lessons/order-saga/specs/ for lessons 02
    /// to 05 (start from a copy of your-turn.spec there).
    /// Each of its permutations is played on throwaway databases; the spec exposes the race when
    /// one fails the exercise as shipped for the lesson's reason and passes the solution.
    Break {
        lesson: String,
        /// The spec file (start from a copy of one in the lesson's specs/ folder, or the order
        /// saga's for lessons 02 to 05).
        file: String,
    },
    /// Play a spec of SQL sessions (PostgreSQL's isolation-tester dialect) as PostgreSQL's
    /// isolationtester plays it, on a throwaway database.
    ///
    /// Standard output is what the isolation tester prints (steps, `<waiting ...>`, rows,
    /// errors), so it can be diffed with PostgreSQL's expected output for the same spec; a
    /// stepper page per permutation is named on standard error.
    Play {
        /// The spec: PostgreSQL's own (src/test/isolation/specs/ in its source), one of lesson
        /// 13's anomalies, or yours.
        file: String,
        /// Play only this permutation, counted from 1 (every interleaving counts, when the spec
        /// names none).
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
        permutation: Option<u64>,
        /// Start from a lesson's schema (its tables, none of its rows) instead of an empty
        /// database: `--schema 13` for lesson 13's anomaly specs.
        #[arg(long, value_name = "LESSON")]
        schema: Option<String>,
        /// The isolation level of a spec written with LEVEL for it (`BEGIN ISOLATION LEVEL LEVEL
        /// }`, as lesson 13's anomaly specs are): READ COMMITTED, REPEATABLE READ or
        /// SERIALIZABLE.
        #[arg(long)]
        level: Option<String>,
    },
    /// Run one test of an exercise and show every statement the server ran for each of its
    /// sessions, in order: what each waited on, and what each returned.
    Trace {
        lesson: String,
        /// The test's name, as `cargo workbook check` and `cargo test` print it.
        test: String,
    },
    /// Instructors: a report on a class of checkouts (HTML and CSV).
    ///
    /// Writes target/workbook/class/report.html and report.csv: per student, the lessons
    /// solved, the kinds of violation each unsolved handler shows, and the lines between their
    /// code and the solutions. Each student's code runs in a working copy under
    /// target/workbook/class/, never in this checkout, with a deadline per test.
    Class {
        /// The class: one folder per student, each a git clone of the workbook or an archive
        /// of it unpacked into the folder.
        dir: String,
        /// Run checkouts that changed files other than their handlers (an edited test, an
        /// added build script) too: their code runs on this machine as it is.
        #[arg(long)]
        trust: bool,
        /// Each test's deadline, in seconds: a handler that loops is stopped after it.
        #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..))]
        deadline: u64,
    },
    /// Run a lesson's race and fault tests K times against the exercise and the solution.
    Repeat {
        lesson: String,
        /// How many times to run each test against each side (at least 1).
        #[arg(long, default_value_t = 200, value_parser = parse_runs, allow_hyphen_values = true)]
        runs: u32,
        /// Only the tests whose names contain this (may be given again).
        #[arg(long, value_name = "TEXT")]
        only: Vec<String>,
        /// All but the tests whose names contain this (`--skip released_together` leaves out the
        /// barrier tests; may be given again).
        #[arg(long, value_name = "TEXT")]
        skip: Vec<String>,
        /// The lesson's Kafka tests instead (07, 08), each run in a process of its own.
        #[arg(long)]
        kafka: bool,
    },
}

/// The same words as `cargo repeat`'s own check, so both ways in refuse alike.
fn parse_runs(value: &str) -> Result<u32, String> {
    value
        .parse()
        .ok()
        .filter(|&runs| runs >= 1)
        .ok_or_else(|| format!("--runs takes a whole number of at least 1, not {value:?}"))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let root = match workspace::root() {
        Ok(root) => root,
        Err(message) => {
            eprintln!("{} {message}", console::style("error:").red().bold());
            return ExitCode::from(2);
        }
    };
    let command = cli.command.unwrap_or(Command::Status);
    if cli.format == Format::Json && !matches!(command, Command::Status | Command::Check { .. }) {
        eprintln!(
            "{} --format json is for `cargo workbook check NN` and `cargo workbook` (the \
             status); the other commands print words only",
            console::style("error:").red().bold()
        );
        return ExitCode::from(2);
    }
    let result = match command {
        Command::Status => status::status(&root, cli.format),
        Command::Check { lesson, kafka } => commands::check(&root, &lesson, kafka, cli.format),
        Command::Watch { lesson } => commands::watch(&root, lesson.as_deref()),
        Command::Hint { lesson } => commands::hint(&root, &lesson),
        Command::Reset { lesson } => commands::reset(&root, &lesson),
        Command::Diff { lesson, force } => commands::diff(&root, &lesson, force),
        Command::Solution { lesson, force } => commands::solution(&root, &lesson, force),
        Command::Verify => commands::verify(&root),
        Command::Sync => sync_lists::sync(&root),
        Command::Db { action, database } => dev::db(&root, &action, database.as_deref()),
        Command::Kafka { action, fresh } => dev::kafka(&root, &action, fresh),
        Command::Deliver {
            lesson,
            input,
            mine,
            fresh,
        } => dev::deliver(&root, &lesson, input.as_deref(), mine, fresh),
        Command::Serve {
            lesson,
            mine,
            fresh,
            port,
        } => dev::serve(&root, &lesson, mine, fresh, port),
        Command::Break { lesson, file } => dev::breaking(&root, &lesson, &file),
        Command::Class {
            dir,
            trust,
            deadline,
        } => class::class(&root, &dir, trust, deadline),
        Command::Play {
            file,
            permutation,
            schema,
            level,
        } => play::play(
            &root,
            &file,
            permutation.map(|n| n as usize),
            schema.as_deref(),
            level.as_deref(),
        ),
        Command::Trace { lesson, test } => crate::trace::trace(&root, &lesson, &test),
        Command::Repeat {
            lesson,
            runs,
            only,
            skip,
            kafka,
        } => commands::repeat(&root, &lesson, runs, (&only, &skip), kafka),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("{} {message}", console::style("error:").red().bold());
            ExitCode::from(2)
        }
    }
}
