//! A script (`scenarios/scripts/*.toml`): its steps are read as the rule
//! set's commands; its scenario path is read beside
//! `scenarios/scripts/` (run from the repository's root, so that the
//! shipped scenarios are found).
#![no_main]

#[path = "common.rs"]
mod common;

use spotter::game::script::Script;
use spotter::rules::Registry;

thread_local! {
    static REGISTRY: Registry = Registry::builtin().expect("the built-in rule sets load");
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    REGISTRY.with(|registry| {
        let src = common::source("scenarios/scripts/fuzz.toml", data);
        // Loads, or an error; a panic is a crash.
        let _ = Script::from_source(&src, registry);
    });
});
