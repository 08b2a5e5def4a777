//! Tracker parameters (`spotter track --params`).
#![no_main]

#[path = "common.rs"]
mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    common::check("tracker.toml", data, |s| {
        spotter::vision::track::TrackerParams::from_source(s).map(drop)
    });
});
