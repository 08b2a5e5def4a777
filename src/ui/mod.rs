//! The eframe companion app. Logic ([`logic`], [`pipeline`], [`perceive`],
//! [`stats`]) is kept apart from painting ([`app`], [`overlay`]); every
//! colour is in [`theme`]. Only this module imports egui.
//!
//! # Conventions
//! - Table positions are inches in the table frame of `TABLE_KIT.md`; image
//!   positions are pixels (origin top-left, y down); screen positions are
//!   egui points. Transforms are named `a_from_b` (`ui_from_table`).
//! - Capture and detection run on their own threads; the UI thread only
//!   takes finished frames ([`logic::AppLogic::pump`]) and paints them.

pub mod app;
pub mod first_game;
pub mod first_run;
pub mod lens_wizard;
pub mod logic;
pub mod overlay;
pub mod perceive;
pub mod pipeline;
pub mod session;
pub mod stats;
pub mod theme;

pub use app::SpotterApp;
pub use logic::{AppLogic, SourceChoice, UiCommand};
