//! Hand finder parameters (`--hand-params`).
#![no_main]

#[path = "common.rs"]
mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    common::check("hands.toml", data, |s| {
        spotter::vision::hands::HandParams::from_source(s).map(drop)
    });
});
