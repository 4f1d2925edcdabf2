//! The `pgnkit` command line: parse the arguments, run the command, map the result to an exit code.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
