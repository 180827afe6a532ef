"""Benchmark any policy under a fixed, versioned protocol: win shares, anchored ratings and a report card.

    python -m fruit_envs.benchmarks.benchmark greedy --suite quick
    python -m fruit_envs.benchmarks.benchmark ppo-baseline --suite standard
    python -m fruit_envs.benchmarks.benchmark runs/<run>/model.zip --suite quick --games cherry_picking
    python -m fruit_envs.benchmarks.benchmark mypackage.mymodule:make --suite quick --best-response 200000
    python -m fruit_envs.benchmarks.benchmark --calibrate --suite quick     # the references' anchor ratings

POLICY is an agent name (`greedy`, `random`, `ppo-baseline`, `ppo:PATH`, `search:OPTIONS`, ...), a saved
MaskablePPO model (`.zip`, played as `ppo:PATH`), `package.module:make`, a factory called
`make(game_spec, config)` once per game and player count (or an object with a batched `act`), or
`reference:NAME`, a reference agent of the protocol (`reference:search`: search at the protocol's budget).

The protocol is data: `protocol_v1.yaml` beside this file pins the environment versions, the official
player counts, the reference agents (random, greedy, the shipped PPO baseline, search at a fixed
budget), the seeds, the suites and the references' anchor ratings. For every game and player count of
the suite, and every reference, the policy takes each seat in turn with the reference in every other
seat (one cell, all its games in one batch, the same deals for every seat and reference). Per cell: win
share over finished games with its 95% Wilson interval, mean score margin, mean rank (more than two
players) and truncated share. Per game and player count: an Elo-scale rating fitted against the
references' fixed ratings (the protocol rating, random = 0; not the tournaments' Elo, whose field mean is
1500) with a bootstrap interval, and a normalised score (random = 0, the reference search = 100); over the
suite: the mean normalised score with its interval and each group's part in it. The one-player score
attack is rated by mean score, normalised the same way. What the numbers cannot measure is flagged: cells
with many truncated games, ratings set by the prior, intervals the games cannot give. A policy that reads
the true state (`needs_state`, as search does) is marked privileged in every report. The report folder
(`--out`, by default `results/benchmark/<policy>_<suite>_<time>/`) holds report.md, report.json and
report.png. docs/benchmark.md explains the protocol, the scales and the files.
"""

# The package's modules, each named for what it holds (every public name is re-exported here):
#   errors         BenchmarkError, PolicyError
#   protocol       the protocol file, its suites, deals and seeds
#   policies       POLICY turned into agents; the wrappers that log and check the policy's actions
#   play           one cell in one batch, and its numbers
#   ratings        ratings against the anchored references, intervals, the aggregate
#   run            evaluate: the whole benchmark of a policy
#   best_response  the exploitability proxy
#   exploitability the particle local best response in every seat (--exploitability lbr), its particle filter
#   exact          exact best-response values of small analysis positions, to check the bounds against
#   seat_best_response the trained best response in every seat, from warm starts (--exploitability br)
#   calibration    the references' anchor ratings
#   cards          the published reference cards
#   result_card    card.json: a run's games as digests and outcomes, its numbers, what it ran on
#   games_file     games.npz beside a card: every game's actions, read as bounded data
#   rules_replay   a cell's stored actions stepped through the rules, each seat's moves checked without draws
#   card_policy    the policy a card is played again with (only what a card may name), its cells played again
#   verify         checking a card against itself, the protocol, the rules and its games, and replaying cells
#   leaderboard    the repository's cards, checked and ranked, with one rating fitted over them all
#   reports        report.md, report.json, report.png and the terminal's table
#   cli            the command line (main)

from __future__ import annotations

from fruit_envs.benchmarks.benchmark.best_response import best_response_unit, response_model, run_best_response
from fruit_envs.benchmarks.benchmark.calibration import anchors_yaml, calibrate
from fruit_envs.benchmarks.benchmark.card_policy import (
    MODEL_LIMIT,
    build_agent,
    card_source,
    folder_model,
    is_search,
    known_privileged,
    own_factory,
    play_again,
    reference_ok,
    replay_source,
    same_games,
    write_card_games,
)
from fruit_envs.benchmarks.benchmark.cards import (
    BEST_RESPONSE_CARDS,
    CARDS,
    PUBLISHED,
    cards_index,
    cards_markdown,
    cards_summary,
    load_cards,
    reference_cards,
)
from fruit_envs.benchmarks.benchmark.cli import CARD_ERRORS, games_main, main, verify_main
from fruit_envs.benchmarks.benchmark.errors import BenchmarkError, PolicyError, Stopped
from fruit_envs.benchmarks.benchmark.exact import MAX_CELLS, MAX_NODES, analysis_position, exact_best_response
from fruit_envs.benchmarks.benchmark.exploitability import (
    FILTER_SIZE,
    LBR_GAMES_PER_SEAT,
    LBR_PARTICLES,
    METHODS,
    SIGNIFICANCE,
    UTILITY,
    LocalBestResponse,
    ParticleFilter,
    group_bounds,
    lbr_unit,
    paired_gain,
    parse_exploitability,
    run_exploitability,
    run_per_seat,
)
from fruit_envs.benchmarks.benchmark.games_file import GAMES_FILE, read_games, write_games
from fruit_envs.benchmarks.benchmark.leaderboard import (
    ENTRY_FIELDS,
    ENTRY_LIMIT,
    GAME_COLUMNS,
    JOINT_BOOTSTRAP,
    JOINT_BOOTSTRAP_SEED,
    JOINT_FIXED,
    SECTION_TITLES,
    SECTIONS,
    joint_ratings,
    leaderboard_entries,
    leaderboard_folder,
    leaderboard_main,
    leaderboard_markdown,
    leaderboard_table,
    pair_results,
    text,
)
from fruit_envs.benchmarks.benchmark.play import (
    SEARCH_COST,
    Cell,
    built,
    cell_cost,
    cell_numbers,
    cell_unit,
    pair_outcomes,
    play_cell,
    remember,
)
from fruit_envs.benchmarks.benchmark.policies import (
    PolicySource,
    PolicyTraveller,
    is_privileged,
    module_file,
    resolve_policy,
)
from fruit_envs.benchmarks.benchmark.protocol import (
    HERE,
    Protocol,
    cell_keys,
    cell_seed,
    check_environments,
    deal_keys,
    load_protocol,
    per_seat,
    pin_baseline,
    protocol_path,
    run_deviations,
)
from fruit_envs.benchmarks.benchmark.ratings import (
    ELO,
    PRIOR_WEIGHT_WARNING,
    aggregate,
    bootstrap_rng,
    confidence_draws,
    fit_joint,
    fit_rating,
    group_rating,
    rate_groups,
    solo_rating,
)
from fruit_envs.benchmarks.benchmark.reports import (
    RATING_SCALE,
    TRUNCATION_WARNING,
    exploitability_lines,
    markdown,
    picture,
    protocol_line,
    reference_shown,
    report_figure,
    report_warnings,
    summary_table,
    write_report,
)
from fruit_envs.benchmarks.benchmark.result_card import (
    AGGREGATE_FIELDS,
    CARD_FILE,
    CELLS_LIMIT,
    GAMES_LIMIT,
    GROUP_FIELDS,
    NUMBER_FIELDS,
    SCHEMA,
    SCHEMA_VERSION,
    SEED_LIMIT,
    STATUSES,
    actions_digest,
    card_actions,
    card_text,
    cell_games,
    cell_id,
    cell_outcomes,
    file_sha256,
    game_digest,
    is_number,
    keys_digest,
    load_card,
    make_card,
    merkle_root,
    policy_files,
    rules_digest,
    write_card,
)
from fruit_envs.benchmarks.benchmark.rules_replay import (
    FLUSH_BYTES,
    KINDS,
    SHOWN,
    TIE_NOISE,
    CellGames,
    CellReplay,
    MoveCheck,
    SeatChecks,
    cell_faults,
    check_card_games,
    move_check,
    reference_agent,
    replay_cells,
)
from fruit_envs.benchmarks.benchmark.run import WORKER_IMPORTS, default_out, evaluate, latest_run, machine
from fruit_envs.benchmarks.benchmark.seat_best_response import (
    EVALUATION_LABEL,
    SELECTION_LABEL,
    STARTS,
    check_starts,
    parse_starts,
    ppo_policy,
    responder_model,
    response_keys,
    run_seat_best_response,
    same_weights,
    seat_br_unit,
    start_source,
)
from fruit_envs.benchmarks.benchmark.verify import (
    CLAIMED,
    VERIFY_TOLERANCE,
    card_protocol,
    verify_card,
    verify_summary,
)

__all__ = [
    "LBR_GAMES_PER_SEAT",
    "LBR_PARTICLES",
    "METHODS",
    "SIGNIFICANCE",
    "LocalBestResponse",
    "exploitability_lines",
    "group_bounds",
    "analysis_position",
    "exact_best_response",
    "FILTER_SIZE",
    "MAX_CELLS",
    "MAX_NODES",
    "ParticleFilter",
    "paired_gain",
    "response_model",
    "run_per_seat",
    "UTILITY",
    "lbr_unit",
    "parse_exploitability",
    "run_exploitability",
    "EVALUATION_LABEL",
    "SELECTION_LABEL",
    "STARTS",
    "check_starts",
    "parse_starts",
    "ppo_policy",
    "responder_model",
    "response_keys",
    "run_seat_best_response",
    "same_weights",
    "seat_br_unit",
    "start_source",
    "AGGREGATE_FIELDS",
    "BEST_RESPONSE_CARDS",
    "CARDS",
    "CARD_FILE",
    "ELO",
    "GAME_COLUMNS",
    "GROUP_FIELDS",
    "HERE",
    "JOINT_BOOTSTRAP",
    "JOINT_BOOTSTRAP_SEED",
    "JOINT_FIXED",
    "NUMBER_FIELDS",
    "PRIOR_WEIGHT_WARNING",
    "PUBLISHED",
    "RATING_SCALE",
    "SCHEMA",
    "SCHEMA_VERSION",
    "SECTIONS",
    "SECTION_TITLES",
    "SEARCH_COST",
    "TRUNCATION_WARNING",
    "VERIFY_TOLERANCE",
    "WORKER_IMPORTS",
    "BenchmarkError",
    "Cell",
    "PolicyError",
    "PolicySource",
    "PolicyTraveller",
    "Protocol",
    "actions_digest",
    "aggregate",
    "anchors_yaml",
    "best_response_unit",
    "bootstrap_rng",
    "built",
    "calibrate",
    "card_text",
    "cards_index",
    "cards_markdown",
    "cards_summary",
    "cell_cost",
    "cell_games",
    "cell_id",
    "cell_keys",
    "cell_outcomes",
    "cell_numbers",
    "cell_seed",
    "cell_unit",
    "check_environments",
    "confidence_draws",
    "deal_keys",
    "default_out",
    "evaluate",
    "file_sha256",
    "fit_joint",
    "fit_rating",
    "game_digest",
    "group_rating",
    "is_privileged",
    "joint_ratings",
    "keys_digest",
    "latest_run",
    "leaderboard_entries",
    "leaderboard_folder",
    "leaderboard_main",
    "leaderboard_markdown",
    "leaderboard_table",
    "load_card",
    "load_cards",
    "load_protocol",
    "machine",
    "main",
    "games_main",
    "make_card",
    "markdown",
    "merkle_root",
    "pair_outcomes",
    "pair_results",
    "per_seat",
    "picture",
    "pin_baseline",
    "rate_groups",
    "play_cell",
    "policy_files",
    "protocol_line",
    "protocol_path",
    "reference_cards",
    "remember",
    "replay_source",
    "report_figure",
    "report_warnings",
    "resolve_policy",
    "rules_digest",
    "run_best_response",
    "solo_rating",
    "summary_table",
    "verify_card",
    "card_protocol",
    "card_source",
    "write_card_games",
    "GAMES_FILE",
    "read_games",
    "write_games",
    "replay_cells",
    "MODEL_LIMIT",
    "build_agent",
    "folder_model",
    "is_search",
    "known_privileged",
    "play_again",
    "reference_ok",
    "same_games",
    "CARD_ERRORS",
    "ENTRY_FIELDS",
    "ENTRY_LIMIT",
    "text",
    "module_file",
    "CELLS_LIMIT",
    "GAMES_LIMIT",
    "SEED_LIMIT",
    "STATUSES",
    "is_number",
    "CellReplay",
    "FLUSH_BYTES",
    "MoveCheck",
    "SHOWN",
    "TIE_NOISE",
    "cell_faults",
    "CLAIMED",
    "KINDS",
    "SeatChecks",
    "check_card_games",
    "reference_agent",
    "CellGames",
    "move_check",
    "run_deviations",
    "card_actions",
    "verify_main",
    "verify_summary",
    "write_card",
    "write_report",
    "own_factory",
    "reference_shown",
    "Stopped",
]
