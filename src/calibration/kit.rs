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
use super::charuco::CharucoBoard;
use super::cv::{self, ArucoDictionary};
use super::layout::TableLayout;
use super::pdf::{self, Page};

/// White paper left around each table marker; TABLE_KIT asks for 0.5 in at
/// least, and the margin is the white reference for colour balance.
pub const MARKER_MARGIN_IN: f64 = 0.75;
/// White margin around the ChArUco board.
pub const BOARD_MARGIN_IN: f64 = 0.4;
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
            if CharucoBoard::is_white(x, y) {
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
        let cells = cv::marker_cells(ArucoDictionary::Dict5x5_100, id)?;
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

fn corner_name(layout: &TableLayout, center: [f64; 2]) -> &'static str {
    let left = center[0] < layout.width_in / 2.0;
    let near = center[1] < layout.depth_in / 2.0;
    match (near, left) {
        (true, true) => "near left corner (the origin)",
        (true, false) => "near right corner",
        (false, false) => "far right corner",
        (false, true) => "far left corner",
    }
}

fn instructions_page(layout: &TableLayout, board: &CharucoBoard, paper: (f64, f64)) -> Page {
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
    line(
        &mut page,
        11.0,
        &format!(
            "ChArUco board ({} x {} squares of {} in): glue to card, then run `spotter calibrate-lens` on",
            board.squares_x, board.squares_y, board.square_in
        ),
    );
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
    // Landscape, so the 7 in board has room on both papers.
    let (w, h) = (paper.1, paper.0);
    let mut page = Page::new(w, h);
    let bw = f64::from(board.squares_x) * board.square_in;
    let bh = f64::from(board.squares_y) * board.square_in;
    let x0 = (w - bw) / 2.0;
    let top = (h + bh) / 2.0;
    for y in 0..board.squares_y {
        for x in 0..board.squares_x {
            if !CharucoBoard::is_white(x, y) {
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
        let cells = cv::marker_cells(ArucoDictionary::Dict5x5_100, id)?;
        pdf_cells(
            &mut page,
            &cells,
            x0 + corners[0].x,
            top - corners[0].y,
            board.marker_in,
        );
    }
    page.text(x0, top + 0.35, 12.0, &format!(
        "Spotter ChArUco board: {} x {} squares of {} in, markers {} in, DICT_5X5_100. Glue flat to card.",
        board.squares_x, board.squares_y, board.square_in, board.marker_in
    ));
    Ok(page)
}

/// Writes the kit into `dir`: `marker-N.png` and `charuco-board.png` at
/// `dpi`, and `kit-letter.pdf` and `kit-a4.pdf` at true size.
pub fn write_kit(
    dir: &Path,
    layout: &TableLayout,
    board: &CharucoBoard,
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
    let board_img = render_board(board, dpi)?;
    let path = dir.join("charuco-board.png");
    board_img.save(&path).map_err(|e| io(&path, &e))?;
    files.push(path);
    for (name, paper) in [("kit-letter.pdf", LETTER_IN), ("kit-a4.pdf", A4_IN)] {
        let mut pages = vec![instructions_page(layout, board, paper)];
        for i in 0..layout.markers.len() {
            pages.push(marker_page(layout, i, paper)?);
        }
        pages.push(board_page(board, paper)?);
        let path = dir.join(name);
        std::fs::write(&path, pdf::write_pdf(&pages)).map_err(|e| io(&path, &e))?;
        files.push(path);
    }
    Ok(KitFiles { files })
}
