//! Tests of the UCI client (`pgnkit::engine::client`) against a fake engine, real Stockfish
//! and Fairy-Stockfish (crazyhouse), and of pgnkit's own engine served over UCI and xboard,
//! driven over pipes ([`server`], [`xboard`], [`pipe`]).
//!
//! This binary is also the fake engine: run with `--fake-uci MODE...` as its first arguments it
//! speaks UCI on stdin/stdout ([`fake`]). That is why it has its own `main` (`harness = false` in
//! Cargo.toml) and a small runner ([`harness`]): Cargo builds it with the tests, the tests find it
//! with `std::env::current_exe()`, nothing is installed for users (a `[[bin]]` would be), and no
//! test runs Cargo itself (an `examples/` engine would need `cargo build --example` from inside
//! `cargo test`, which holds the build directory's lock).

mod annotate;
mod fairy;
mod fake;
mod faults;
mod harness;
mod pipe;
mod protocol;
#[path = "../common/scratch.rs"]
mod scratch;
mod server;
#[path = "../common/signal.rs"]
mod signal;
#[path = "../common/skip.rs"]
mod skip;
mod stockfish;
mod support;
mod xboard;

use std::process::ExitCode;

use harness::Test;

macro_rules! tests {
    ($($module:ident :: $name:ident),* $(,)?) => {
        &[$(Test { name: concat!(stringify!($module), "::", stringify!($name)), run: $module::$name }),*]
    };
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some(fake::FLAG) {
        return ExitCode::from(fake::run(&args[2..]) as u8);
    }
    harness::run(tests![
        protocol::handshake_options_and_one_position_per_search,
        protocol::analyse_sends_the_position_alone,
        protocol::keep_hash_sends_one_ucinewgame_per_game,
        protocol::chess960_sets_the_option_and_castles_king_takes_rook,
        protocol::crazyhouse_needs_uci_variant,
        protocol::game_over_is_not_sent,
        protocol::drop_quits_the_engine,
        faults::crash_restarts_and_retries,
        faults::a_new_engine_gets_the_variant_options_again,
        faults::dead_pipe_restarts_and_retries,
        faults::a_position_that_always_crashes_is_given_up,
        faults::failed_restart_is_fatal,
        faults::hang_is_stopped_then_killed_and_restarted,
        faults::a_hang_after_the_warm_up_is_found_at_the_floor,
        faults::depth_searches_go_on_while_the_engine_answers,
        faults::a_deaf_engine_is_asked_once,
        faults::movetime_deadline,
        faults::fixed_deadline,
        faults::late_answer_to_stop_is_a_timeout_without_restart,
        faults::garbage_is_counted,
        faults::illegal_bestmove_is_replaced,
        faults::illegal_pv_is_cut,
        faults::score_without_pv,
        faults::stderr_is_drained,
        faults::slow_handshake_within_the_timeout,
        faults::handshake_failures_are_start_errors,
        faults::an_engine_dead_before_uciok_says_how_it_ended,
        faults::missing_binary_is_exit_69,
        annotate::annotate_crash_restarts_and_loses_nothing,
        annotate::annotate_position_that_always_crashes_is_unevaluated,
        annotate::annotate_nonsense_scores_are_unevaluated,
        annotate::annotate_engine_that_crashes_on_every_search_stops_the_run,
        annotate::annotate_engine_that_hangs_on_every_search_stops_the_run,
        annotate::annotate_hang_is_killed_and_the_run_goes_on,
        annotate::annotate_engine_lines_over_the_bound_are_skipped_and_said,
        annotate::annotate_hang_after_the_warm_up_costs_seconds,
        annotate::annotate_engine_timeout_is_checked,
        annotate::annotate_garbage_and_illegal_pv_are_warnings,
        annotate::annotate_engine_diagnostics_past_a_games_first_100_are_counted,
        annotate::annotate_engine_startup_warnings_are_shown_once_and_counted,
        annotate::annotate_engine_that_cannot_start_is_exit_69,
        annotate::annotate_variant_the_engine_cannot_play_is_written_as_read,
        annotate::annotate_crazyhouse_sends_the_moves_before_a_capture,
        annotate::annotate_killed_and_resumed_is_byte_identical,
        annotate::annotate_stockfish_same_at_one_and_two_engines,
        annotate::annotate_stockfish_depth_18_is_never_hung,
        annotate::annotate_ctrl_c_stops_the_search_in_progress,
        annotate::annotate_epd_ctrl_c_stops_the_search_in_progress,
        annotate::annotate_ctrl_c_of_results_not_cached_says_a_rerun_starts_over,
        annotate::annotate_ctrl_c_summary_counts_the_games_gone_through,
        annotate::annotate_ctrl_c_while_the_engine_starts_stops_the_run,
        annotate::annotate_ctrl_c_of_an_engine_that_ignores_stop_is_no_timeout,
        stockfish::handshake,
        stockfish::mate_in_one,
        stockfish::nodes_limit_is_reproducible,
        stockfish::chess960_castling,
        stockfish::crazyhouse_is_unsupported,
        fairy::crazyhouse_drops_both_ways,
        fairy::annotate_crazyhouse_game_with_fairy_stockfish,
        server::isready_and_stop_are_answered_behind_waiting_commands,
        server::a_clock_for_the_other_side_alone_moves_at_once,
        server::stop_and_movetime_end_the_first_iteration,
        server::a_hash_that_cannot_be_allocated_keeps_the_table,
        server::a_large_hash_is_set_and_cleared_without_writing_it,
        server::go_numbers_out_of_range_are_clamped,
        server::a_line_that_is_not_utf8_is_an_unknown_command,
        server::the_end_of_input_stops_the_search_and_exits,
        server::move_overhead_is_an_option,
        server::ponder_is_offered_and_works,
        server::multipv_is_an_option_and_lines_are_ranked,
        xboard::a_line_that_is_not_utf8_is_an_unknown_command,
        xboard::ping_while_thinking_lets_move_now_and_quit_through,
        xboard::the_end_of_input_is_quit,
        xboard::analyze_mode_follows_the_position_and_never_moves,
    ])
}
