//! The calibration boards people already own: the kit's ChArUco board, a
//! ChArUco board of another size or dictionary, a chessboard, and the
//! symmetric and asymmetric circle grids of OpenCV's samples. A board is
//! named on the command line by a spec such as `chessboard:9x6:25mm`,
//! parsed here into a checked [`CalibrationBoard`].
//!
//! # Conventions
//! - Board frame as OpenCV's for each pattern: x right along a row, y down
//!   the rows, z into the board; inches. Lengths in a spec carry their unit
//!   (`mm`, `cm` or `in`) and are held in inches.
//! - Chessboard: `COLSxROWS` counts inner corners (OpenCV's `patternSize`);
//!   corner `k` (row by row) lies at `(k % COLS, k / COLS) * square`, the
//!   first inner corner at the origin.
//! - Circle grids: `COLSxROWS` counts circles per row and rows (OpenCV's
//!   `patternSize`, e.g. `acircles:4x11`). Symmetric: circle `(j, i)` (column,
//!   row) at `(j, i) * spacing`. Asymmetric, as OpenCV's `calibration.cpp`
//!   sample and `gen_pattern.py` define it: at `((2j + i % 2), i) * spacing`,
//!   so `spacing` is the distance between neighbouring rows and half the
//!   distance between neighbours in one row.
//! - ChArUco: see [`super::charuco`].

use std::fmt;
use std::str::FromStr;

use image::GrayImage;
use nalgebra::Point2;

use super::CalibrationError;
use super::charuco::CharucoBoard;
use super::cv::{self, ArucoDictionary};
use super::lens_calibration::{self, BoardView, LensCalibration, LensCalibrationParams};

/// Millimetres per inch.
const MM_PER_IN: f64 = 25.4;
/// Largest pattern side accepted, in corners, circles or squares: a board
/// past this is a typing slip (OpenCV's own boards are below 20).
const MAX_PATTERN_SIDE: u32 = 60;
/// Largest square, spacing or marker accepted, inches (a 1 m board square
/// is a typing slip).
const MAX_LENGTH_IN: f64 = 40.0;
/// cornerSubPix half-window for a chessboard: this fraction of the corner
/// spacing in the image, so the window never reaches the next corner ...
const CHESSBOARD_WINDOW_FRAC: f64 = 0.4;
/// ... within these bounds, pixels (OpenCV's samples use 11).
const CHESSBOARD_WINDOW_PX: (f64, f64) = (2.0, 11.0);

/// A unit of length in a board spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LengthUnit {
    Mm,
    Cm,
    In,
}

impl LengthUnit {
    fn inches(self, value: f64) -> f64 {
        match self {
            Self::Mm => value / MM_PER_IN,
            Self::Cm => value * 10.0 / MM_PER_IN,
            Self::In => value,
        }
    }

    fn of_inches(self, inches: f64) -> f64 {
        match self {
            Self::Mm => inches * MM_PER_IN,
            Self::Cm => inches * MM_PER_IN / 10.0,
            Self::In => inches,
        }
    }

    fn suffix(self) -> &'static str {
        match self {
            Self::Mm => "mm",
            Self::Cm => "cm",
            Self::In => "in",
        }
    }
}

/// A chessboard, counted by inner corners as OpenCV does.
#[derive(Debug, Clone, PartialEq)]
pub struct Chessboard {
    /// Inner corners per row.
    pub cols: u32,
    /// Rows of inner corners.
    pub rows: u32,
    pub square_in: f64,
    /// The unit the spec gave, for messages.
    pub unit: LengthUnit,
}

/// A grid of dark circles on white.
#[derive(Debug, Clone, PartialEq)]
pub struct CircleGrid {
    /// Circles per row.
    pub cols: u32,
    pub rows: u32,
    /// See the module conventions.
    pub spacing_in: f64,
    pub asymmetric: bool,
    pub unit: LengthUnit,
}

/// Any calibration board Spotter can find.
#[derive(Debug, Clone, PartialEq)]
pub enum CalibrationBoard {
    Charuco {
        board: CharucoBoard,
        unit: LengthUnit,
    },
    Chessboard(Chessboard),
    Circles(CircleGrid),
}

impl Default for CalibrationBoard {
    /// The kit's ChArUco board.
    fn default() -> Self {
        Self::Charuco {
            board: CharucoBoard::default(),
            unit: LengthUnit::In,
        }
    }
}

/// Why a board spec cannot be read: every problem found, and the forms a
/// spec takes.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("board {spec:?}: {}\n{SPEC_HELP}", .problems.join("; "))]
pub struct BoardSpecError {
    pub spec: String,
    pub problems: Vec<String>,
}

/// The forms of a board spec, for error messages and `--help`.
pub const SPEC_HELP: &str = "A board is one of:
  kit                                   the kit's ChArUco board (the default)
  chessboard:COLSxROWS:SQUARE           inner corners, e.g. chessboard:9x6:25mm
  circles:COLSxROWS:SPACING             symmetric circle grid, e.g. circles:4x11:20mm
  acircles:COLSxROWS:SPACING            asymmetric circle grid (OpenCV's), e.g. acircles:4x11:20mm
  charuco:SQXxSQY:SQUARE:MARKER:DICT[:legacy]
                                        squares across x down, e.g. charuco:5x7:30mm:22mm:DICT_6X6_250
Lengths take a unit: mm, cm or in. `legacy`: a board with an even number of
rows printed by OpenCV before 4.6.";

/// Collects problems while a spec is read, so that all are reported at once.
struct Problems(Vec<String>);

impl Problems {
    fn count(&mut self, what: &str, text: &str, min: u32) -> u32 {
        match text.trim().parse::<u32>() {
            Ok(n) if (min..=MAX_PATTERN_SIDE).contains(&n) => n,
            Ok(n) => {
                self.0
                    .push(format!("{what} is {n}: give {min} to {MAX_PATTERN_SIDE}"));
                min
            }
            Err(_) => {
                self.0
                    .push(format!("{what} {text:?} is not a whole number"));
                min
            }
        }
    }

    fn dims(&mut self, what: &str, text: &str, min: (u32, u32)) -> (u32, u32) {
        let lower = text.to_ascii_lowercase();
        match lower.split_once('x') {
            Some((a, b)) => (
                self.count(&format!("{what} across"), a, min.0),
                self.count(&format!("{what} down"), b, min.1),
            ),
            None => {
                self.0
                    .push(format!("{text:?} should be {what} across x down, e.g. 9x6"));
                min
            }
        }
    }

    fn length(&mut self, what: &str, text: &str) -> (f64, LengthUnit) {
        let t = text.trim().to_ascii_lowercase();
        let split = t
            .find(|c: char| c.is_ascii_alphabetic() || c == '"')
            .unwrap_or(t.len());
        let (num, unit) = t.split_at(split);
        let unit = match unit.trim() {
            "mm" => Some(LengthUnit::Mm),
            "cm" => Some(LengthUnit::Cm),
            "in" | "inch" | "inches" | "\"" => Some(LengthUnit::In),
            "" => {
                self.0.push(format!(
                    "{what} {text:?} has no unit: write e.g. 25mm, 2.5cm or 1in"
                ));
                None
            }
            other => {
                self.0.push(format!(
                    "{what} {text:?}: unknown unit {other:?} (use mm, cm or in)"
                ));
                None
            }
        };
        let value = match num.trim().parse::<f64>() {
            Ok(v) if v.is_finite() && v > 0.0 => Some(v),
            _ => {
                self.0
                    .push(format!("{what} {text:?} is not a positive number"));
                None
            }
        };
        match (value, unit) {
            (Some(v), Some(u)) => {
                let inches = u.inches(v);
                if inches > MAX_LENGTH_IN {
                    self.0.push(format!(
                        "{what} {text:?} is over {MAX_LENGTH_IN} in: check the unit"
                    ));
                }
                (inches, u)
            }
            (_, u) => (1.0, u.unwrap_or(LengthUnit::In)),
        }
    }
}

impl FromStr for CalibrationBoard {
    type Err = BoardSpecError;

    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let fields: Vec<&str> = spec.trim().split(':').map(str::trim).collect();
        let kind = fields[0].to_ascii_lowercase();
        let mut p = Problems(Vec::new());
        let want = |p: &mut Problems, n: &[usize], form: &str| {
            if !n.contains(&fields.len()) {
                p.0.push(format!("expected {form}"));
                return false;
            }
            true
        };
        let board = match kind.as_str() {
            "kit" | "default" if fields.len() == 1 => Some(Self::default()),
            "chessboard" | "checkerboard" => want(&mut p, &[3], "chessboard:COLSxROWS:SQUARE")
                .then(|| {
                    let (cols, rows) = p.dims("inner corners", fields[1], (3, 3));
                    let (square_in, unit) = p.length("square", fields[2]);
                    Self::Chessboard(Chessboard {
                        cols,
                        rows,
                        square_in,
                        unit,
                    })
                }),
            "circles" | "acircles" => {
                let asymmetric = kind == "acircles";
                want(&mut p, &[3], &format!("{kind}:COLSxROWS:SPACING")).then(|| {
                    let min = if asymmetric { (2, 3) } else { (3, 3) };
                    let (cols, rows) = p.dims("circles", fields[1], min);
                    let (spacing_in, unit) = p.length("spacing", fields[2]);
                    Self::Circles(CircleGrid {
                        cols,
                        rows,
                        spacing_in,
                        asymmetric,
                        unit,
                    })
                })
            }
            "charuco" => want(
                &mut p,
                &[5, 6],
                "charuco:SQXxSQY:SQUARE:MARKER:DICT[:legacy]",
            )
            .then(|| parse_charuco(&mut p, &fields)),
            _ => {
                p.0.push(format!(
                    "unknown board kind {:?} (kit, chessboard, circles, acircles or charuco)",
                    fields[0]
                ));
                None
            }
        };
        match board {
            Some(b) if p.0.is_empty() => Ok(b),
            _ => Err(BoardSpecError {
                spec: spec.to_owned(),
                problems: p.0,
            }),
        }
    }
}

fn parse_charuco(p: &mut Problems, fields: &[&str]) -> CalibrationBoard {
    let (squares_x, squares_y) = p.dims("squares", fields[1], (3, 3));
    let (square_in, unit) = p.length("square", fields[2]);
    let (marker_in, _) = p.length("marker", fields[3]);
    if marker_in >= square_in {
        p.0.push(format!(
            "marker {} is not smaller than square {}",
            fields[3], fields[2]
        ));
    }
    let dictionary = ArucoDictionary::from_name(fields[4]).unwrap_or_else(|| {
        p.0.push(format!(
            "unknown dictionary {:?} (one of {})",
            fields[4],
            ArucoDictionary::names().join(", ")
        ));
        ArucoDictionary::Dict5x5_100
    });
    let legacy = match fields.get(5).map(|s| s.to_ascii_lowercase()) {
        None => false,
        Some(s) if s == "legacy" => true,
        Some(s) => {
            p.0.push(format!(
                "the last field {s:?} should be `legacy` or left out"
            ));
            false
        }
    };
    let board = CharucoBoard {
        squares_x,
        squares_y,
        square_in,
        marker_in,
        first_id: 0,
        dictionary,
        legacy,
    };
    if board.marker_count() > dictionary.size() {
        p.0.push(format!(
            "the board holds {} markers but {} has only {}",
            board.marker_count(),
            dictionary.name(),
            dictionary.size()
        ));
    }
    CalibrationBoard::Charuco { board, unit }
}

fn length_text(inches: f64, unit: LengthUnit) -> String {
    let v = unit.of_inches(inches);
    // Up to three decimals, without trailing zeros.
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("{s}{}", unit.suffix())
}

impl fmt::Display for CalibrationBoard {
    /// The spec, in the form [`FromStr`] reads.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Charuco { board, unit } => write!(
                f,
                "charuco:{}x{}:{}:{}:{}{}",
                board.squares_x,
                board.squares_y,
                length_text(board.square_in, *unit),
                length_text(board.marker_in, *unit),
                board.dictionary.name(),
                if board.legacy { ":legacy" } else { "" }
            ),
            Self::Chessboard(c) => write!(
                f,
                "chessboard:{}x{}:{}",
                c.cols,
                c.rows,
                length_text(c.square_in, c.unit)
            ),
            Self::Circles(c) => write!(
                f,
                "{}:{}x{}:{}",
                if c.asymmetric { "acircles" } else { "circles" },
                c.cols,
                c.rows,
                length_text(c.spacing_in, c.unit)
            ),
        }
    }
}

impl CalibrationBoard {
    /// The board in words, for reports and refusals.
    pub fn describe(&self) -> String {
        match self {
            Self::Charuco { board, unit } => format!(
                "the ChArUco board ({} x {} squares of {}, {})",
                board.squares_x,
                board.squares_y,
                length_text(board.square_in, *unit),
                board.dictionary.name()
            ),
            Self::Chessboard(c) => format!(
                "the chessboard ({} x {} inner corners, squares of {})",
                c.cols,
                c.rows,
                length_text(c.square_in, c.unit)
            ),
            Self::Circles(c) => format!(
                "the {} circle grid ({} x {} circles, spacing {})",
                if c.asymmetric {
                    "asymmetric"
                } else {
                    "symmetric"
                },
                c.cols,
                c.rows,
                length_text(c.spacing_in, c.unit)
            ),
        }
    }

    /// The base name of the board's printed PNG.
    pub fn file_stem(&self) -> String {
        match self {
            Self::Charuco { board, .. } if *board == CharucoBoard::default() => {
                "charuco-board".to_owned()
            }
            Self::Charuco { board, .. } => {
                format!("charuco-{}x{}", board.squares_x, board.squares_y)
            }
            Self::Chessboard(c) => format!("chessboard-{}x{}", c.cols, c.rows),
            Self::Circles(c) => format!(
                "{}-{}x{}",
                if c.asymmetric { "acircles" } else { "circles" },
                c.cols,
                c.rows
            ),
        }
    }

    /// Points of the board a view finds, in the board frame, inches (every
    /// point for a chessboard or a circle grid, which are found whole; the
    /// chessboard corners for a ChArUco board).
    pub fn points(&self) -> Vec<Point2<f64>> {
        match self {
            Self::Charuco { board, .. } => board
                .chessboard_corners()
                .into_iter()
                .map(|c| c.1)
                .collect(),
            Self::Chessboard(c) => (0..c.rows)
                .flat_map(|i| (0..c.cols).map(move |j| (j, i)))
                .map(|(j, i)| Point2::new(f64::from(j), f64::from(i)) * c.square_in)
                .collect(),
            Self::Circles(c) => (0..c.rows)
                .flat_map(|i| (0..c.cols).map(move |j| (j, i)))
                .map(|(j, i)| {
                    let x = if c.asymmetric { 2 * j + i % 2 } else { j };
                    Point2::new(f64::from(x), f64::from(i)) * c.spacing_in
                })
                .collect(),
        }
    }

    /// The board points found in one photo.
    pub fn find_view(
        &self,
        name: &str,
        gray: &GrayImage,
        params: &LensCalibrationParams,
    ) -> Result<BoardView, CalibrationError> {
        let found = match self {
            Self::Charuco { board, .. } => {
                return lens_calibration::find_board_corners(name, gray, board, params);
            }
            Self::Chessboard(c) => match cv::find_chessboard_corners(gray, (c.cols, c.rows))? {
                Some(rough) => {
                    let spacing = nearest_spacing_px(&rough, c.cols);
                    let half_win = (spacing * CHESSBOARD_WINDOW_FRAC)
                        .clamp(CHESSBOARD_WINDOW_PX.0, CHESSBOARD_WINDOW_PX.1)
                        .round() as i32;
                    Some(cv::corner_sub_pix(gray, &rough, half_win)?)
                }
                None => None,
            },
            Self::Circles(c) => cv::find_circles_grid(gray, (c.cols, c.rows), c.asymmetric)?,
        };
        let corners = match found {
            Some(px) if px.len() == self.points().len() => (0..)
                .zip(self.points())
                .zip(px)
                .map(|((id, board), px)| (id, board, px))
                .collect(),
            _ => Vec::new(),
        };
        Ok(BoardView {
            name: name.to_owned(),
            corners,
        })
    }

    /// [`lens_calibration::calibrate`] on views of this board; a refusal
    /// names this board and, for a board that is found only whole, says so.
    pub fn calibrate(
        &self,
        views: Vec<BoardView>,
        image_size: [u32; 2],
        params: &LensCalibrationParams,
    ) -> Result<LensCalibration, CalibrationError> {
        let whole = !matches!(self, Self::Charuco { .. });
        lens_calibration::calibrate(views, image_size, params).map_err(|e| match e {
            CalibrationError::LensRefused(why) => {
                let mut why = why.replace("the ChArUco board", &self.describe());
                if whole && why.starts_with("the board was found in") {
                    why.push_str(
                        " This board is found only when every one of its points is in the picture: leave a white margin round it.",
                    );
                }
                CalibrationError::LensRefused(why)
            }
            other => other,
        })
    }
}

/// The shortest distance between neighbours along the rows of a pattern
/// found row by row, pixels.
fn nearest_spacing_px(points: &[Point2<f64>], cols: u32) -> f64 {
    let cols = cols as usize;
    points
        .windows(2)
        .enumerate()
        .filter(|(i, _)| (i + 1) % cols != 0)
        .map(|(_, w)| (w[1] - w[0]).norm())
        .fold(f64::INFINITY, f64::min)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> CalibrationBoard {
        s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn specs_parse_into_boards_and_print_back() {
        let c = parse("chessboard:9x6:25mm");
        let CalibrationBoard::Chessboard(ch) = &c else {
            panic!("{c:?}")
        };
        assert_eq!((ch.cols, ch.rows), (9, 6));
        assert!((ch.square_in - 25.0 / 25.4).abs() < 1e-12);
        assert_eq!(c.to_string(), "chessboard:9x6:25mm");
        assert_eq!(c.points().len(), 54);
        assert!((c.points()[10] - Point2::new(1.0, 1.0) * ch.square_in).norm() < 1e-12);

        let a = parse("acircles:4x11:2cm");
        assert_eq!(a.to_string(), "acircles:4x11:2cm");
        // Row 1 is shifted by one spacing; neighbours in a row are two apart.
        let pts = a.points();
        let s = 20.0 / 25.4;
        assert!((pts[1] - Point2::new(2.0 * s, 0.0)).norm() < 1e-12);
        assert!((pts[4] - Point2::new(s, s)).norm() < 1e-12);

        let k = parse("charuco:5x8:30mm:22mm:DICT_6X6_250:legacy");
        let CalibrationBoard::Charuco { board, .. } = &k else {
            panic!("{k:?}")
        };
        assert!(board.legacy);
        assert_eq!(board.dictionary, ArucoDictionary::Dict6x6_250);
        assert_eq!(k.to_string(), "charuco:5x8:30mm:22mm:DICT_6X6_250:legacy");
        assert_eq!(parse("kit"), CalibrationBoard::default());
        assert_eq!(
            parse(&CalibrationBoard::default().to_string()),
            CalibrationBoard::default()
        );
    }

    #[test]
    fn bad_specs_report_every_problem() {
        let e = "chessboard:9y6:25".parse::<CalibrationBoard>().unwrap_err();
        assert_eq!(e.problems.len(), 2, "{e}");
        assert!(e.problems[1].contains("no unit"), "{e}");
        let e = "charuco:5x7:20mm:30mm:DICT_9X9_1"
            .parse::<CalibrationBoard>()
            .unwrap_err();
        assert_eq!(e.problems.len(), 2, "{e}");
        assert!(e.to_string().contains("DICT_5X5_100"), "{e}");
        let e = "charuco:20x20:10mm:8mm:DICT_4X4_50"
            .parse::<CalibrationBoard>()
            .unwrap_err();
        assert!(e.problems[0].contains("200 markers"), "{e}");
        let e = "donut:3x3:1in".parse::<CalibrationBoard>().unwrap_err();
        assert!(e.problems[0].contains("unknown board kind"), "{e}");
        let e = "circles:4x11".parse::<CalibrationBoard>().unwrap_err();
        assert!(e.problems[0].contains("circles:COLSxROWS:SPACING"), "{e}");
        let e = "chessboard:2x0:-1mm"
            .parse::<CalibrationBoard>()
            .unwrap_err();
        assert_eq!(e.problems.len(), 3, "{e}");
    }
}
