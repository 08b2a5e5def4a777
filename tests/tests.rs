//! Every integration test in one target: one binary links OpenCV and egui
//! once instead of once per file (`autotests = false` in Cargo.toml).
//! A new test file is a `mod` line here.

mod app_support;
mod common;
mod photoreal_support;
mod rule_actions;

mod app_camera_faults;
mod app_demo_games;
mod app_game_flow;
mod app_lens_wizard;
mod app_source_loss;
mod calibration_fixtures;
mod detect_accuracy;
mod detect_errors;
mod detect_light;
mod detect_unseen;
mod function_length;
mod game_log;
mod game_scenario;
mod geometry_props;
mod incremental_detect;
mod kit;
mod layers;
mod lens_boards;
mod lens_model;
mod little_colonial_actions;
mod little_colonial_printed;
mod little_colonial_rules;
mod marker_tracking;
mod odds_cli;
mod robust_bounds;
mod robust_cli;
mod robust_inputs;
mod robust_log;
mod robust_props;
mod rules_describe;
mod soldiers_in_time_actions;
mod soldiers_in_time_printed;
mod soldiers_in_time_rules;
mod standto_cli;
mod standto_frequencies;
mod standto_options;
mod standto_photo;
mod standto_printed;
mod standto_rules;
mod track_cli;
mod track_hands;
mod track_photos;
mod track_sequences;
mod volley_fire_actions;
mod volley_fire_printed;
mod volley_fire_rules;
mod volley_fire_table;
mod volley_fire_turn;
