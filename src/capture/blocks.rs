//! A JPEG frame decoded at the cost of what changed.
//!
//! # Why
//! A webcam's MJPEG frame costs a whole decode (entropy decoding, the
//! inverse DCT of every 8x8 block, chroma upsampling, colour conversion)
//! even when a player moved one figure. The entropy pass cannot be skipped
//! (Huffman codes are read in order), but the rest can: [`PartialDecoder`]
//! reads the frame's DCT coefficients in one pass ([`super::huffman`], in
//! safe Rust and faster; libjpeg for the frames that one does not read),
//! compares each MCU's low-frequency coefficients (the block means and
//! their first gradients) with those it had when its pixels were last
//! made, and makes again only
//! the pixels of the MCUs that changed, a ring of one MCU round them (the
//! chroma upsampling reaches across MCU edges), and a few MCU rows of a
//! rolling refresh, so a change too small for the test is still caught
//! within [`PartialDecodeParams::refresh_frames`] frames. Everything else
//! keeps the pixels of the frame it was last made on.
//!
//! # The same pixels as the whole decode
//! The inverse DCT, the chroma upsampling (the triangle filter: vertical,
//! then horizontal, each rounded) and the colour conversion (BT.601 full
//! range, 14-bit fixed point) are those of the `image` crate's decoder
//! (zune-jpeg), so an MCU made here has the pixels a whole decode of the
//! same bytes gives (`tests/partial_decode.rs` measures the difference).
//!
//! # Conventions
//! Frames are 8-bit sRGB [`RgbImage`]s; coefficients are in natural
//! (row-major) order; levels are 0..255 pixel values.

// The libjpeg calls of `read_coefficients` are the only unsafe code.
#![allow(unsafe_code)]

use std::panic::{AssertUnwindSafe, catch_unwind};

use image::RgbImage;
use mozjpeg_sys as ffi;

use super::FrameChanges;
use super::decode::DecodeError;

const NAME: &str = "partial (libjpeg coefficients)";

/// One colour component's coefficients.
#[derive(Debug, Clone)]
pub struct Plane {
    /// Sampling factors.
    pub h: usize,
    pub v: usize,
    /// Blocks across and down, padded to whole MCUs.
    pub bw: usize,
    pub bh: usize,
    /// The quantisation table, natural order.
    pub quant: [u16; 64],
    /// `bw * bh` blocks, row-major, quantised.
    pub blocks: Vec<[i16; 64]>,
}

impl Default for Plane {
    fn default() -> Self {
        Self {
            h: 1,
            v: 1,
            bw: 0,
            bh: 0,
            quant: [1; 64],
            blocks: Vec::new(),
        }
    }
}

/// A frame's DCT coefficients, as the entropy pass left them.
#[derive(Debug, Clone, Default)]
pub struct Coefficients {
    pub width: usize,
    pub height: usize,
    pub max_h: usize,
    pub max_v: usize,
    /// One (grey) or three (Y, Cb, Cr).
    pub planes: Vec<Plane>,
}

impl Coefficients {
    /// MCU width and height, pixels.
    pub fn mcu_px(&self) -> (usize, usize) {
        (8 * self.max_h, 8 * self.max_v)
    }

    /// MCUs across and down.
    pub fn mcus(&self) -> (usize, usize) {
        let (mw, mh) = self.mcu_px();
        (self.width.div_ceil(mw), self.height.div_ceil(mh))
    }

    /// The layout alone (every plane's `blocks` empty).
    pub fn without_blocks(&self) -> Self {
        Self {
            width: self.width,
            height: self.height,
            max_h: self.max_h,
            max_v: self.max_v,
            planes: self
                .planes
                .iter()
                .map(|p| Plane {
                    blocks: Vec::new(),
                    ..*p
                })
                .collect(),
        }
    }

    fn same_layout(&self, other: &Self) -> bool {
        self.width == other.width
            && self.height == other.height
            && self.max_h == other.max_h
            && self.max_v == other.max_v
            && self.planes.len() == other.planes.len()
            && self
                .planes
                .iter()
                .zip(&other.planes)
                .all(|(a, b)| a.h == b.h && a.v == b.v && a.bw == b.bw && a.bh == b.bh)
    }
}

fn fail(reason: impl Into<String>) -> DecodeError {
    DecodeError {
        decoder: NAME,
        reason: reason.into(),
    }
}

extern "C-unwind" fn error_exit(cinfo: &mut ffi::jpeg_common_struct) {
    // SAFETY: libjpeg calls this with its own live object, whose error
    // manager is the one `read_coefficients` installed.
    let msg = unsafe {
        let err = &*cinfo.err;
        let mut buffer = [0u8; 80];
        if let Some(format) = err.format_message {
            // libjpeg writes at most JMSG_LENGTH_MAX (80) bytes.
            let f: unsafe extern "C-unwind" fn(&mut ffi::jpeg_common_struct, &mut [u8; 80]) =
                std::mem::transmute(format);
            f(cinfo, &mut buffer);
        }
        let end = buffer.iter().position(|&c| c == 0).unwrap_or(buffer.len());
        String::from_utf8_lossy(&buffer[..end]).into_owned()
    };
    std::panic::resume_unwind(Box::new(msg));
}

extern "C-unwind" fn emit_message(
    _cinfo: &mut ffi::jpeg_common_struct,
    _level: std::os::raw::c_int,
) {
}

/// A frame's coefficients while libjpeg holds them (see
/// [`with_coefficients`]).
pub struct CoefView<'a> {
    /// The frame's layout (the planes' `blocks` are empty).
    pub layout: Coefficients,
    /// Per component, its block rows as libjpeg holds them.
    rows: Vec<Vec<*const [i16; 64]>>,
    /// Per component, the blocks a row holds.
    have_w: Vec<usize>,
    _life: std::marker::PhantomData<&'a ()>,
}

impl CoefView<'_> {
    /// Block row `by` of component `c` as libjpeg holds it (rows past its
    /// padding repeat its last).
    #[inline]
    pub fn row(&self, c: usize, by: usize) -> &[[i16; 64]] {
        let rows = &self.rows[c];
        let row = rows[by.min(rows.len() - 1)];
        // SAFETY: as in `block`.
        unsafe { std::slice::from_raw_parts(row, self.have_w[c]) }
    }

    /// Block (`bx`, `by`) of component `c`, quantised; blocks past libjpeg's
    /// padding repeat its last row and column.
    #[inline]
    pub fn block(&self, c: usize, bx: usize, by: usize) -> &[i16; 64] {
        let rows = &self.rows[c];
        let row = rows[by.min(rows.len() - 1)];
        // SAFETY: `row` is one of libjpeg's block rows of `have_w` blocks,
        // alive (the decompress object is) for the view's lifetime.
        unsafe { &*row.add(bx.min(self.have_w[c] - 1)) }
    }
}

/// A frame's quantised blocks, wherever they are held: libjpeg's arrays
/// ([`CoefView`]) or a [`Coefficients`] of our own.
pub trait BlockRows {
    /// The frame's layout (its planes' `blocks` may be empty).
    fn layout(&self) -> &Coefficients;
    /// Block row `by` of component `c`.
    fn row(&self, c: usize, by: usize) -> &[[i16; 64]];
    /// Block (`bx`, `by`) of component `c`.
    fn block(&self, c: usize, bx: usize, by: usize) -> &[i16; 64];
}

impl BlockRows for CoefView<'_> {
    fn layout(&self) -> &Coefficients {
        &self.layout
    }

    #[inline]
    fn row(&self, c: usize, by: usize) -> &[[i16; 64]] {
        CoefView::row(self, c, by)
    }

    #[inline]
    fn block(&self, c: usize, bx: usize, by: usize) -> &[i16; 64] {
        CoefView::block(self, c, bx, by)
    }
}

impl BlockRows for Coefficients {
    fn layout(&self) -> &Coefficients {
        self
    }

    /// Rows past the plane's last repeat it.
    #[inline]
    fn row(&self, c: usize, by: usize) -> &[[i16; 64]] {
        let p = &self.planes[c];
        let by = by.min(p.bh.saturating_sub(1));
        &p.blocks[by * p.bw..(by + 1) * p.bw]
    }

    /// Blocks past the plane's last row or column repeat it.
    #[inline]
    fn block(&self, c: usize, bx: usize, by: usize) -> &[i16; 64] {
        let p = &self.planes[c];
        let (bx, by) = (
            bx.min(p.bw.saturating_sub(1)),
            by.min(p.bh.saturating_sub(1)),
        );
        &p.blocks[by * p.bw + bx]
    }
}

/// Runs `f` on the DCT coefficients of `bytes`: libjpeg's entropy pass, no
/// inverse DCT. Baseline and progressive JPEGs, grey or YCbCr, sampling
/// factors 1 or 2.
pub fn with_coefficients<R>(
    bytes: &[u8],
    f: impl for<'v> FnOnce(&CoefView<'v>) -> R,
) -> Result<R, DecodeError> {
    if bytes.len() < 4 || bytes[0] != 0xFF || bytes[1] != 0xD8 {
        return Err(fail("not a JPEG (no start-of-image marker)"));
    }
    let len = std::os::raw::c_ulong::try_from(bytes.len()).map_err(|_| fail("frame too large"))?;
    // SAFETY: the error manager and the decompress object live on the heap
    // for the whole call; every libjpeg error unwinds out of `error_exit`
    // into `catch_unwind` below, after which the object is destroyed once.
    // The block rows are those libjpeg reports, and the view holding them
    // does not outlive the object.
    unsafe {
        let mut err: Box<ffi::jpeg_error_mgr> = Box::new(std::mem::zeroed());
        ffi::jpeg_std_error(&mut err);
        err.error_exit = Some(error_exit);
        err.emit_message = Some(emit_message);
        let mut cinfo: Box<ffi::jpeg_decompress_struct> = Box::new(std::mem::zeroed());
        cinfo.common.err = &mut *err;
        let created = catch_unwind(AssertUnwindSafe(|| {
            ffi::jpeg_create_decompress(&mut *cinfo);
        }));
        if created.is_err() {
            return Err(fail("libjpeg could not start"));
        }
        let result = catch_unwind(AssertUnwindSafe(|| -> Result<R, DecodeError> {
            ffi::jpeg_mem_src(&mut cinfo, bytes.as_ptr(), len);
            ffi::jpeg_read_header(&mut cinfo, 1);
            let n = usize::try_from(cinfo.num_components).unwrap_or(0);
            let cs = cinfo.jpeg_color_space;
            let ok_space = (n == 1 && cs == ffi::J_COLOR_SPACE::JCS_GRAYSCALE)
                || (n == 3 && cs == ffi::J_COLOR_SPACE::JCS_YCbCr);
            if !ok_space {
                return Err(fail(format!(
                    "{n} components in colour space {cs:?}: only grey or YCbCr frames"
                )));
            }
            let (max_h, max_v) = (
                usize::try_from(cinfo.max_h_samp_factor).unwrap_or(0),
                usize::try_from(cinfo.max_v_samp_factor).unwrap_or(0),
            );
            if !(1..=2).contains(&max_h) || !(1..=2).contains(&max_v) {
                return Err(fail(format!("sampling {max_h}x{max_v}: only 1 or 2")));
            }
            let arrays = ffi::jpeg_read_coefficients(&mut cinfo);
            if arrays.is_null() {
                return Err(fail("no coefficients"));
            }
            let access = (*cinfo.common.mem)
                .access_virt_barray
                .ok_or_else(|| fail("no block access"))?;
            let mut layout = Coefficients {
                width: cinfo.image_width as usize,
                height: cinfo.image_height as usize,
                max_h,
                max_v,
                planes: Vec::new(),
            };
            let (mcus_w, mcus_h) = layout.mcus();
            let (mut rows, mut have_w) = (Vec::new(), Vec::new());
            for c in 0..n {
                let ci = &*cinfo.comp_info.add(c);
                let (h, v) = (ci.h_samp_factor as usize, ci.v_samp_factor as usize);
                if !(1..=max_h).contains(&h) || !(1..=max_v).contains(&v) {
                    return Err(fail(format!("component {c}: sampling {h}x{v}")));
                }
                if ci.quant_table.is_null() {
                    return Err(fail(format!("component {c}: no quantisation table")));
                }
                // libjpeg's arrays are padded to whole MCUs of this
                // component; the view reads what they hold.
                let w = (ci.width_in_blocks as usize).div_ceil(h) * h;
                let rh = (ci.height_in_blocks as usize).div_ceil(v) * v;
                if w == 0 || rh == 0 {
                    return Err(fail(format!("component {c}: no blocks")));
                }
                let r: Vec<*const [i16; 64]> = (0..rh)
                    .map(|row| {
                        let got = access(&mut cinfo.common, *arrays.add(c), row as u32, 1, 0);
                        (*got).cast_const()
                    })
                    .collect();
                rows.push(r);
                have_w.push(w);
                layout.planes.push(Plane {
                    h,
                    v,
                    bw: mcus_w * h,
                    bh: mcus_h * v,
                    quant: (*ci.quant_table).quantval,
                    blocks: Vec::new(),
                });
            }
            let view = CoefView {
                layout,
                rows,
                have_w,
                _life: std::marker::PhantomData,
            };
            let out = f(&view);
            drop(view);
            ffi::jpeg_finish_decompress(&mut cinfo);
            Ok(out)
        }));
        ffi::jpeg_destroy_decompress(&mut cinfo);
        drop(err);
        match result {
            Ok(r) => r,
            Err(panic) => {
                let msg = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_string()))
                    .unwrap_or_else(|| "libjpeg failed".into());
                Err(fail(msg))
            }
        }
    }
}

/// Reads the DCT coefficients of `bytes` into `into` (its buffers are
/// reused), padded to whole MCUs (see [`with_coefficients`]).
pub fn read_coefficients(bytes: &[u8], into: &mut Coefficients) -> Result<(), DecodeError> {
    with_coefficients(bytes, |view| {
        let l = &view.layout;
        into.width = l.width;
        into.height = l.height;
        into.max_h = l.max_h;
        into.max_v = l.max_v;
        into.planes.resize_with(l.planes.len(), Plane::default);
        for (c, (plane, p)) in into.planes.iter_mut().zip(&l.planes).enumerate() {
            plane.h = p.h;
            plane.v = p.v;
            plane.bw = p.bw;
            plane.bh = p.bh;
            plane.quant = p.quant;
            plane.blocks.clear();
            for by in 0..p.bh {
                plane
                    .blocks
                    .extend((0..p.bw).map(|bx| *view.block(c, bx, by)));
            }
        }
    })
}

/// The inverse DCT of one dequantised block into 8 rows of `out` (each
/// `stride` apart), levels clamped to 0..255: the integer transform of the
/// `image` crate's decoder (stb_image's, 12-bit fixed point), with its
/// shortcut for a block that has only a mean.
///
/// Both 1-D passes work on all eight lines at once (a lane each), so the
/// compiler makes them vector code; a column with only its first
/// coefficient needs no shortcut, as the full pass gives it the same value.
#[inline(always)]
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
pub fn idct_block(block: &[i16; 64], quant: &[u16; 64], out: &mut [u8], stride: usize) {
    let mut c = [[0i32; 8]; 8];
    for r in 0..8 {
        for k in 0..8 {
            c[r][k] = i32::from(block[r * 8 + k]) * i32::from(quant[r * 8 + k]);
        }
    }
    if block[1..].iter().all(|&v| v == 0) {
        let v = ((c[0][0] + 4 + 1024) >> 3).clamp(0, 255) as u8;
        for r in 0..8 {
            out[r * stride..r * stride + 8].fill(v);
        }
        return;
    }
    // Columns: lane k is column k; then >> 10.
    let (e, o) = idct_pass(&c, 512);
    let mut t = [[0i32; 8]; 8];
    for k in 0..4 {
        for l in 0..8 {
            // Transposed: t[column][row].
            t[l][k] = (e[k][l] + o[k][l]) >> 10;
            t[l][7 - k] = (e[k][l] - o[k][l]) >> 10;
        }
    }
    // Rows: lane r is row r; the bias rounds, centres on 128 and descales.
    const BIAS: i32 = 512 + 65536 + (128 << 17);
    let (e, o) = idct_pass(&t, BIAS);
    let mut levels = [[0u8; 8]; 8];
    for k in 0..4 {
        for l in 0..8 {
            levels[l][k] = ((e[k][l] + o[k][l]) >> 17).clamp(0, 255) as u8;
            levels[l][7 - k] = ((e[k][l] - o[k][l]) >> 17).clamp(0, 255) as u8;
        }
    }
    for (r, row) in levels.iter().enumerate() {
        out[r * stride..r * stride + 8].copy_from_slice(row);
    }
}

/// One 1-D pass of [`idct_block`] over eight lanes: `x[i][l]` is input `i`
/// of lane `l`; returns the even and odd halves (`bias` added to the even).
#[inline(always)]
fn idct_pass(x: &[[i32; 8]; 8], bias: i32) -> ([[i32; 8]; 4], [[i32; 8]; 4]) {
    let mut e = [[0i32; 8]; 4];
    let mut o = [[0i32; 8]; 4];
    for l in 0..8 {
        let p1 = (x[2][l] + x[6][l]) * 2217;
        let t2 = p1 + x[6][l] * -7567;
        let t3 = p1 + x[2][l] * 3135;
        let t0 = (x[0][l] + x[4][l]) << 12;
        let t1 = (x[0][l] - x[4][l]) << 12;
        e[0][l] = t0 + t3 + bias;
        e[1][l] = t1 + t2 + bias;
        e[2][l] = t1 - t2 + bias;
        e[3][l] = t0 - t3 + bias;
        let (o0, o1, o2, o3) = (x[7][l], x[5][l], x[3][l], x[1][l]);
        let p3 = o0 + o2;
        let p4 = o1 + o3;
        let q1 = o0 + o3;
        let q2 = o1 + o2;
        let p5 = (p3 + p4) * 4816;
        let q1 = p5 + q1 * -3685;
        let q2 = p5 + q2 * -10497;
        let p3 = p3 * -8034;
        let p4 = p4 * -1597;
        o[0][l] = o3 * 6149 + q1 + p4;
        o[1][l] = o2 * 12586 + q2 + p3;
        o[2][l] = o1 * 8410 + q2 + p4;
        o[3][l] = o0 * 1223 + q1 + p3;
    }
    (e, o)
}

/// What the partial decoder can be tuned by.
#[derive(Debug, Clone, PartialEq)]
pub struct PartialDecodeParams {
    /// An MCU changed when a block's mean moved by more than this (levels)...
    pub mean_level: f32,
    /// ...or a luma block's first horizontal or vertical gradient
    /// coefficient by more than this (levels of its cosine's amplitude).
    pub gradient_level: f32,
    /// Every MCU row is made again at least once in this many frames.
    pub refresh_frames: usize,
}

impl Default for PartialDecodeParams {
    fn default() -> Self {
        Self {
            mean_level: 2.0,
            gradient_level: 4.0,
            refresh_frames: 30,
        }
    }
}

/// How much of the last frame was decoded.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DecodeWork {
    /// MCUs made again, and of how many.
    pub mcus: usize,
    pub of: usize,
    /// Milliseconds: the entropy pass, the change test, the pixels (the
    /// inverse DCT, upsampling and colour conversion).
    pub entropy_ms: f64,
    pub test_ms: f64,
    pub pixels_ms: f64,
    /// The entropy pass was libjpeg's (a frame [`super::huffman`] does not
    /// read, or found broken), not ours.
    pub by_libjpeg: bool,
}

impl DecodeWork {
    pub fn share(&self) -> f64 {
        self.mcus as f64 / self.of.max(1) as f64
    }
}

/// A camera's frames decoded at the cost of what changed: feed it one
/// camera's JPEG frames in order; it keeps the last picture and makes again
/// only what changed (see the module's notes).
pub struct PartialDecoder {
    params: PartialDecodeParams,
    /// Per component, the levels of every block as last made (padded).
    samples: Vec<Vec<u8>>,
    /// Per component and block, the dequantised mean, and for luma the
    /// first gradients, when the block was last made.
    made: Vec<Vec<[i32; 3]>>,
    frame: Option<RgbImage>,
    /// Layout of the frame the state was made for.
    layout: Coefficients,
    refresh_cursor: usize,
    last: DecodeWork,
    /// Scratch rows for the chroma upsampling: per chroma component, the
    /// row made and its vertical pass.
    scratch: [[Vec<i16>; 2]; 2],
    /// The stream (a new one at each fresh start) and the serial of the
    /// last frame decoded in it.
    stream: u64,
    serial: u64,
    /// Per MCU, the serial of the frame its pixels were last made on.
    made_at: Vec<u64>,
    /// The last frame's coefficients (buffers reused frame to frame).
    coef: Coefficients,
}

/// Streams of every decoder in the program are numbered apart.
static STREAMS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// libjpeg allocates a frame's coefficient arrays (about 6 MB at 1080p)
/// with `malloc` and frees them at the frame's end; glibc serves blocks that
/// large by `mmap`, so every frame paid for 1500 fresh pages (about 3 ms,
/// measured with `perf`). Served from the heap and kept there, the next
/// frame reuses them.
fn keep_large_blocks() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        // SAFETY: mallopt only sets the allocator's thresholds.
        ONCE.call_once(|| unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, 64 << 20);
            libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
        });
    }
}

impl PartialDecoder {
    pub fn new(params: PartialDecodeParams) -> Self {
        keep_large_blocks();
        Self {
            params,
            samples: Vec::new(),
            made: Vec::new(),
            frame: None,
            layout: Coefficients::default(),
            refresh_cursor: 0,
            last: DecodeWork::default(),
            scratch: Default::default(),
            stream: 0,
            serial: 0,
            made_at: Vec::new(),
            coef: Coefficients::default(),
        }
    }

    /// The picture as last decoded.
    pub fn frame(&self) -> Option<&RgbImage> {
        self.frame.as_ref()
    }

    /// What the last frame cost.
    pub fn last_work(&self) -> DecodeWork {
        self.last
    }

    /// Where the last frame's pixels may differ from earlier frames of this
    /// stream: per MCU, the serial of the frame it was last made on (see
    /// [`FrameChanges`]). `None` before the first frame.
    pub fn changes(&self) -> Option<FrameChanges> {
        self.frame.as_ref()?;
        let (mw, mh) = self.layout.mcus();
        let (cw, ch) = self.layout.mcu_px();
        Some(FrameChanges {
            stream: self.stream,
            serial: self.serial,
            cell_px: [cw as u32, ch as u32],
            cols: mw,
            rows: mh,
            made_at: self.made_at.clone(),
        })
    }

    /// Forgets the picture: the next frame is decoded whole.
    pub fn reset(&mut self) {
        self.frame = None;
    }

    /// Decodes the next frame; only what changed is made again.
    pub fn decode(&mut self, bytes: &[u8]) -> Result<&RgbImage, DecodeError> {
        self.decode_with(bytes, false)
    }

    /// Decodes the next frame whole (and keeps it as the picture).
    pub fn decode_whole(&mut self, bytes: &[u8]) -> Result<&RgbImage, DecodeError> {
        self.decode_with(bytes, true)
    }

    fn decode_with(&mut self, bytes: &[u8], whole: bool) -> Result<&RgbImage, DecodeError> {
        let t0 = std::time::Instant::now();
        // Our own entropy pass first (the same coefficients, in less time);
        // a frame it does not read, or finds broken, goes to libjpeg, which
        // reads more (progressive frames) and forgives more (a truncated
        // frame's missing blocks are zeros).
        let mut coef = std::mem::take(&mut self.coef);
        let fast = super::huffman::decode_coefficients(bytes, &mut coef);
        let decoded = match fast {
            Ok(()) => {
                let entropy_ms = ms_since(t0);
                let (dirty, test_ms, blocks_ms) = self.test_and_make_blocks(&coef, whole);
                Ok((dirty, entropy_ms, test_ms, blocks_ms))
            }
            Err(_) => with_coefficients(bytes, |view| {
                let entropy_ms = ms_since(t0);
                let (dirty, test_ms, blocks_ms) = self.test_and_make_blocks(view, whole);
                (dirty, entropy_ms, test_ms, blocks_ms)
            }),
        };
        self.coef = coef;
        let (dirty, entropy_ms, test_ms, blocks_ms) = decoded?;
        let by_libjpeg = fast.is_err();
        let t3 = std::time::Instant::now();
        let mcus = self.make_pixels(&dirty);
        self.serial += 1;
        self.made_at.resize(dirty.len(), 0);
        for (at, d) in self.made_at.iter_mut().zip(&dirty) {
            if *d {
                *at = self.serial;
            }
        }
        self.last = DecodeWork {
            mcus,
            of: dirty.len(),
            entropy_ms,
            test_ms,
            pixels_ms: blocks_ms + ms_since(t3),
            by_libjpeg,
        };
        self.frame.as_ref().ok_or_else(|| fail("no frame"))
    }

    /// The change test and the blocks of the MCUs to make again; returns
    /// them and the milliseconds of the test and of the blocks.
    fn test_and_make_blocks(
        &mut self,
        view: &impl BlockRows,
        whole: bool,
    ) -> (Vec<bool>, f64, f64) {
        let t1 = std::time::Instant::now();
        let fresh = self.frame.is_none() || !view.layout().same_layout(&self.layout);
        if fresh {
            self.start(view.layout());
        }
        let (mw, mh) = view.layout().mcus();
        let mut dirty = vec![whole || fresh; mw * mh];
        if !(whole || fresh) {
            self.change_test(view, &mut dirty);
            // A changed MCU's neighbours read its chroma.
            dirty = ring(&dirty, mw, mh);
            // The rolling refresh (no ring: a neighbour's edge read
            // chroma that changed by less than the test's reach).
            let rows = mh.div_ceil(self.params.refresh_frames.max(1));
            for r in 0..rows {
                let my = (self.refresh_cursor + r) % mh;
                dirty[my * mw..(my + 1) * mw].fill(true);
            }
            self.refresh_cursor = (self.refresh_cursor + rows) % mh.max(1);
        }
        let test_ms = ms_since(t1);
        let t2 = std::time::Instant::now();
        self.make_blocks(view, &dirty);
        (dirty, test_ms, ms_since(t2))
    }

    /// Buffers for a frame of a new layout.
    fn start(&mut self, layout: &Coefficients) {
        self.samples = layout
            .planes
            .iter()
            .map(|p| vec![0u8; p.bw * 8 * p.bh * 8])
            .collect();
        self.made = layout
            .planes
            .iter()
            .map(|p| vec![[i32::MIN; 3]; p.bw * p.bh])
            .collect();
        self.frame = Some(RgbImage::new(layout.width as u32, layout.height as u32));
        self.layout = layout.without_blocks();
        self.refresh_cursor = 0;
        self.stream = STREAMS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.serial = 0;
        self.made_at.clear();
    }

    /// Marks the MCUs whose low-frequency coefficients moved.
    fn change_test(&self, view: &impl BlockRows, dirty: &mut [bool]) {
        let (mw, _) = view.layout().mcus();
        // The dequantised DC is 8 times the block's mean; a first AC
        // coefficient's cosine has an amplitude of the coefficient times
        // C(0) C(1) / 4 = 1 / (4 sqrt 2) levels.
        let mean_lim = (self.params.mean_level * 8.0) as i32;
        let grad_lim = (self.params.gradient_level * 4.0 * std::f32::consts::SQRT_2) as i32;
        for (c, plane) in view.layout().planes.iter().enumerate() {
            let made = &self.made[c];
            for by in 0..plane.bh {
                let row = view.row(c, by);
                let made_row = &made[by * plane.bw..(by + 1) * plane.bw];
                let mcu_row = &mut dirty[(by / plane.v) * mw..(by / plane.v + 1) * mw];
                for (bx, m) in made_row.iter().enumerate() {
                    let mcu = &mut mcu_row[bx / plane.h];
                    if *mcu {
                        continue;
                    }
                    let s = signature(&row[bx.min(row.len() - 1)], &plane.quant, c == 0);
                    *mcu = m[0] == i32::MIN
                        || (s[0] - m[0]).abs() > mean_lim
                        || (s[1] - m[1]).abs() > grad_lim
                        || (s[2] - m[2]).abs() > grad_lim;
                }
            }
        }
    }

    /// The inverse DCT of every block of the dirty MCUs.
    fn make_blocks(&mut self, view: &impl BlockRows, dirty: &[bool]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            #[allow(
                unsafe_code,
                reason = "a function compiled for AVX2, called where AVX2 was detected"
            )]
            // SAFETY: the processor has AVX2, checked just above.
            return unsafe { self.make_blocks_avx2(view, dirty) };
        }
        self.make_blocks_body(view, dirty);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn make_blocks_avx2(&mut self, view: &impl BlockRows, dirty: &[bool]) {
        self.make_blocks_body(view, dirty);
    }

    #[inline(always)]
    fn make_blocks_body(&mut self, view: &impl BlockRows, dirty: &[bool]) {
        let (mw, mh) = view.layout().mcus();
        for (c, plane) in view.layout().planes.iter().enumerate() {
            let stride = plane.bw * 8;
            let samples = &mut self.samples[c];
            let made = &mut self.made[c];
            for my in 0..mh {
                for mx in 0..mw {
                    if !dirty[my * mw + mx] {
                        continue;
                    }
                    for v in 0..plane.v {
                        for h in 0..plane.h {
                            let (bx, by) = (mx * plane.h + h, my * plane.v + v);
                            let block = view.block(c, bx, by);
                            let at = by * 8 * stride + bx * 8;
                            idct_block(block, &plane.quant, &mut samples[at..], stride);
                            made[by * plane.bw + bx] = signature(block, &plane.quant, c == 0);
                        }
                    }
                }
            }
        }
    }

    /// The pixels of the dirty MCUs from the blocks' levels; returns how
    /// many MCUs.
    fn make_pixels(&mut self, dirty: &[bool]) -> usize {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            #[allow(
                unsafe_code,
                reason = "a function compiled for AVX2, called where AVX2 was detected"
            )]
            // SAFETY: the processor has AVX2, checked just above.
            return unsafe { self.make_pixels_avx2(dirty) };
        }
        self.make_pixels_body(dirty)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn make_pixels_avx2(&mut self, dirty: &[bool]) -> usize {
        self.make_pixels_body(dirty)
    }

    #[inline(always)]
    fn make_pixels_body(&mut self, dirty: &[bool]) -> usize {
        let layout = &self.layout;
        let (mw, mh) = layout.mcus();
        let (mcu_w, mcu_h) = layout.mcu_px();
        let Some(frame) = self.frame.as_mut() else {
            return 0;
        };
        let (w, h) = (layout.width, layout.height);
        let grey = layout.planes.len() == 1;
        let y_stride = layout.planes[0].bw * 8;
        let mut count = 0;
        let raw: &mut [u8] = frame;
        let [cb, cr] = &mut self.scratch;
        for my in 0..mh {
            // Runs of dirty MCUs along the row, made a pixel row at a time.
            let mut mx = 0;
            while mx < mw {
                if !dirty[my * mw + mx] {
                    mx += 1;
                    continue;
                }
                let start = mx;
                while mx < mw && dirty[my * mw + mx] {
                    mx += 1;
                }
                count += mx - start;
                let (x0, x1) = (start * mcu_w, (mx * mcu_w).min(w));
                for y in my * mcu_h..((my + 1) * mcu_h).min(h) {
                    let yrow = &self.samples[0][y * y_stride + x0..y * y_stride + x1];
                    let out = &mut raw[(y * w + x0) * 3..(y * w + x1) * 3];
                    if grey {
                        for (px, &l) in out.chunks_exact_mut(3).zip(yrow) {
                            px.copy_from_slice(&[l, l, l]);
                        }
                        continue;
                    }
                    upsampled_row(layout, &self.samples[1], 1, x0, x1, y, cb);
                    upsampled_row(layout, &self.samples[2], 2, x0, x1, y, cr);
                    colour_row(out, yrow, &cb[0], &cr[0]);
                }
            }
        }
        count
    }
}

fn ms_since(t: std::time::Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// Marks every MCU next to a marked one.
fn ring(dirty: &[bool], mw: usize, mh: usize) -> Vec<bool> {
    let mut out = dirty.to_vec();
    for my in 0..mh {
        for mx in 0..mw {
            if !dirty[my * mw + mx] {
                continue;
            }
            for yy in my.saturating_sub(1)..(my + 2).min(mh) {
                for xx in mx.saturating_sub(1)..(mx + 2).min(mw) {
                    out[yy * mw + xx] = true;
                }
            }
        }
    }
    out
}

/// The dequantised mean and (luma) first gradients of a block.
fn signature(block: &[i16; 64], quant: &[u16; 64], luma: bool) -> [i32; 3] {
    let dq = |k: usize| i32::from(block[k]) * i32::from(quant[k]);
    if luma {
        [dq(0), dq(1), dq(8)]
    } else {
        [dq(0), 0, 0]
    }
}

/// Chroma component `c` upsampled to full resolution for row `y`, columns
/// `x0..x1`, into `out`: the triangle filter (3/4 the nearer sample, 1/4
/// the farther), vertical first, each pass rounded, edges repeated.
#[inline(always)]
fn upsampled_row(
    layout: &Coefficients,
    s: &[u8],
    c: usize,
    x0: usize,
    x1: usize,
    y: usize,
    [out, vert]: &mut [Vec<i16>; 2],
) {
    let plane = &layout.planes[c];
    let stride = plane.bw * 8;
    let (fx, fy) = (layout.max_h / plane.h, layout.max_v / plane.v);
    let chroma_h = layout.height.div_ceil(fy);
    let chroma_w = layout.width.div_ceil(fx);
    let cy = y / fy;
    let here = &s[cy * stride..cy * stride + stride];
    vert.clear();
    out.clear();
    // The chroma columns this run reads, a column beyond each end.
    let (c0, c1) = (
        (x0 / fx).saturating_sub(1),
        (x1.div_ceil(fx) + 1).min(chroma_w),
    );
    if fy == 1 {
        vert.extend(here[c0..c1].iter().map(|&v| i16::from(v)));
    } else {
        let other = if y.is_multiple_of(2) {
            cy.saturating_sub(1)
        } else {
            (cy + 1).min(chroma_h - 1)
        };
        let far = &s[other * stride..other * stride + stride];
        vert.extend(
            here[c0..c1]
                .iter()
                .zip(&far[c0..c1])
                .map(|(&a, &b)| (3 * i16::from(a) + i16::from(b) + 2) >> 2),
        );
    }
    if fx == 1 {
        out.extend_from_slice(&vert[x0 - c0..x1 - c0]);
        return;
    }
    let v = &vert[..];
    if fx == 2 && x0.is_multiple_of(2) {
        // Pixel 2i reads chroma i and i - 1, pixel 2i + 1 reads i and i + 1:
        // the run's chroma columns with their neighbours, edges repeated.
        let (first, last) = (x0 / 2, (x1 - 1) / 2);
        let at = |cx: usize| v[cx - c0];
        let left = at(first.saturating_sub(1));
        let right = at((last + 1).min(chroma_w - 1));
        let run = &v[first - c0..=last - c0];
        out.resize(2 * run.len(), 0);
        for (i, pair) in out.chunks_exact_mut(2).enumerate() {
            let here = 3 * run[i];
            let before = if i == 0 { left } else { run[i - 1] };
            let after = if i + 1 == run.len() {
                right
            } else {
                run[i + 1]
            };
            pair[0] = (here + before + 2) >> 2;
            pair[1] = (here + after + 2) >> 2;
        }
        out.truncate(x1 - x0);
        return;
    }
    out.extend((x0..x1).map(|x| {
        let cx = x / fx;
        let other = if x.is_multiple_of(2) {
            cx.saturating_sub(1)
        } else {
            (cx + 1).min(chroma_w - 1)
        };
        (3 * v[cx - c0] + v[other - c0] + 2) >> 2
    }));
}

/// A row of pixels from its levels: `out` holds 3 bytes a pixel of `y`.
#[inline(always)]
fn colour_row(out: &mut [u8], y: &[u8], cb: &[i16], cr: &[i16]) {
    let n = y.len().min(cb.len()).min(cr.len()).min(out.len() / 3);
    let (out, y, cb, cr) = (&mut out[..3 * n], &y[..n], &cb[..n], &cr[..n]);
    for i in 0..n {
        let px = ycbcr_to_rgb(y[i], cb[i], cr[i]);
        out[3 * i] = px[0];
        out[3 * i + 1] = px[1];
        out[3 * i + 2] = px[2];
    }
}

/// BT.601 full-range YCbCr to RGB in 14-bit fixed point.
#[inline(always)]
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
fn ycbcr_to_rgb(y: u8, cb: i16, cr: i16) -> [u8; 3] {
    let (cb, cr) = (i32::from(cb) - 128, i32::from(cr) - 128);
    let y0 = i32::from(y) * 16384 + ((1 << 13) - 1);
    let r = (y0 + cr * 22970) >> 14;
    let g = (y0 + cr * -11700 + cb * -5638) >> 14;
    let b = (y0 + cb * 29032) >> 14;
    [
        r.clamp(0, 255) as u8,
        g.clamp(0, 255) as u8,
        b.clamp(0, 255) as u8,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_with_only_a_mean_is_flat() {
        let mut b = [0i16; 64];
        b[0] = 10;
        let q = [8u16; 64];
        let mut out = [0u8; 64];
        idct_block(&b, &q, &mut out, 8);
        // 10 * 8 / 8 + 128.
        assert!(out.iter().all(|&v| v == 138), "{out:?}");
    }

    /// stb_image's transform as it is printed, a column then a row at a
    /// time, with its shortcut for a column that has only a mean.
    fn stb_reference(block: &[i16; 64], quant: &[u16; 64]) -> [u8; 64] {
        let mut c: [i32; 64] = std::array::from_fn(|k| i32::from(block[k]) * i32::from(quant[k]));
        let pass = |x: [i32; 8], bias: i32| -> [i32; 8] {
            let p1 = (x[2] + x[6]) * 2217;
            let t2 = p1 + x[6] * -7567;
            let t3 = p1 + x[2] * 3135;
            let t0 = (x[0] + x[4]) << 12;
            let t1 = (x[0] - x[4]) << 12;
            let (x0, x3, x1, x2) = (
                t0 + t3 + bias,
                t0 - t3 + bias,
                t1 + t2 + bias,
                t1 - t2 + bias,
            );
            let (o0, o1, o2, o3) = (x[7], x[5], x[3], x[1]);
            let p5 = (o0 + o2 + o1 + o3) * 4816;
            let q1 = p5 + (o0 + o3) * -3685;
            let q2 = p5 + (o1 + o2) * -10497;
            let (p3, p4) = ((o0 + o2) * -8034, (o1 + o3) * -1597);
            let (a3, a2) = (o3 * 6149 + q1 + p4, o2 * 12586 + q2 + p3);
            let (a1, a0) = (o1 * 8410 + q2 + p4, o0 * 1223 + q1 + p3);
            [
                x0 + a3,
                x1 + a2,
                x2 + a1,
                x3 + a0,
                x3 - a0,
                x2 - a1,
                x1 - a2,
                x0 - a3,
            ]
        };
        for col in 0..8 {
            if (1..8).all(|r| c[r * 8 + col] == 0) {
                let v = c[col] << 2;
                (0..8).for_each(|r| c[r * 8 + col] = v);
                continue;
            }
            let y = pass(std::array::from_fn(|r| c[r * 8 + col]), 512);
            (0..8).for_each(|r| c[r * 8 + col] = y[r] >> 10);
        }
        let mut out = [0u8; 64];
        for row in 0..8 {
            let y = pass(
                std::array::from_fn(|k| c[row * 8 + k]),
                512 + 65536 + (128 << 17),
            );
            for k in 0..8 {
                out[row * 8 + k] = (y[k] >> 17).clamp(0, 255) as u8;
            }
        }
        out
    }

    #[test]
    fn the_transform_of_all_lanes_at_once_is_stb_images() {
        // Blocks as a JPEG has them (most energy low, many zeros) and wild
        // ones that clamp; a fixed generator, so a failure repeats.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for n in 0..20_000 {
            let mut b = [0i16; 64];
            let q: [u16; 64] = std::array::from_fn(|k| 1 + (k as u16 % 13) + (n % 3) as u16 * 4);
            let kept = 1 + (next() % 64) as usize;
            for k in 0..kept {
                let r = next();
                if r % 3 != 0 {
                    // Wild: as far as a baseline JPEG of 8-bit samples
                    // goes (a dequantised coefficient within 2047).
                    let span = if n % 7 == 0 {
                        2047 / i64::from(q[k])
                    } else {
                        64 >> (k / 16)
                    };
                    b[k] = ((r >> 8) % (2 * span as u64 + 1)) as i16 - span as i16;
                }
            }
            if n % 11 == 0 {
                // Only the first column.
                for (k, v) in b.iter_mut().enumerate() {
                    if k % 8 != 0 {
                        *v = 0;
                    }
                }
            }
            let mut got = [0u8; 64];
            idct_block(&b, &q, &mut got, 8);
            assert_eq!(got, stb_reference(&b, &q), "block {n}: {b:?}");
        }
    }

    #[test]
    fn not_a_jpeg_is_an_error_not_a_crash() {
        let mut c = Coefficients::default();
        assert!(read_coefficients(b"not a jpeg", &mut c).is_err());
        // A JPEG's start, then nothing: libjpeg's own error, caught.
        let e = read_coefficients(&[0xFF, 0xD8, 0xFF, 0xE0, 0, 16], &mut c).unwrap_err();
        assert!(!e.reason.is_empty());
    }
}
