//! The Stand To! rule data (`scenarios/rules/stand-to.toml`).
#![no_main]

#[path = "common.rs"]
mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    common::check("scenarios/rules/stand-to.toml", data, |s| {
        spotter::rules::stand_to::StandTo::from_source(s).map(drop)
    });
});
