//! Detector parameters (`calibration/vision.toml`, `--params`).
#![no_main]

#[path = "common.rs"]
mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    common::check("calibration/vision.toml", data, |s| {
        spotter::vision::params::DetectorParams::from_source(s).map(drop)
    });
});
