//! The printable kit: markers print at true size and are found again by
//! the detector.

use spotter::calibration::charuco::CharucoBoard;
use spotter::calibration::cv::{self, ArucoDictionary};
use spotter::calibration::{TableLayout, kit};

/// Extent (min x, max x, min y, max y) in points of the filled rectangles
/// in one content stream of the PDF.
fn rect_extent(content: &str) -> (f64, f64, f64, f64) {
    let mut ext = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for line in content
        .lines()
        .filter(|l| l.starts_with("0.000 g") && l.ends_with("re f"))
    {
        let v: Vec<f64> = line
            .split_whitespace()
            .filter_map(|t| t.parse().ok())
            .collect();
        // "0.000 g x y w h re f": v = [0, x, y, w, h]
        let (x, y, w, h) = (v[1], v[2], v[3], v[4]);
        ext = (
            ext.0.min(x),
            ext.1.max(x + w),
            ext.2.min(y),
            ext.3.max(y + h),
        );
    }
    ext
}

#[test]
fn kit_prints_markers_at_true_size_and_they_are_detected() {
    let dir = tempfile::tempdir().unwrap();
    let layout = TableLayout::standard(48.0, 48.0);
    let files = kit::write_kit(dir.path(), &layout, &CharucoBoard::default(), 300).unwrap();
    assert_eq!(files.files.len(), 4 + 1 + 2);

    // PNG: a 3.0 in marker at 300 dpi is 900 px of black-bordered square.
    let png = image::open(dir.path().join("marker-2.png"))
        .unwrap()
        .to_luma8();
    let found = cv::detect_markers(&png, ArucoDictionary::Dict4x4_50).unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].id, 2);
    let side = (found[0].corners_px[1] - found[0].corners_px[0]).norm();
    assert!((side - 900.0).abs() < 3.0, "side {side} px");

    // The board PNG is found as a board: all 17 markers.
    let board = image::open(dir.path().join("charuco-board.png"))
        .unwrap()
        .to_luma8();
    let mut ids: Vec<u32> = cv::detect_markers(&board, ArucoDictionary::Dict5x5_100)
        .unwrap()
        .iter()
        .map(|m| m.id)
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, (0..17).collect::<Vec<_>>());

    // PDF: page 2 holds marker 0, 3.0 in = 216 pt across, on both papers.
    for name in ["kit-letter.pdf", "kit-a4.pdf"] {
        let pdf =
            String::from_utf8_lossy(&std::fs::read(dir.path().join(name)).unwrap()).into_owned();
        let streams: Vec<&str> = pdf
            .split(">>\nstream\n")
            .skip(1)
            .map(|s| s.split("endstream").next().unwrap())
            .collect();
        assert_eq!(
            streams.len(),
            1 + 4 + 1,
            "{name}: instructions, 4 markers, board"
        );
        let (x0, x1, y0, y1) = rect_extent(streams[1]);
        assert!((x1 - x0 - 216.0).abs() < 1e-3, "{name}: {x0}..{x1}");
        assert!((y1 - y0 - 216.0).abs() < 1e-3, "{name}: {y0}..{y1}");
        assert!(
            streams[0].contains("Marker 0: centre at x = 2 in, y = 2 in"),
            "{name}"
        );
        // The board: 7 x 5 squares of 1 in.
        let (bx0, bx1, by0, by1) = rect_extent(streams[5]);
        assert!((bx1 - bx0 - 7.0 * 72.0).abs() < 1e-3 && (by1 - by0 - 5.0 * 72.0).abs() < 1e-3);
    }
}
