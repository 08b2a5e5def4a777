//! game: see the module docs in lib.rs.
pub mod roster;
