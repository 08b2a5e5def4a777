//! The Little Colonial rule data (`scenarios/rules/little-colonial.toml`).
#![no_main]

#[path = "common.rs"]
mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    common::check("scenarios/rules/little-colonial.toml", data, |s| {
        spotter::rules::little_colonial::LittleColonial::from_source(s).map(drop)
    });
});
