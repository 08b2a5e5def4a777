//! A roster file (`scenarios/rosters/*.toml`).
#![no_main]

#[path = "common.rs"]
mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    common::check("scenarios/rosters/fuzz.toml", data, |s| {
        spotter::game::roster::Roster::from_source(s).map(drop)
    });
});
