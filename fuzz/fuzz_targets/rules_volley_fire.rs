//! The Volley Fire! rule data (`scenarios/rules/volley-fire.toml`).
#![no_main]

#[path = "common.rs"]
mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    common::check("scenarios/rules/volley-fire.toml", data, |s| {
        spotter::rules::volley_fire::VolleyFire::from_source(s).map(drop)
    });
});
