//! What the README says of `--help`: every command has one, with its options and examples.

use crate::util::{run, stdout};

/// The commands `pgnkit --help` lists, `help` aside.
fn commands() -> Vec<String> {
    let o = run(&["--help"]);
    assert_eq!(o.status.code(), Some(0));
    let help = stdout(&o);
    let listed = help.split("\nCommands:\n").nth(1).expect("a Commands section");
    listed
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect()
}

#[test]
fn every_command_help_shows_examples() {
    let commands = commands();
    assert!(commands.len() > 10, "{commands:?}");
    for command in commands {
        let o = run(&[&command, "--help"]);
        assert_eq!(o.status.code(), Some(0), "{command}");
        let help = stdout(&o);
        let examples = help.split("\nExamples:\n").nth(1).unwrap_or("");
        assert!(
            examples.contains(&format!("pgnkit {command}")),
            "pgnkit {command} --help has no example of itself:\n{help}"
        );
    }
}
