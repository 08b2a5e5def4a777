//! `spotter detect` degrades gracefully: a corrupt photo is a clear error,
//! and a photo without the table markers still gives a record with no
//! figures and an `error` saying why.

use std::process::Command;

fn spotter() -> Command {
    Command::new(env!("CARGO_BIN_EXE_spotter"))
}

#[test]
fn corrupt_photo_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("broken.jpg");
    // A JPEG start marker followed by garbage: no decoder can make a picture
    // of it. (A merely truncated JPEG decodes to a partial picture, which
    // the marker check then handles.)
    let mut bytes = vec![0xFF, 0xD8, 0xFF];
    bytes.extend((0..4000u32).map(|i| (i * 7919 % 251) as u8));
    std::fs::write(&bad, bytes).unwrap();
    let out = spotter()
        .arg("detect")
        .arg(&bad)
        .arg("--json")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("broken.jpg"), "{stderr}");
    let line = String::from_utf8_lossy(&out.stdout);
    let v: serde_json::Value = serde_json::from_str(line.lines().next().unwrap()).unwrap();
    assert_eq!(v["schema"], "spotter.detections/1");
    assert!(v["error"].is_string());
}

#[test]
fn photo_without_markers_gives_an_empty_record_with_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let blank = dir.path().join("blank.png");
    image::RgbImage::from_pixel(640, 480, image::Rgb([90, 110, 60]))
        .save(&blank)
        .unwrap();
    let out = spotter()
        .arg("detect")
        .arg(&blank)
        .arg("--json")
        .output()
        .unwrap();
    let v: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&out.stdout).lines().next().unwrap()).unwrap();
    assert_eq!(v["figures"].as_array().unwrap().len(), 0);
    assert!(v["error"].as_str().unwrap().contains("markers"), "{v}");
    assert_eq!(v["image_size"], serde_json::json!([640, 480]));
    assert!(!out.status.success());
}
