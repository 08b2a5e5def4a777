//! The Soldiers in Time rule data (`scenarios/rules/soldiers-in-time.toml`).
#![no_main]

#[path = "common.rs"]
mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    common::check("scenarios/rules/soldiers-in-time.toml", data, |s| {
        spotter::rules::soldiers_in_time::SoldiersInTime::from_source(s).map(drop)
    });
});
