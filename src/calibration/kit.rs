//! The printable kit: the four table markers and the ChArUco board, as PNG
//! at a stated DPI and as PDFs at true size for letter and A4 paper, with a
//! first page that tells the user where each piece goes.
//!
//! # Conventions
//! Marker cells come from [`super::cv::marker_cells`]: a square grid, row 0
//! at the top, `true` for black, the black border included.

use std::path::{Path, PathBuf};

use image::{GrayImage, Luma};

use super::CalibrationError;
use super::board::CalibrationBoard;
use super::charuco::CharucoBoard;
use super::cv::{self, ArucoDictionary};
use super::layout::TableLayout;
use super::pdf::{self, Page};

/// White paper left around each table marker; TABLE_KIT asks for 0.5 in at
/// least, and the margin is the white reference for colour balance.
pub const MARKER_MARGIN_IN: f64 = 0.75;
/// White margin around the ChArUco board.
pub const BOARD_MARGIN_IN: f64 = 0.4;
/// Circle radius of a printed circle grid, per spacing: OpenCV's
/// `gen_pattern.py` default (`radius_rate` 5).
pub const CIRCLE_RADIUS_PER_SPACING: f64 = 0.2;
/// Sub-samples per pixel side where a printed circle's edge is drawn.
const DISC_SUBSAMPLES: u32 = 4;
/// Room left on a board page round the board, inches (the printer's
/// unprintable border and the caption).
const PAGE_ROOM_IN: f64 = 0.5;
/// Paper sizes, inches (portrait).
pub const LETTER_IN: (f64, f64) = (8.5, 11.0);
pub const A4_IN: (f64, f64) = (8.27, 11.69);

/// What `spotter markers` writes.
#[derive(Debug, Clone)]
pub struct KitFiles {
    pub files: Vec<PathBuf>,
}

/// Renders a grid of cells (true = black) into `side_px`, with a white margin.
fn render_cells(cells: &[Vec<bool>], cell_px: u32, margin_px: u32) -> GrayImage {
    let n = u32::try_from(cells.len()).unwrap_or(0);
    let side = n * cell_px + 2 * margin_px;
    let mut img = GrayImage::from_pixel(side, side, Luma([255]));
    for (r, row) in (0..).zip(cells) {
        for (c, &black) in (0..).zip(row) {
            if !black {
                continue;
            }
            for y in 0..cell_px {
                for x in 0..cell_px {
                    img.put_pixel(
                        margin_px + c * cell_px + x,
                        margin_px + r * cell_px + y,
                        Luma([0]),
                    );
                }
            }
        }
    }
    img
}

fn px(inches: f64, dpi: u32) -> u32 {
    // Rounded to whole pixels: a print at `dpi` is then within half a pixel.
    (inches * f64::from(dpi)).round().max(1.0) as u32
}

/// The board as an image at `dpi`, with its white margin.
pub fn render_board(board: &CharucoBoard, dpi: u32) -> Result<GrayImage, CalibrationError> {
    let margin = px(BOARD_MARGIN_IN, dpi);
    let sq = px(board.square_in, dpi);
    let w = board.squares_x * sq + 2 * margin;
    let h = board.squares_y * sq + 2 * margin;
    let mut img = GrayImage::from_pixel(w, h, Luma([255]));
    for y in 0..board.squares_y {
        for x in 0..board.squares_x {
            if board.is_white(x, y) {
                continue;
            }
            for yy in 0..sq {
                for xx in 0..sq {
                    img.put_pixel(margin + x * sq + xx, margin + y * sq + yy, Luma([0]));
                }
            }
        }
    }
    for (id, corners) in board.markers() {
        let cells = cv::marker_cells(board.dictionary, id)?;
        let n = u32::try_from(cells.len()).unwrap_or(1);
        let cell = px(board.marker_in, dpi) / n;
        let marker = render_cells(&cells, cell, 0);
        // Centre the marker in its square (rounding may shave a pixel).
        let side = marker.width();
        let cx = margin + px(corners[0].x + board.marker_in / 2.0, dpi);
        let cy = margin + px(corners[0].y + board.marker_in / 2.0, dpi);
        image::imageops::overlay(
            &mut img,
            &marker,
            i64::from(cx - side / 2),
            i64::from(cy - side / 2),
        );
    }
    Ok(img)
}

/// Draws a grid of cells as vector squares, top-left at (x, y_top), inches.
fn pdf_cells(page: &mut Page, cells: &[Vec<bool>], x_in: f64, y_top_in: f64, side_in: f64) {
    let n = cells.len() as f64;
    let cell = side_in / n;
    for (r, row) in cells.iter().enumerate() {
        for (c, &black) in row.iter().enumerate() {
            if black {
                page.rect(
                    x_in + c as f64 * cell,
                    y_top_in - (r as f64 + 1.0) * cell,
                    cell,
                    cell,
                    0.0,
                );
            }
        }
    }
}

/// Where on the table a marker centre is, in words.
pub fn corner_name(layout: &TableLayout, center: [f64; 2]) -> &'static str {
    let left = center[0] < layout.width_in / 2.0;
    let near = center[1] < layout.depth_in / 2.0;
    match (near, left) {
        (true, true) => "near left corner (the origin)",
        (true, false) => "near right corner",
        (false, false) => "far right corner",
        (false, true) => "far left corner",
    }
}

fn instructions_page(layout: &TableLayout, board: &CalibrationBoard, paper: (f64, f64)) -> Page {
    let (w, h) = paper;
    let mut page = Page::new(w, h);
    let mut y = h - 1.0;
    let mut line = |page: &mut Page, size: f64, text: &str| {
        page.text(0.75, y, size, text);
        y -= size / 72.0 * 1.45;
    };
    line(&mut page, 20.0, "Spotter table kit");
    line(
        &mut page,
        11.0,
        "Print at 100% / \"actual size\" (no \"fit to page\"). Check: the ruler below is 3.00 in long.",
    );
    line(
        &mut page,
        11.0,
        &format!(
            "Table: {} x {} in. Lay each marker flat, printed top edge away from you (toward +y),",
            layout.width_in, layout.depth_in
        ),
    );
    line(
        &mut page,
        11.0,
        "with its centre where the list says, measured from the near left corner of the table.",
    );
    for m in &layout.markers {
        line(
            &mut page,
            11.0,
            &format!(
                "  Marker {}: centre at x = {} in, y = {} in ({}), {} in across, turned {} deg.",
                m.id,
                m.center_in[0],
                m.center_in[1],
                corner_name(layout, m.center_in),
                m.size_in,
                m.rotation_deg
            ),
        );
    }
    line(
        &mut page,
        11.0,
        "Keep the white paper margin round each marker visible: it is the white reference.",
    );
    line(&mut page, 11.0, &board_instruction(board));
    line(
        &mut page,
        11.0,
        "8 or more photos of it, tilted and spread over the whole picture.",
    );
    // A 3 in ruler with inch ticks to check the print scale.
    let ruler_y = y - 0.3;
    page.line(0.75, ruler_y, 3.75, ruler_y, 1.0);
    for i in 0..=6 {
        let x = 0.75 + f64::from(i) * 0.5;
        let tick = if i % 2 == 0 { 0.2 } else { 0.1 };
        page.line(x, ruler_y, x, ruler_y + tick, 1.0);
    }
    page.text(3.9, ruler_y, 10.0, "3.00 in");
    // A map of the table with the markers, scaled to the space left.
    let map_top = ruler_y - 0.5;
    let map_side = (map_top - 0.75).min(w - 1.5);
    let scale = map_side / layout.width_in.max(layout.depth_in);
    let (x0, y0) = (0.75, map_top - layout.depth_in * scale);
    page.line(x0, y0, x0 + layout.width_in * scale, y0, 1.0);
    page.line(
        x0 + layout.width_in * scale,
        y0,
        x0 + layout.width_in * scale,
        y0 + layout.depth_in * scale,
        1.0,
    );
    page.line(
        x0 + layout.width_in * scale,
        y0 + layout.depth_in * scale,
        x0,
        y0 + layout.depth_in * scale,
        1.0,
    );
    page.line(x0, y0 + layout.depth_in * scale, x0, y0, 1.0);
    for m in &layout.markers {
        let s = m.size_in * scale;
        let (cx, cy) = (x0 + m.center_in[0] * scale, y0 + m.center_in[1] * scale);
        page.rect(cx - s / 2.0, cy - s / 2.0, s, s, 0.0);
        page.text(
            cx - s / 2.0,
            cy + s / 2.0 + 0.08,
            10.0,
            &format!("{}", m.id),
        );
    }
    page.text(
        x0,
        y0 - 0.25,
        10.0,
        "Near edge of the table (the side you sit at). x runs right, y away from you.",
    );
    page
}

fn marker_page(
    layout: &TableLayout,
    idx: usize,
    paper: (f64, f64),
) -> Result<Page, CalibrationError> {
    let m = &layout.markers[idx];
    let (w, h) = paper;
    let mut page = Page::new(w, h);
    let cells = cv::marker_cells(ArucoDictionary::Dict4x4_50, m.id)?;
    let x = (w - m.size_in) / 2.0;
    let y_top = h / 2.0 + m.size_in / 2.0;
    pdf_cells(&mut page, &cells, x, y_top, m.size_in);
    page.text(
        x,
        y_top + 0.5,
        14.0,
        &format!(
            "Spotter table marker {} (DICT_4X4_50) - this edge away from you",
            m.id
        ),
    );
    page.text(
        x,
        y_top - m.size_in - 0.5,
        11.0,
        &format!(
            "{} in across. Centre at ({}, {}) in: {}.",
            m.size_in,
            m.center_in[0],
            m.center_in[1],
            corner_name(layout, m.center_in)
        ),
    );
    page.text(
        x,
        y_top - m.size_in - 0.75,
        11.0,
        &format!("Leave at least {MARKER_MARGIN_IN} in of white paper round the black square."),
    );
    Ok(page)
}

fn board_page(board: &CharucoBoard, paper: (f64, f64)) -> Result<Page, CalibrationError> {
    // Landscape, so the 7 in board has room on both papers; a larger
    // board gets a page of its own size.
    let bw = f64::from(board.squares_x) * board.square_in;
    let bh = f64::from(board.squares_y) * board.square_in;
    let (w, h) = (
        paper.1.max(bw + 2.0 * PAGE_ROOM_IN),
        paper.0.max(bh + 3.0 * PAGE_ROOM_IN),
    );
    let mut page = Page::new(w, h);
    let x0 = (w - bw) / 2.0;
    let top = (h + bh) / 2.0;
    for y in 0..board.squares_y {
        for x in 0..board.squares_x {
            if !board.is_white(x, y) {
                page.rect(
                    x0 + f64::from(x) * board.square_in,
                    top - f64::from(y + 1) * board.square_in,
                    board.square_in,
                    board.square_in,
                    0.0,
                );
            }
        }
    }
    for (id, corners) in board.markers() {
        let cells = cv::marker_cells(board.dictionary, id)?;
        pdf_cells(
            &mut page,
            &cells,
            x0 + corners[0].x,
            top - corners[0].y,
            board.marker_in,
        );
    }
    page.text(x0, top + 0.35, 12.0, &format!(
        "Spotter ChArUco board: {} x {} squares of {} in, markers {} in, {}{}. Glue flat to card.",
        board.squares_x, board.squares_y, board.square_in, board.marker_in, board.dictionary.name(),
        if board.legacy { " (legacy layout)" } else { "" }
    ));
    Ok(page)
}

fn board_instruction(board: &CalibrationBoard) -> String {
    let what = board.describe();
    let what = what.strip_prefix("the ").unwrap_or(&what);
    if *board == CalibrationBoard::default() {
        format!("{what}: glue to card, then run `spotter calibrate-lens` on")
    } else {
        format!("{what}: glue to card, then run `spotter calibrate-lens --board {board}` on")
    }
}

/// One shape of a printed chessboard or circle grid: inches, origin at the
/// top-left corner of the print (its white margin included), y down.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Shape {
    Square { x: f64, y: f64, side: f64 },
    Disc { cx: f64, cy: f64, r: f64 },
}

/// A chessboard or circle grid as printed: its size with the white margin,
/// inches, and its black shapes. `None` for a ChArUco board.
fn pattern_print(board: &CalibrationBoard) -> Option<((f64, f64), Vec<Shape>)> {
    match board {
        CalibrationBoard::Charuco { .. } => None,
        CalibrationBoard::Chessboard(c) => {
            // OpenCV finds a chessboard only with a white border round it:
            // at least one square.
            let sq = c.square_in;
            let margin = sq.max(BOARD_MARGIN_IN);
            let mut shapes = Vec::new();
            for y in 0..=c.rows {
                for x in 0..=c.cols {
                    if (x + y) % 2 == 0 {
                        shapes.push(Shape::Square {
                            x: margin + f64::from(x) * sq,
                            y: margin + f64::from(y) * sq,
                            side: sq,
                        });
                    }
                }
            }
            let size = (
                2.0 * margin + f64::from(c.cols + 1) * sq,
                2.0 * margin + f64::from(c.rows + 1) * sq,
            );
            Some((size, shapes))
        }
        CalibrationBoard::Circles(c) => {
            let r = c.spacing_in * CIRCLE_RADIUS_PER_SPACING;
            let margin = c.spacing_in.max(BOARD_MARGIN_IN);
            let points = board.points();
            let max_x = points.iter().map(|p| p.x).fold(0.0, f64::max);
            let max_y = points.iter().map(|p| p.y).fold(0.0, f64::max);
            let shapes = points
                .iter()
                .map(|p| Shape::Disc {
                    cx: margin + r + p.x,
                    cy: margin + r + p.y,
                    r,
                })
                .collect();
            let size = (2.0 * (margin + r) + max_x, 2.0 * (margin + r) + max_y);
            Some((size, shapes))
        }
    }
}

/// Edge of a shape in whole pixels at `dpi` (each edge rounded on its own,
/// so shapes stay within half a pixel and sizes do not drift).
fn edge_px(inches: f64, dpi: u32) -> u32 {
    (inches * f64::from(dpi)).round().max(0.0) as u32
}

fn render_pattern(size_in: (f64, f64), shapes: &[Shape], dpi: u32) -> GrayImage {
    let (w, h) = (px(size_in.0, dpi), px(size_in.1, dpi));
    let mut img = GrayImage::from_pixel(w, h, Luma([255]));
    let d = f64::from(dpi);
    for shape in shapes {
        match *shape {
            Shape::Square { x, y, side } => {
                let (x0, x1) = (edge_px(x, dpi), edge_px(x + side, dpi).min(w));
                let (y0, y1) = (edge_px(y, dpi), edge_px(y + side, dpi).min(h));
                for yy in y0..y1 {
                    for xx in x0..x1 {
                        img.put_pixel(xx, yy, Luma([0]));
                    }
                }
            }
            Shape::Disc { cx, cy, r } => {
                // Pixel (i, j) covers [i, i+1) x [j, j+1) in print pixels.
                let (cx, cy, r) = (cx * d, cy * d, r * d);
                let x0 = (cx - r).floor().max(0.0) as u32;
                let y0 = (cy - r).floor().max(0.0) as u32;
                let x1 = ((cx + r).ceil() as u32).min(w);
                let y1 = ((cy + r).ceil() as u32).min(h);
                let n = DISC_SUBSAMPLES;
                for j in y0..y1 {
                    for i in x0..x1 {
                        let mut inside = 0;
                        for b in 0..n {
                            for a in 0..n {
                                let sx = f64::from(i) + (f64::from(a) + 0.5) / f64::from(n);
                                let sy = f64::from(j) + (f64::from(b) + 0.5) / f64::from(n);
                                if (sx - cx).powi(2) + (sy - cy).powi(2) <= r * r {
                                    inside += 1;
                                }
                            }
                        }
                        let white = 255 * (n * n - inside) / (n * n);
                        let old = u32::from(img.get_pixel(i, j)[0]);
                        img.put_pixel(i, j, Luma([white.min(old) as u8]));
                    }
                }
            }
        }
    }
    img
}

/// The board as printed, at `dpi`, with its white margin.
pub fn render_calibration_board(
    board: &CalibrationBoard,
    dpi: u32,
) -> Result<GrayImage, CalibrationError> {
    match (board, pattern_print(board)) {
        (CalibrationBoard::Charuco { board, .. }, _) => render_board(board, dpi),
        (_, Some((size, shapes))) => Ok(render_pattern(size, &shapes, dpi)),
        (_, None) => Err(CalibrationError::OpenCv("no print of this board".into())),
    }
}

/// A chessboard or circle grid on its own page: the paper turned the way
/// the board fits, or a page of the board's own size (plus room) when it is
/// larger than the paper; vector shapes at true size.
fn pattern_page(
    board: &CalibrationBoard,
    size_in: (f64, f64),
    shapes: &[Shape],
    paper: (f64, f64),
) -> Page {
    let (bw, bh) = size_in;
    let need = (bw + 2.0 * PAGE_ROOM_IN, bh + 3.0 * PAGE_ROOM_IN);
    let fits = |w: f64, h: f64| need.0 <= w && need.1 <= h;
    let (w, h) = if fits(paper.0, paper.1) && bw <= bh {
        paper
    } else if fits(paper.1, paper.0) {
        (paper.1, paper.0)
    } else if fits(paper.0, paper.1) {
        paper
    } else {
        need
    };
    let mut page = Page::new(w, h);
    let x0 = (w - bw) / 2.0;
    let top = (h + bh) / 2.0 - PAGE_ROOM_IN / 2.0;
    for shape in shapes {
        match *shape {
            Shape::Square { x, y, side } => page.rect(x0 + x, top - y - side, side, side, 0.0),
            Shape::Disc { cx, cy, r } => page.disc(x0 + cx, top - cy, r, 0.0),
        }
    }
    let caption = board.describe();
    let caption = caption.strip_prefix("the ").unwrap_or(&caption);
    page.text(
        x0,
        top + 0.15,
        11.0,
        &format!("Spotter calibration board: {caption} (--board {board}). Print at 100%, glue flat to card."),
    );
    page
}

/// Writes the kit into `dir`: `marker-N.png` and `charuco-board.png` at
/// `dpi`, and `kit-letter.pdf` and `kit-a4.pdf` at true size.
pub fn write_kit(
    dir: &Path,
    layout: &TableLayout,
    board: &CharucoBoard,
    dpi: u32,
) -> Result<KitFiles, CalibrationError> {
    let board = CalibrationBoard::Charuco {
        board: board.clone(),
        unit: super::board::LengthUnit::In,
    };
    write_kit_with_board(dir, layout, &board, dpi)
}

/// [`write_kit`] with any calibration board: its PNG is
/// `<board.file_stem()>.png`.
pub fn write_kit_with_board(
    dir: &Path,
    layout: &TableLayout,
    board: &CalibrationBoard,
    dpi: u32,
) -> Result<KitFiles, CalibrationError> {
    let io = |path: &Path, e: &dyn std::fmt::Display| CalibrationError::Image {
        path: path.display().to_string(),
        reason: e.to_string(),
    };
    std::fs::create_dir_all(dir).map_err(|e| io(dir, &e))?;
    let mut files = Vec::new();
    for m in &layout.markers {
        let cells = cv::marker_cells(ArucoDictionary::Dict4x4_50, m.id)?;
        let n = u32::try_from(cells.len()).unwrap_or(1);
        let cell_px = px(m.size_in / f64::from(n), dpi);
        let img = render_cells(&cells, cell_px, px(MARKER_MARGIN_IN, dpi));
        let path = dir.join(format!("marker-{}.png", m.id));
        img.save(&path).map_err(|e| io(&path, &e))?;
        files.push(path);
    }
    let board_img = render_calibration_board(board, dpi)?;
    let path = dir.join(format!("{}.png", board.file_stem()));
    board_img.save(&path).map_err(|e| io(&path, &e))?;
    files.push(path);
    for (name, paper) in [("kit-letter.pdf", LETTER_IN), ("kit-a4.pdf", A4_IN)] {
        let mut pages = vec![instructions_page(layout, board, paper)];
        for i in 0..layout.markers.len() {
            pages.push(marker_page(layout, i, paper)?);
        }
        pages.push(match (board, pattern_print(board)) {
            (CalibrationBoard::Charuco { board, .. }, _) => board_page(board, paper)?,
            (b, Some((size, shapes))) => pattern_page(b, size, &shapes, paper),
            (_, None) => return Err(CalibrationError::OpenCv("no print of this board".into())),
        });
        let path = dir.join(name);
        std::fs::write(&path, pdf::write_pdf(&pages)).map_err(|e| io(&path, &e))?;
        files.push(path);
    }
    Ok(KitFiles { files })
}
