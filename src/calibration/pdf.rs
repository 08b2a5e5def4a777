//! A minimal PDF writer for the printable kit: pages of filled rectangles,
//! lines and Helvetica text, in inches. Vector squares print at exactly the
//! size asked for, which a raster image scaled by a print dialog does not.
//!
//! # Conventions
//! Inches, origin at the bottom-left corner of the page, y up (PDF user
//! space, scaled from points).

use std::fmt::Write as _;

/// PDF points per inch.
const PT_PER_IN: f64 = 72.0;

/// One drawing operation on a page.
#[derive(Debug, Clone)]
enum Op {
    Rect {
        x: f64,
        y: f64,
        w: f64,
        h: f64,
        gray: f64,
    },
    Stroke {
        x0: f64,
        y0: f64,
        x1: f64,
        y1: f64,
        width: f64,
    },
    Text {
        x: f64,
        y: f64,
        size_pt: f64,
        text: String,
    },
    Disc {
        cx: f64,
        cy: f64,
        r: f64,
        gray: f64,
    },
}

/// Control-point distance of a cubic Bezier quarter circle, per unit
/// radius: 4/3 (sqrt 2 - 1), within 0.03% of the circle.
const BEZIER_CIRCLE_K: f64 = 0.552_284_749_8;

/// One page being drawn, inches.
#[derive(Debug, Clone)]
pub struct Page {
    pub width_in: f64,
    pub height_in: f64,
    ops: Vec<Op>,
}

impl Page {
    pub fn new(width_in: f64, height_in: f64) -> Self {
        Self {
            width_in,
            height_in,
            ops: Vec::new(),
        }
    }

    /// A filled rectangle; `gray` 0 is black, 1 white.
    pub fn rect(&mut self, x_in: f64, y_in: f64, w_in: f64, h_in: f64, gray: f64) {
        self.ops.push(Op::Rect {
            x: x_in,
            y: y_in,
            w: w_in,
            h: h_in,
            gray,
        });
    }

    /// A black line.
    pub fn line(&mut self, x0_in: f64, y0_in: f64, x1_in: f64, y1_in: f64, width_pt: f64) {
        self.ops.push(Op::Stroke {
            x0: x0_in,
            y0: y0_in,
            x1: x1_in,
            y1: y1_in,
            width: width_pt,
        });
    }

    /// A filled disc of radius `r_in` centred at (cx, cy); `gray` as for
    /// [`Page::rect`].
    pub fn disc(&mut self, cx_in: f64, cy_in: f64, r_in: f64, gray: f64) {
        self.ops.push(Op::Disc {
            cx: cx_in,
            cy: cy_in,
            r: r_in,
            gray,
        });
    }

    /// Text with its baseline starting at (x, y).
    pub fn text(&mut self, x_in: f64, y_in: f64, size_pt: f64, text: &str) {
        self.ops.push(Op::Text {
            x: x_in,
            y: y_in,
            size_pt,
            text: text.to_owned(),
        });
    }

    fn content(&self) -> String {
        let mut s = String::new();
        let k = PT_PER_IN;
        for op in &self.ops {
            // Writing to a String cannot fail.
            let _ = match op {
                Op::Rect { x, y, w, h, gray } => writeln!(
                    s,
                    "{gray:.3} g {:.4} {:.4} {:.4} {:.4} re f",
                    x * k,
                    y * k,
                    w * k,
                    h * k
                ),
                Op::Stroke {
                    x0,
                    y0,
                    x1,
                    y1,
                    width,
                } => writeln!(
                    s,
                    "0 G {width:.2} w {:.4} {:.4} m {:.4} {:.4} l S",
                    x0 * k,
                    y0 * k,
                    x1 * k,
                    y1 * k
                ),
                Op::Text {
                    x,
                    y,
                    size_pt,
                    text,
                } => writeln!(
                    s,
                    "0 g BT /F1 {size_pt:.1} Tf {:.4} {:.4} Td ({}) Tj ET",
                    x * k,
                    y * k,
                    escape(text)
                ),
                Op::Disc { cx, cy, r, gray } => {
                    let (cx, cy, r) = (cx * k, cy * k, r * k);
                    let c = r * BEZIER_CIRCLE_K;
                    writeln!(
                        s,
                        "{gray:.3} g {:.4} {:.4} m {:.4} {:.4} {:.4} {:.4} {:.4} {:.4} c {:.4} {:.4} {:.4} {:.4} {:.4} {:.4} c {:.4} {:.4} {:.4} {:.4} {:.4} {:.4} c {:.4} {:.4} {:.4} {:.4} {:.4} {:.4} c f",
                        cx + r,
                        cy,
                        cx + r,
                        cy + c,
                        cx + c,
                        cy + r,
                        cx,
                        cy + r,
                        cx - c,
                        cy + r,
                        cx - r,
                        cy + c,
                        cx - r,
                        cy,
                        cx - r,
                        cy - c,
                        cx - c,
                        cy - r,
                        cx,
                        cy - r,
                        cx + c,
                        cy - r,
                        cx + r,
                        cy - c,
                        cx + r,
                        cy
                    )
                }
            };
        }
        s
    }
}

/// Escapes a string for a PDF literal; characters outside Latin-1 become '?'.
fn escape(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        match c {
            '(' | ')' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_ascii() && !c.is_ascii_control() => out.push(c),
            _ => out.push('?'),
        }
    }
    out
}

/// Serialises pages into a PDF file.
pub fn write_pdf(pages: &[Page]) -> Vec<u8> {
    let mut objects: Vec<String> = Vec::new();
    // 1: catalog, 2: pages, 3: font, then per page: page object and content.
    let n = pages.len();
    let kids: Vec<String> = (0..n).map(|i| format!("{} 0 R", 4 + 2 * i)).collect();
    objects.push("<< /Type /Catalog /Pages 2 0 R >>".to_owned());
    objects.push(format!(
        "<< /Type /Pages /Kids [{}] /Count {n} >>",
        kids.join(" ")
    ));
    objects.push(
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
            .to_owned(),
    );
    for (i, page) in pages.iter().enumerate() {
        let content = page.content();
        objects.push(format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {:.2} {:.2}] /Resources << /Font << /F1 3 0 R >> >> /Contents {} 0 R >>",
            page.width_in * PT_PER_IN,
            page.height_in * PT_PER_IN,
            5 + 2 * i
        ));
        objects.push(format!(
            "<< /Length {} >>\nstream\n{content}endstream",
            content.len()
        ));
    }
    let mut out = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::new();
    for (i, obj) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{obj}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    let mut tail = format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1);
    for off in offsets {
        let _ = writeln!(tail, "{off:010} 00000 n ");
    }
    let _ = write!(
        tail,
        "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
        objects.len() + 1
    );
    out.extend_from_slice(tail.as_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rectangles_are_written_in_points() {
        let mut page = Page::new(8.5, 11.0);
        page.rect(1.0, 2.0, 3.0, 3.0, 0.0);
        let pdf = String::from_utf8_lossy(&write_pdf(&[page])).into_owned();
        assert!(
            pdf.contains("72.0000 144.0000 216.0000 216.0000 re f"),
            "{pdf}"
        );
        assert!(pdf.contains("/MediaBox [0 0 612.00 792.00]"));
        assert!(pdf.ends_with("%%EOF\n"));
    }

    #[test]
    fn xref_offsets_point_at_objects() {
        let pdf = write_pdf(&[Page::new(8.27, 11.69)]);
        // Offsets are byte offsets; the header has non-ASCII bytes on purpose.
        let tail_at = pdf.len() - 64;
        let tail = String::from_utf8_lossy(&pdf[tail_at..]).into_owned();
        let xref_at: usize = tail
            .rsplit("startxref\n")
            .next()
            .and_then(|t| t.lines().next())
            .and_then(|l| l.parse().ok())
            .unwrap();
        assert!(pdf[xref_at..].starts_with(b"xref"));
        // Object 2's offset (third xref row) must point at "2 0 obj".
        let xref = String::from_utf8_lossy(&pdf[xref_at..]).into_owned();
        let row = xref.lines().nth(4).unwrap();
        let off: usize = row[..10].parse().unwrap();
        assert!(pdf[off..].starts_with(b"2 0 obj"));
    }

    #[test]
    fn parentheses_are_escaped() {
        assert_eq!(escape("a(b)\\"), "a\\(b\\)\\\\");
    }
}
