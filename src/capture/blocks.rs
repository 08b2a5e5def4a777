//! A JPEG frame decoded at the cost of what changed.
//!
//! # Why
//! A webcam's MJPEG frame costs a whole decode (entropy decoding, the
//! inverse DCT of every 8x8 block, chroma upsampling, colour conversion)
//! even when a player moved one figure. The entropy pass cannot be skipped
//! (Huffman codes are read in order), but the rest can: [`PartialDecoder`]
//! reads the frame's DCT coefficients in one pass, compares each MCU's
//! low-frequency coefficients (the block means and their first gradients)
//! with those it had when its pixels were last made, and makes again only
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
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
pub fn idct_block(block: &[i16; 64], quant: &[u16; 64], out: &mut [u8], stride: usize) {
    let mut c = [0i32; 64];
    let mut ac = false;
    for k in 0..64 {
        c[k] = i32::from(block[k]) * i32::from(quant[k]);
        ac |= k > 0 && block[k] != 0;
    }
    if !ac {
        let v = ((c[0] + 4 + 1024) >> 3).clamp(0, 255) as u8;
        for r in 0..8 {
            out[r * stride..r * stride + 8].fill(v);
        }
        return;
    }
    // One 1-D pass; `bias` is added to the even part, `shift` descales.
    #[inline(always)]
    fn pass(x: [i32; 8], bias: i32) -> ([i32; 4], [i32; 4]) {
        let p1 = (x[2] + x[6]) * 2217;
        let t2 = p1 + x[6] * -7567;
        let t3 = p1 + x[2] * 3135;
        let t0 = (x[0] + x[4]) << 12;
        let t1 = (x[0] - x[4]) << 12;
        let e = [
            t0 + t3 + bias,
            t1 + t2 + bias,
            t1 - t2 + bias,
            t0 - t3 + bias,
        ];
        let (o0, o1, o2, o3) = (x[7], x[5], x[3], x[1]);
        let p3 = o0 + o2;
        let p4 = o1 + o3;
        let q1 = o0 + o3;
        let q2 = o1 + o2;
        let p5 = (p3 + p4) * 4816;
        let q1 = p5 + q1 * -3685;
        let q2 = p5 + q2 * -10497;
        let p3 = p3 * -8034;
        let p4 = p4 * -1597;
        let t3 = o3 * 6149 + q1 + p4;
        let t2 = o2 * 12586 + q2 + p3;
        let t1 = o1 * 8410 + q2 + p4;
        let t0 = o0 * 1223 + q1 + p3;
        (e, [t3, t2, t1, t0])
    }
    // Columns; one with only its first coefficient is flat.
    for col in 0..8 {
        if (1..8).all(|r| c[r * 8 + col] == 0) {
            // The even part with x[0] alone, then >> 10: (x0 << 12 + 512) >> 10.
            let v = ((c[col] << 12) + 512) >> 10;
            for r in 0..8 {
                c[r * 8 + col] = v;
            }
            continue;
        }
        let x = std::array::from_fn(|r| c[r * 8 + col]);
        let (e, o) = pass(x, 512);
        for k in 0..4 {
            c[k * 8 + col] = (e[k] + o[k]) >> 10;
            c[(7 - k) * 8 + col] = (e[k] - o[k]) >> 10;
        }
    }
    // Rows.
    const BIAS: i32 = 512 + 65536 + (128 << 17);
    for row in 0..8 {
        let x: [i32; 8] = std::array::from_fn(|k| c[row * 8 + k]);
        let (e, o) = pass(x, BIAS);
        let dst = &mut out[row * stride..row * stride + 8];
        for k in 0..4 {
            dst[k] = ((e[k] + o[k]) >> 17).clamp(0, 255) as u8;
            dst[7 - k] = ((e[k] - o[k]) >> 17).clamp(0, 255) as u8;
        }
    }
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
}

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
        let (dirty, entropy_ms, test_ms, blocks_ms) = with_coefficients(bytes, |view| {
            let entropy_ms = ms_since(t0);
            let t1 = std::time::Instant::now();
            let fresh = self.frame.is_none() || !view.layout.same_layout(&self.layout);
            if fresh {
                self.start(&view.layout);
            }
            let (mw, mh) = view.layout.mcus();
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
            (dirty, entropy_ms, test_ms, ms_since(t2))
        })?;
        let t3 = std::time::Instant::now();
        let mcus = self.make_pixels(&dirty);
        self.last = DecodeWork {
            mcus,
            of: dirty.len(),
            entropy_ms,
            test_ms,
            pixels_ms: blocks_ms + ms_since(t3),
        };
        self.frame.as_ref().ok_or_else(|| fail("no frame"))
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
        self.layout = layout.clone();
        self.refresh_cursor = 0;
    }

    /// Marks the MCUs whose low-frequency coefficients moved.
    fn change_test(&self, view: &CoefView<'_>, dirty: &mut [bool]) {
        let (mw, _) = view.layout.mcus();
        // The dequantised DC is 8 times the block's mean; a first AC
        // coefficient's cosine has an amplitude of the coefficient times
        // C(0) C(1) / 4 = 1 / (4 sqrt 2) levels.
        let mean_lim = (self.params.mean_level * 8.0) as i32;
        let grad_lim = (self.params.gradient_level * 4.0 * std::f32::consts::SQRT_2) as i32;
        for (c, plane) in view.layout.planes.iter().enumerate() {
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
    fn make_blocks(&mut self, view: &CoefView<'_>, dirty: &[bool]) {
        let (mw, mh) = view.layout.mcus();
        for (c, plane) in view.layout.planes.iter().enumerate() {
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
                    for (((px, &l), &b), &r) in out
                        .chunks_exact_mut(3)
                        .zip(yrow)
                        .zip(cb[0].iter())
                        .zip(cr[0].iter())
                    {
                        px.copy_from_slice(&ycbcr_to_rgb(l, b, r));
                    }
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

/// BT.601 full-range YCbCr to RGB in 14-bit fixed point.
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

    #[test]
    fn not_a_jpeg_is_an_error_not_a_crash() {
        let mut c = Coefficients::default();
        assert!(read_coefficients(b"not a jpeg", &mut c).is_err());
        // A JPEG's start, then nothing: libjpeg's own error, caught.
        let e = read_coefficients(&[0xFF, 0xD8, 0xFF, 0xE0, 0, 16], &mut c).unwrap_err();
        assert!(!e.reason.is_empty());
    }
}
