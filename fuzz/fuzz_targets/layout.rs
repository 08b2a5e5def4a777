//! A table layout (`calibration/table.toml`).
#![no_main]

#[path = "common.rs"]
mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    common::check("calibration/table.toml", data, |s| {
        spotter::calibration::TableLayout::from_source(s).map(drop)
    });
});
