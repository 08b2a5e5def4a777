//! Tells the code where OpenCV keeps ArUco.
//!
//! OpenCV 4.7 moved ArUco and ChArUco from the contrib module `aruco` into
//! `objdetect` (class `ArucoDetector`). The `opencv` crate's own version cfgs
//! (`ocvrs_opencv_branch_*`) are private to that crate, so this script asks
//! pkg-config for the installed version and sets `spotter_aruco_objdetect`
//! for 4.7 and later. Without pkg-config (vcpkg, a custom build) the modern
//! API is assumed; set `SPOTTER_OPENCV_VERSION=4.6.0` to override.

use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(spotter_aruco_objdetect)");
    println!("cargo::rerun-if-env-changed=SPOTTER_OPENCV_VERSION");
    println!("cargo::rerun-if-env-changed=PKG_CONFIG_PATH");
    let version = std::env::var("SPOTTER_OPENCV_VERSION").ok().or_else(|| {
        ["opencv4", "opencv"].iter().find_map(|name| {
            let out = Command::new("pkg-config")
                .args(["--modversion", name])
                .output()
                .ok()?;
            out.status
                .success()
                .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
        })
    });
    let modern = match version.as_deref().map(parse_version) {
        Some(Some((major, minor))) => major > 4 || (major == 4 && minor >= 7),
        _ => true,
    };
    if modern {
        println!("cargo::rustc-cfg=spotter_aruco_objdetect");
    }
}

fn parse_version(text: &str) -> Option<(u32, u32)> {
    let mut parts = text.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}
