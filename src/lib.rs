//! Spotter: a tabletop companion for historical miniatures wargames.
//!
//! # Conventions
//! - Table frame (see `TABLE_KIT.md`): inches, origin at the table corner
//!   nearest marker 0, +x toward marker 1, +y toward marker 3, z up. Seen from
//!   above x points right and y points up (a map view).
//! - Angles are degrees counter-clockwise from +x, in [0, 360).
//! - Image frame: pixels, x right, y down, origin at the centre of the
//!   top-left pixel (the OpenCV convention).
//! - Transforms are named `a_from_b`: `table_from_image` maps image pixels to
//!   table inches.
//!
//! The folders follow the data flow: `capture` (frames in) -> `calibration`
//! (lens and table mapping) -> `vision` (figures and tracks) -> `geometry`
//! (ranges, arcs, line of sight) -> `core` (what every rule set shares: ids,
//! the turn clock, dice, odds, refusals) -> `rules` (the rule sets, the
//! state they read, their commands and events) -> `game` (the runner: log,
//! undo, replay, scenarios) -> `ui` (the app). `cli` holds the subcommands.
//! Each layer imports only those before it; `tests/layers.rs` checks it.

pub mod calibration;
pub mod capture;
pub mod cli;
pub mod core;
pub mod game;
pub mod geometry;
pub mod rules;
pub mod spec;
pub mod ui;
pub mod vision;
