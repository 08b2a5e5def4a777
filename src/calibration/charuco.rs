//! The ChArUco board of `TABLE_KIT.md` and lens calibration from views of it.
//!
//! # Conventions
//! - Board frame as OpenCV's `CharucoBoard`: origin at the top-left corner
//!   of the top-left square, x right along the `squares_x` squares, y down,
//!   z into the board; inches.
//! - The top-left square is black; markers sit in the white squares with
//!   ids in row-major order from `first_id` (the pattern OpenCV uses before
//!   and after 4.7 for an odd number of rows). A board with an even number
//!   of rows printed by OpenCV before 4.6 (the `legacy` layout, OpenCV's
//!   `setLegacyPattern(true)`) has a white top-left square instead.
//! - Chessboard (interior) corner `(i, j)`, `1 <= i < squares_x`,
//!   `1 <= j < squares_y`, has id `(j - 1) * (squares_x - 1) + (i - 1)` and
//!   lies at `(i, j) * square_in`.

use nalgebra::{Matrix3, Point2};

use super::cv::ArucoDictionary;
use super::homography;
use super::table::MarkerObservation;

/// The printed board.
#[derive(Debug, Clone, PartialEq)]
pub struct CharucoBoard {
    pub squares_x: u32,
    pub squares_y: u32,
    pub square_in: f64,
    pub marker_in: f64,
    /// Id of the first marker in `dictionary`.
    pub first_id: u32,
    /// The markers' dictionary (the kit's is `DICT_5X5_100`).
    pub dictionary: ArucoDictionary,
    /// OpenCV's pre-4.6 layout for an even number of rows (see the module
    /// conventions); no effect on an odd number of rows.
    pub legacy: bool,
}

impl Default for CharucoBoard {
    /// The TABLE_KIT board: 7 x 5 squares of 1.0 in, markers 0.75 in.
    fn default() -> Self {
        Self {
            squares_x: 7,
            squares_y: 5,
            square_in: 1.0,
            marker_in: 0.75,
            first_id: 0,
            dictionary: ArucoDictionary::Dict5x5_100,
            legacy: false,
        }
    }
}

impl CharucoBoard {
    /// Whether square (x, y) is white (holds a marker).
    pub fn is_white(&self, x: u32, y: u32) -> bool {
        let flipped = self.legacy && self.squares_y.is_multiple_of(2);
        ((x + y) % 2 == 1) != flipped
    }

    /// Markers on the board.
    pub fn marker_count(&self) -> u32 {
        let n = self.squares_x * self.squares_y;
        let flipped = self.legacy && self.squares_y.is_multiple_of(2);
        // With a black top-left square the white squares are the smaller half.
        if flipped { n.div_ceil(2) } else { n / 2 }
    }

    /// Markers on the board: id and corners (TL, TR, BR, BL) in the board
    /// frame, inches.
    pub fn markers(&self) -> Vec<(u32, [Point2<f64>; 4])> {
        let mut out = Vec::new();
        let mut id = self.first_id;
        let inset = (self.square_in - self.marker_in) / 2.0;
        for y in 0..self.squares_y {
            for x in 0..self.squares_x {
                if !self.is_white(x, y) {
                    continue;
                }
                let x0 = f64::from(x) * self.square_in + inset;
                let y0 = f64::from(y) * self.square_in + inset;
                let m = self.marker_in;
                out.push((
                    id,
                    [
                        Point2::new(x0, y0),
                        Point2::new(x0 + m, y0),
                        Point2::new(x0 + m, y0 + m),
                        Point2::new(x0, y0 + m),
                    ],
                ));
                id += 1;
            }
        }
        out
    }

    /// Interior chessboard corners: id and position in the board frame.
    pub fn chessboard_corners(&self) -> Vec<(u32, Point2<f64>)> {
        let mut out = Vec::new();
        for j in 1..self.squares_y {
            for i in 1..self.squares_x {
                let id = (j - 1) * (self.squares_x - 1) + (i - 1);
                out.push((
                    id,
                    Point2::new(f64::from(i) * self.square_in, f64::from(j) * self.square_in),
                ));
            }
        }
        out
    }

    /// Predicts where each chessboard corner lies in the image from the
    /// markers seen around it. A corner is predicted only when at least two
    /// of the (up to four) markers within one square of it were seen, so
    /// that a local homography holds it; returns (corner id, board point,
    /// predicted pixel, local square size in pixels).
    pub fn predict_corners(
        &self,
        seen: &[MarkerObservation],
    ) -> Vec<(u32, Point2<f64>, Point2<f64>, f64)> {
        let markers = self.markers();
        let mut out = Vec::new();
        for (cid, corner) in self.chessboard_corners() {
            let mut board_pts = Vec::new();
            let mut image_pts = Vec::new();
            let mut count = 0;
            for (id, board_corners) in &markers {
                let centre = nalgebra::center(&board_corners[0], &board_corners[2]);
                if (centre - corner).amax() > self.square_in {
                    continue;
                }
                if let Some(obs) = seen.iter().find(|o| o.id == *id) {
                    count += 1;
                    board_pts.extend_from_slice(board_corners);
                    image_pts.extend_from_slice(&obs.corners_px);
                }
            }
            if count < 2 {
                continue;
            }
            let Some(image_from_board) = homography::fit(&board_pts, &image_pts) else {
                continue;
            };
            let predicted = homography::apply(&image_from_board, corner);
            let square_px = local_scale_px(&image_from_board, corner, self.square_in);
            out.push((cid, corner, predicted, square_px));
        }
        out
    }
}

/// Side, in pixels, of a square of `side_in` at a board point under a
/// homography (the shorter of its two edges).
fn local_scale_px(image_from_board: &Matrix3<f64>, at: Point2<f64>, side_in: f64) -> f64 {
    let p = homography::apply(image_from_board, at);
    let px = homography::apply(image_from_board, at + nalgebra::Vector2::new(side_in, 0.0));
    let py = homography::apply(image_from_board, at + nalgebra::Vector2::new(0.0, side_in));
    (px - p).norm().min((py - p).norm())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kit_board_has_17_markers_and_24_corners() {
        let b = CharucoBoard::default();
        let markers = b.markers();
        assert_eq!(markers.len(), 17);
        assert_eq!(markers[0].0, 0);
        // First white square is (1, 0): the marker is inset by 0.125 in.
        assert!((markers[0].1[0] - Point2::new(1.125, 0.125)).norm() < 1e-12);
        assert_eq!(b.chessboard_corners().len(), 24);
        assert_eq!(b.chessboard_corners()[7], (7, Point2::new(2.0, 2.0)));
        assert_eq!(b.marker_count(), 17);
    }

    #[test]
    fn the_legacy_layout_flips_boards_with_an_even_number_of_rows() {
        let even = CharucoBoard {
            squares_x: 5,
            squares_y: 4,
            ..CharucoBoard::default()
        };
        let legacy = CharucoBoard {
            legacy: true,
            ..even.clone()
        };
        assert!(!even.is_white(0, 0));
        assert!(legacy.is_white(0, 0));
        assert_eq!(even.markers().len(), 10);
        assert_eq!(legacy.markers().len(), 10);
        assert!((legacy.markers()[0].1[0] - Point2::new(0.125, 0.125)).norm() < 1e-12);
        // An odd number of rows is the same in both layouts.
        let odd = CharucoBoard {
            legacy: true,
            ..CharucoBoard::default()
        };
        assert_eq!(odd.markers(), CharucoBoard::default().markers());
    }

    #[test]
    fn corners_are_predicted_from_neighbouring_markers() {
        let b = CharucoBoard::default();
        let image_from_board = Matrix3::new(50.0, 3.0, 200.0, -2.0, 48.0, 100.0, 1e-4, 0.0, 1.0);
        let seen: Vec<_> = b
            .markers()
            .into_iter()
            .map(|(id, c)| MarkerObservation {
                id,
                corners_px: c.map(|p| homography::apply(&image_from_board, p)),
            })
            .collect();
        let predicted = b.predict_corners(&seen);
        assert_eq!(predicted.len(), 24);
        for (_, board, px, square_px) in predicted {
            assert!((homography::apply(&image_from_board, board) - px).norm() < 1e-6);
            assert!(square_px > 40.0 && square_px < 60.0);
        }
        // With only one marker, nothing around it can be predicted.
        assert!(b.predict_corners(&seen[..1]).is_empty());
    }
}
