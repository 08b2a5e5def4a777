//! A camera file (`spotter calibrate-lens`'s output).
#![no_main]

#[path = "common.rs"]
mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    common::check("calibration/camera.toml", data, |s| {
        spotter::calibration::Lens::from_source(s).map(drop)
    });
});
