//! A scenario (`scenarios/*.toml`), read against the built-in rule sets.
#![no_main]

#[path = "common.rs"]
mod common;

use spotter::game::{Scenario, ScenarioError};
use spotter::rules::Registry;

thread_local! {
    static REGISTRY: Registry = Registry::builtin().expect("the built-in rule sets load");
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    REGISTRY.with(|registry| {
        common::check("scenarios/fuzz.toml", data, |s| {
            Scenario::from_source(s, registry)
                .map(drop)
                .map_err(|e| match e {
                    ScenarioError::Spec(e) => e,
                })
        });
    });
});
