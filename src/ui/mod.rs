//! ui: see the module docs in lib.rs.
