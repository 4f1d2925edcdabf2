//! A small test runner for this binary, which has its own `main` because it is also the fake
//! engine: runs the tests whose names contain a filter (all without one; `--exact` for whole
//! names, `--skip F` to leave some out), one after the other, each on a thread named after it
//! as libtest does (a panic or a skipped test names it), prints what libtest prints, and exits
//! with 101 when one failed. `--list` lists them, as `cargo test -- --list` expects.

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

/// One test: its name (module path style) and its body, which panics on failure.
pub struct Test {
    /// `module::name`.
    pub name: &'static str,
    /// The test.
    pub run: fn(),
}

/// Flags of libtest that take a value in the next argument.
const WITH_VALUE: [&str; 7] =
    ["--test-threads", "--color", "--format", "--logfile", "-Z", "--shuffle-seed", "--skip"];

/// Runs `tests` as the command-line arguments select them.
pub fn run(tests: &[Test]) -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mut filters, mut skips) = (Vec::new(), Vec::new());
    let (mut exact, mut list, mut ignored) = (false, false, false);
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        match arg {
            "--exact" => exact = true,
            "--list" => list = true,
            "--ignored" => ignored = true,
            "--skip" => skips.extend(args.get(i + 1).cloned()),
            _ if WITH_VALUE.contains(&arg) => {}
            _ if arg.starts_with('-') => {}
            _ => filters.push(arg.to_string()),
        }
        i += if WITH_VALUE.contains(&arg) { 2 } else { 1 };
    }
    let matches = |name: &str, f: &String| if exact { name == f } else { name.contains(f.as_str()) };
    // No test is ignored: `--ignored` selects none.
    let selected: Vec<&Test> = tests
        .iter()
        .filter(|_| !ignored)
        .filter(|t| filters.is_empty() || filters.iter().any(|f| matches(t.name, f)))
        .filter(|t| !skips.iter().any(|f| matches(t.name, f)))
        .collect();
    if list {
        for t in &selected {
            println!("{}: test", t.name);
        }
        return ExitCode::SUCCESS;
    }
    println!("\nrunning {} tests", selected.len());
    let start = Instant::now();
    let mut failed = Vec::new();
    for t in &selected {
        print!("test {} ... ", t.name);
        let _ = std::io::stdout().flush();
        let began = Instant::now();
        let thread = std::thread::Builder::new().name(t.name.to_string()).spawn(t.run);
        match thread.expect("a thread for the test").join() {
            Ok(()) => println!("ok ({:.2} s)", began.elapsed().as_secs_f64()),
            Err(_) => {
                println!("FAILED");
                failed.push(t.name);
            }
        }
    }
    if !failed.is_empty() {
        println!("\nfailures:");
        for name in &failed {
            println!("    {name}");
        }
    }
    println!(
        "\ntest result: {}. {} passed; {} failed; 0 ignored; 0 measured; {} filtered out; finished in {:.2}s\n",
        if failed.is_empty() { "ok" } else { "FAILED" },
        selected.len() - failed.len(),
        failed.len(),
        tests.len() - selected.len(),
        start.elapsed().as_secs_f64()
    );
    if failed.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(101) }
}
