//! The lens step of the calibration wizard on the photoreal ChArUco views
//! of one camera: views are captured one by one (the board found off the
//! calling thread), coverage grows, the lens is fitted once there are
//! enough views, and the saved camera file loads back.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use spotter::calibration::Lens;
use spotter::ui::lens_wizard::LensWizard;

fn views() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/photoreal/cam01/charuco");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the cam01 ChArUco views")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jpg"))
        .collect();
    v.sort();
    v
}

fn wait(w: &mut LensWizard) {
    let end = Instant::now() + Duration::from_secs(120);
    while !w.poll() {
        assert!(Instant::now() < end, "the capture never finished");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn captured_views_grow_coverage_then_fit_and_save_a_lens() {
    let mut w = LensWizard::default();
    let dir = tempfile::tempdir().unwrap();
    w.out_path = dir.path().join("calibration/camera.toml");
    assert!(w.save().is_err(), "nothing to save before any view");
    let paths = views();
    assert!(paths.len() >= w.params.min_views);
    let mut last_cover = 0.0;
    for (i, path) in paths.iter().enumerate() {
        let img = image::open(path).unwrap().to_rgb8();
        w.capture(&format!("view {i}"), &img).unwrap();
        assert!(w.busy());
        assert!(w.capture("again", &img).is_err(), "one capture at a time");
        wait(&mut w);
        let cover = w.coverage_frac();
        assert!(cover >= last_cover, "coverage never shrinks");
        last_cover = cover;
        if w.usable_views() < w.params.min_views {
            assert!(
                w.fit.is_none(),
                "no fit before {} views",
                w.params.min_views
            );
        }
    }
    assert!(last_cover >= w.params.min_coverage_frac, "{last_cover}");
    let fit = w.fit.clone().expect("a fit").expect("a good fit");
    assert!(fit.lens.rms_px < 0.5, "RMS {}", fit.lens.rms_px);
    let saved = w.save().unwrap();
    let back = Lens::load(&saved).unwrap();
    assert!((back.fx() - fit.lens.fx()).abs() < 1e-6 * fit.lens.fx());

    // A frame of another size is refused with what to do.
    let small = image::RgbImage::new(64, 48);
    let err = w.capture("small", &small).unwrap_err();
    assert!(err.contains("one resolution"), "{err}");
    w.reset();
    assert_eq!(w.views(), 0);
    assert_eq!(w.out_path, dir.path().join("calibration/camera.toml"));
}
