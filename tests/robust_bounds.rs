//! Issue 18, "nothing hangs": geometry that iterates returns an error on
//! non-finite input, and a recording played at the slowest allowed rate is
//! stopped at once. Each call runs in a thread; the test fails if it has not
//! returned within [`BOUND`] (a generous bound; no speed is asserted).

use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use nalgebra::Matrix3;
use spotter::calibration::TableMapping;
use spotter::capture::folder::Playback;
use spotter::capture::{CaptureEvent, CaptureWorker, FolderSource, FrameSource};
use spotter::spec::flag::MIN_FPS;
use spotter::vision::rectify::CameraPose;

/// Far more than any of these calls needs on a loaded machine.
const BOUND: Duration = Duration::from_secs(5);

/// Runs `f` in a thread; panics (naming `what`) if it does not return
/// within [`BOUND`].
fn within_bound<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(BOUND)
        .unwrap_or_else(|_| panic!("{what} did not return within {BOUND:?}"))
}

#[test]
fn a_camera_pose_from_a_non_finite_mapping_is_an_error_not_a_hang() {
    let mut h = Matrix3::new(10.0, 0.0, 320.0, 0.0, 10.0, 240.0, 0.0, 0.0, 1.0);
    h[(0, 2)] = f64::NAN;
    let mapping = TableMapping {
        table_from_ideal: h,
        ideal_from_table: h,
        lens: None,
        markers_found: vec![0, 1, 2, 3],
        residual_px: 0.0,
        residual_in: 0.0,
    };
    let pose = within_bound("CameraPose::from_mapping", move || {
        CameraPose::from_mapping(&mapping, [640, 480])
    });
    let err = pose.expect_err("a NaN mapping gives no pose").to_string();
    assert!(err.contains("not finite"), "{err}");
}

#[test]
fn a_recording_at_the_slowest_rate_stops_at_once() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..2_u8 {
        image::RgbImage::from_pixel(8, 8, image::Rgb([i * 100, 0, 0]))
            .save(dir.path().join(format!("frame-{i:02}.png")))
            .unwrap();
    }
    let playback = Playback {
        fps: MIN_FPS,
        hold: Duration::from_secs(1),
        looped: true,
    };
    let source = FolderSource::open(dir.path(), playback).unwrap();
    let worker = CaptureWorker::spawn(
        Box::new(move || Ok(Box::new(source) as Box<dyn FrameSource>)),
        Arc::new(|| {}),
    )
    .unwrap();
    // Wait for a frame (the first may be dropped behind the `Opened` event,
    // so allow two frame periods); the thread then waits a whole frame
    // period (1 / MIN_FPS seconds) for the next.
    let first = Duration::from_secs_f64(2.0 / MIN_FPS) + BOUND;
    loop {
        match worker.events.recv_timeout(first) {
            Ok(CaptureEvent::Frame(_)) => break,
            Ok(CaptureEvent::Opened { .. }) => {}
            other => panic!("expected a frame, got {other:?}"),
        }
    }
    std::thread::sleep(Duration::from_millis(200));
    within_bound("dropping the capture worker", move || drop(worker));
}
