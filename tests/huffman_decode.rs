//! The safe Rust entropy decoder (`capture::huffman`) against libjpeg's
//! (`capture::blocks::read_coefficients`): the same quantised coefficients,
//! block for block, on every fixture photo, on frames made here with
//! libjpeg's and the `image` crate's encoders at several qualities, sizes
//! and samplings, grey, and with restart intervals (re-encoded here, as the
//! `mozjpeg` crate cannot ask for them); and no panic or hang on broken
//! data. `huffman_speed` (ignored) times both.

use std::path::{Path, PathBuf};
use std::time::Instant;

use image::{GrayImage, RgbImage};
use spotter::capture::blocks::{Coefficients, read_coefficients};
use spotter::capture::decode::{JpegDecoder, decode_jpeg};
use spotter::capture::huffman::{HuffError, decode_coefficients};
use spotter::vision::crowd::{Sampling, through_jpeg, webcam_jpeg, with_sensor_noise};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Every JPEG under `dir`, sorted.
fn jpegs_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).expect("fixture folder") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                todo.push(path);
            } else if path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| e.eq_ignore_ascii_case("jpg") || e.eq_ignore_ascii_case("jpeg"))
            {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Where two decodes differ, if they do; else the blocks compared.
fn difference(want: &Coefficients, got: &Coefficients) -> Result<usize, String> {
    let layout = |c: &Coefficients| (c.width, c.height, c.max_h, c.max_v, c.planes.len());
    if layout(want) != layout(got) {
        return Err(format!(
            "layout: libjpeg {:?}, ours {:?}",
            layout(want),
            layout(got)
        ));
    }
    let mut blocks = 0;
    for (c, (a, b)) in want.planes.iter().zip(&got.planes).enumerate() {
        let shape = |p: &spotter::capture::blocks::Plane| (p.h, p.v, p.bw, p.bh, p.blocks.len());
        if shape(a) != shape(b) {
            return Err(format!(
                "plane {c}: libjpeg {:?}, ours {:?}",
                shape(a),
                shape(b)
            ));
        }
        if a.quant != b.quant {
            return Err(format!("plane {c}: quantisation tables differ"));
        }
        for (i, (x, y)) in a.blocks.iter().zip(&b.blocks).enumerate() {
            if x != y {
                let k = (0..64).find(|&k| x[k] != y[k]).unwrap_or(0);
                return Err(format!(
                    "plane {c} block {i} ({}, {}): coefficient {k} libjpeg {} ours {}",
                    i % a.bw,
                    i / a.bw,
                    x[k],
                    y[k]
                ));
            }
        }
        blocks += a.blocks.len();
    }
    Ok(blocks)
}

/// Both decoders on `bytes`, which must agree; the blocks compared.
fn same_as_libjpeg(name: &str, bytes: &[u8]) -> usize {
    let mut want = Coefficients::default();
    read_coefficients(bytes, &mut want).unwrap_or_else(|e| panic!("{name}: libjpeg: {e}"));
    let mut got = Coefficients::default();
    decode_coefficients(bytes, &mut got).unwrap_or_else(|e| panic!("{name}: ours: {e}"));
    difference(&want, &got).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn photo() -> RgbImage {
    let bytes = std::fs::read(root().join("photoreal/cam01/frame-01.jpg")).expect("fixture");
    decode_jpeg(&bytes, JpegDecoder::Image).expect("decode")
}

/// A `w` x `h` piece of the photo (tiled when larger).
fn piece(photo: &RgbImage, w: u32, h: u32, seed: u64) -> RgbImage {
    let (x0, y0) = ((seed * 97) % 200, (seed * 53) % 150);
    RgbImage::from_fn(w, h, |x, y| {
        *photo.get_pixel(
            (x0 as u32 + x) % photo.width(),
            (y0 as u32 + y) % photo.height(),
        )
    })
}

/// `frame` through libjpeg (baseline, standard tables) with each
/// component's sampling factors given, or grey.
fn libjpeg_encode(frame: &RgbImage, quality: u8, factors: &[(u8, u8)]) -> Vec<u8> {
    let grey = factors.len() == 1;
    if grey && factors[0] != (1, 1) {
        // libjpeg will not write it, but a single-component scan codes its
        // blocks in the same order whatever the factors: patch the SOF.
        let mut bytes = libjpeg_encode(frame, quality, &[(1, 1)]);
        let sof = bytes
            .windows(2)
            .position(|w| w == [0xFF, 0xC0])
            .expect("SOF0");
        bytes[sof + 11] = factors[0].0 << 4 | factors[0].1;
        return bytes;
    }
    let mut comp = mozjpeg::Compress::new(if grey {
        mozjpeg::ColorSpace::JCS_GRAYSCALE
    } else {
        mozjpeg::ColorSpace::JCS_RGB
    });
    comp.set_fastest_defaults();
    comp.set_size(frame.width() as usize, frame.height() as usize);
    comp.set_quality(f32::from(quality));
    for (c, &(h, v)) in comp.components_mut().iter_mut().zip(factors) {
        c.h_samp_factor = i32::from(h);
        c.v_samp_factor = i32::from(v);
    }
    let pixels: Vec<u8> = if grey {
        image::DynamicImage::ImageRgb8(frame.clone())
            .to_luma8()
            .into_raw()
    } else {
        frame.as_raw().clone()
    };
    let mut started = comp.start_compress(Vec::new()).expect("start");
    started.write_scanlines(&pixels).expect("scanlines");
    started.finish().expect("finish")
}

// ---------------------------------------------------------------------------
// A baseline re-encoder, for restart intervals and frames without DHT.

/// A JPEG's marker segments before its scan: (marker, body).
fn segments(bytes: &[u8]) -> (Vec<(u8, Vec<u8>)>, usize) {
    let (mut out, mut pos) = (Vec::new(), 2);
    loop {
        assert_eq!(bytes[pos], 0xFF);
        let marker = bytes[pos + 1];
        let len = usize::from(bytes[pos + 2]) << 8 | usize::from(bytes[pos + 3]);
        out.push((marker, bytes[pos + 4..pos + 2 + len].to_vec()));
        pos += 2 + len;
        if marker == 0xDA {
            return (out, pos);
        }
    }
}

/// Huffman codes by symbol: (code, length).
fn huffman_codes(body: &[u8]) -> [(u32, u32); 256] {
    let mut codes = [(0, 0); 256];
    let (mut code, mut q) = (0u32, 17);
    for l in 1..=16 {
        for _ in 0..body[l] {
            codes[usize::from(body[q])] = (code, l as u32);
            code += 1;
            q += 1;
        }
        code <<= 1;
    }
    codes
}

struct BitWriter {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

impl BitWriter {
    fn put(&mut self, v: u32, len: u32) {
        self.acc = self.acc << len | u64::from(v) & ((1 << len) - 1);
        self.n += len;
        while self.n >= 8 {
            let b = (self.acc >> (self.n - 8)) as u8;
            self.out.push(b);
            if b == 0xFF {
                self.out.push(0);
            }
            self.n -= 8;
        }
    }

    fn align(&mut self) {
        if self.n > 0 {
            self.put(0x7F, 8 - self.n);
        }
    }

    fn symbol(&mut self, codes: &[(u32, u32); 256], sym: u8) {
        let (code, len) = codes[usize::from(sym)];
        assert!(len > 0, "symbol {sym:02X} has no code");
        self.put(code, len);
    }

    /// A value's magnitude category and bits.
    fn value(v: i32) -> (u8, u32) {
        let s = 32 - v.unsigned_abs().leading_zeros();
        let bits = if v < 0 { v - 1 } else { v } as u32;
        (s as u8, bits & ((1 << s) - 1))
    }
}

/// `bytes` (one interleaved or grey baseline scan) coded again from its
/// coefficients, with restart interval `restart` (MCUs; 0 for none), and
/// without its DHT markers when `drop_dht` (its tables must then be the
/// standard ones). Fill bytes go before every restart marker when `fill`.
fn reencode(bytes: &[u8], restart: u16, drop_dht: bool, fill: bool) -> Vec<u8> {
    let mut coefs = Coefficients::default();
    read_coefficients(bytes, &mut coefs).expect("libjpeg");
    let (segs, _) = segments(bytes);
    let mut dc_tables = vec![[(0, 0); 256]; 4];
    let mut ac_tables = vec![[(0, 0); 256]; 4];
    let mut out = vec![0xFF, 0xD8];
    for (marker, body) in &segs {
        if *marker == 0xC4 {
            let mut rest = &body[..];
            while !rest.is_empty() {
                let count: usize = rest[1..17].iter().map(|&b| usize::from(b)).sum();
                let codes = huffman_codes(&rest[..17 + count]);
                let slot = usize::from(rest[0] & 15);
                if rest[0] >> 4 == 0 {
                    dc_tables[slot] = codes;
                } else {
                    ac_tables[slot] = codes;
                }
                rest = &rest[17 + count..];
            }
            if drop_dht {
                continue;
            }
        }
        if *marker == 0xDA && restart > 0 {
            out.extend([0xFF, 0xDD, 0, 4]);
            out.extend(restart.to_be_bytes());
        }
        out.extend([0xFF, *marker]);
        out.extend(((body.len() + 2) as u16).to_be_bytes());
        out.extend(body);
    }
    let sos = &segs.last().expect("SOS").1;
    let n = usize::from(sos[0]);
    let sel: Vec<(usize, usize)> = (0..n)
        .map(|i| {
            (
                usize::from(sos[2 + 2 * i] >> 4),
                usize::from(sos[2 + 2 * i] & 15),
            )
        })
        .collect();
    let mut w = BitWriter {
        out: Vec::new(),
        acc: 0,
        n: 0,
    };
    let (grid_w, grid_h) = if n == 1 {
        (coefs.width.div_ceil(8), coefs.height.div_ceil(8))
    } else {
        coefs.mcus()
    };
    assert!(n > 1 || (coefs.planes[0].h, coefs.planes[0].v) == (1, 1));
    let mut preds = vec![0i32; n];
    let (mut count, mut rst) = (0usize, 0u8);
    for my in 0..grid_h {
        for mx in 0..grid_w {
            if restart > 0 && count > 0 && count % usize::from(restart) == 0 {
                w.align();
                if fill {
                    w.out.extend([0xFF, 0xFF]);
                }
                w.out.extend([0xFF, 0xD0 + rst]);
                rst = (rst + 1) & 7;
                preds.iter_mut().for_each(|p| *p = 0);
            }
            count += 1;
            for (c, plane) in coefs.planes.iter().enumerate() {
                let (h, v) = if n == 1 { (1, 1) } else { (plane.h, plane.v) };
                for dy in 0..v {
                    for dx in 0..h {
                        let block = &plane.blocks[(my * v + dy) * plane.bw + mx * h + dx];
                        encode_block(
                            &mut w,
                            block,
                            &mut preds[c],
                            &dc_tables[sel[c].0],
                            &ac_tables[sel[c].1],
                        );
                    }
                }
            }
        }
    }
    w.align();
    out.extend(w.out);
    out.extend([0xFF, 0xD9]);
    out
}

const ZIGZAG: [usize; 64] = [
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20,
    13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59,
    52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
];

fn encode_block(
    w: &mut BitWriter,
    block: &[i16; 64],
    pred: &mut i32,
    dc: &[(u32, u32); 256],
    ac: &[(u32, u32); 256],
) {
    let diff = i32::from(block[0]) - *pred;
    *pred = i32::from(block[0]);
    let (s, bits) = BitWriter::value(diff);
    w.symbol(dc, s);
    w.put(bits, u32::from(s));
    let mut run = 0u8;
    for &z in &ZIGZAG[1..] {
        let v = i32::from(block[z]);
        if v == 0 {
            run += 1;
            continue;
        }
        while run > 15 {
            w.symbol(ac, 0xF0);
            run -= 16;
        }
        let (s, bits) = BitWriter::value(v);
        w.symbol(ac, run << 4 | s);
        w.put(bits, u32::from(s));
        run = 0;
    }
    if run > 0 {
        w.symbol(ac, 0x00);
    }
}

// ---------------------------------------------------------------------------

#[test]
fn every_fixture_jpeg_decodes_to_libjpegs_coefficients() {
    let files = jpegs_under(&root());
    let mut blocks = 0;
    for f in &files {
        let bytes = std::fs::read(f).expect("fixture");
        blocks += same_as_libjpeg(&f.display().to_string(), &bytes);
    }
    println!(
        "{} fixture JPEGs, {blocks} blocks identical to libjpeg's",
        files.len()
    );
    assert!(!files.is_empty() && blocks > 0, "no fixture JPEGs compared");
}

#[test]
fn frames_of_every_encoder_quality_size_and_sampling_decode_as_libjpeg() {
    let photo = photo();
    let sizes = [(1001, 777), (17, 9), (8, 8), (1, 1), (33, 17), (640, 480)];
    let mut files = 0;
    let mut blocks = 0;
    let mut check = |name: String, bytes: &[u8]| {
        blocks += same_as_libjpeg(&name, bytes);
        files += 1;
    };
    for (k, &(w, h)) in sizes.iter().enumerate() {
        let frame = piece(&photo, w, h, k as u64);
        let noisy = with_sensor_noise(&frame, 2.0, k as u64 + 1);
        for quality in [50, 85, 95] {
            for (sampling, label) in [
                (Sampling::S422, "422"),
                (Sampling::S420, "420"),
                (Sampling::S444, "444 image crate"),
            ] {
                let bytes = webcam_jpeg(&noisy, quality, sampling).expect("jpeg");
                check(format!("{w}x{h} q{quality} {label}"), &bytes);
            }
            let (bytes, _) = through_jpeg(&frame, quality).expect("jpeg");
            check(format!("{w}x{h} q{quality} image crate"), &bytes);
            for factors in [
                &[(1, 2), (1, 1), (1, 1)][..],
                &[(2, 2), (1, 2), (2, 1)],
                &[(1, 1), (1, 1), (1, 1)],
                &[(1, 1)],
                &[(2, 2)],
                &[(1, 2)],
            ] {
                let bytes = libjpeg_encode(&noisy, quality, factors);
                check(format!("{w}x{h} q{quality} libjpeg {factors:?}"), &bytes);
            }
            let grey: GrayImage = image::DynamicImage::ImageRgb8(noisy.clone()).to_luma8();
            let mut bytes = Vec::new();
            image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, quality)
                .encode_image(&grey)
                .expect("grey jpeg");
            check(format!("{w}x{h} q{quality} grey image crate"), &bytes);
        }
    }
    println!("{files} encoded frames, {blocks} blocks identical to libjpeg's");
    assert!(files > 0 && blocks > 0);
}

#[test]
fn restart_intervals_and_frames_without_huffman_tables_decode_as_libjpeg() {
    let photo = photo();
    let mut files = 0;
    let mut blocks = 0;
    for (k, &(w, h)) in [(1001, 777), (17, 9), (8, 8), (1, 1), (250, 130)]
        .iter()
        .enumerate()
    {
        let frame = with_sensor_noise(&piece(&photo, w, h, k as u64), 2.0, 7);
        for (label, bytes) in [
            (
                "422",
                webcam_jpeg(&frame, 85, Sampling::S422).expect("jpeg"),
            ),
            (
                "420",
                webcam_jpeg(&frame, 60, Sampling::S420).expect("jpeg"),
            ),
            ("grey", libjpeg_encode(&frame, 90, &[(1, 1)])),
        ] {
            for restart in [0u16, 1, 3, 7, 64] {
                for (drop_dht, fill) in [(false, false), (true, false), (false, true)] {
                    let again = reencode(&bytes, restart, drop_dht, fill);
                    blocks += same_as_libjpeg(
                        &format!("{w}x{h} {label} restart {restart} no DHT {drop_dht} fill {fill}"),
                        &again,
                    );
                    files += 1;
                }
            }
        }
    }
    println!("{files} re-encoded frames, {blocks} blocks identical to libjpeg's");
    assert!(files > 0 && blocks > 0);
}

/// The offset just past the SOS segment.
fn scan_start(bytes: &[u8]) -> usize {
    segments(bytes).1
}

/// A small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Ours on `bytes`: an error, or (when it succeeds) libjpeg's coefficients.
/// Returns whether ours succeeded.
fn never_looser_than_libjpeg(name: &str, bytes: &[u8]) -> bool {
    let mut got = Coefficients::default();
    match decode_coefficients(bytes, &mut got) {
        Err(_) => false,
        Ok(()) => {
            let mut want = Coefficients::default();
            read_coefficients(bytes, &mut want)
                .unwrap_or_else(|e| panic!("{name}: ours decodes, libjpeg fails: {e}"));
            difference(&want, &got).unwrap_or_else(|e| panic!("{name}: {e}"));
            true
        }
    }
}

#[test]
fn broken_frames_are_errors_not_panics() {
    let photo = photo();
    let frame = with_sensor_noise(&piece(&photo, 321, 123, 3), 2.0, 5);
    let good = webcam_jpeg(&frame, 85, Sampling::S422).expect("jpeg");
    let restarts = reencode(&good, 5, false, false);
    let mut into = Coefficients::default();
    // Empty, the header alone, the start-of-image alone.
    for bytes in [&[][..], &good[..scan_start(&good)], &good[..2], &good[..4]] {
        assert!(decode_coefficients(bytes, &mut into).is_err());
    }
    // Cut anywhere in the header or the entropy data: an error. Only the
    // EOI may go.
    for bytes in [&good, &restarts] {
        let end = bytes.len() - 2;
        for cut in (0..end).step_by(7).chain(end - 40..end) {
            let r = decode_coefficients(&bytes[..cut], &mut into);
            assert!(r.is_err(), "cut at {cut} of {}", bytes.len());
        }
        for cut in end..=bytes.len() {
            assert!(never_looser_than_libjpeg(
                &format!("cut at {cut}"),
                &bytes[..cut]
            ));
        }
    }
    // Bytes changed in the entropy data and in the header: never a panic,
    // and a success gives libjpeg's coefficients.
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    let (mut ok, mut tried) = (0, 0);
    for bytes in [&good, &restarts] {
        let start = scan_start(bytes);
        for trial in 0..400 {
            let mut bad = bytes.to_vec();
            let in_header = trial % 4 == 0;
            for _ in 0..1 + rng.below(3) {
                let i = if in_header {
                    2 + rng.below(start - 2)
                } else {
                    start + rng.below(bad.len() - start - 2)
                };
                if trial % 2 == 0 {
                    bad[i] ^= 1 << rng.below(8);
                } else {
                    bad[i] = rng.next() as u8;
                }
            }
            ok += usize::from(never_looser_than_libjpeg(&format!("trial {trial}"), &bad));
            tried += 1;
        }
    }
    println!("{tried} damaged frames, {ok} decoded (as libjpeg), the rest errors");
    // Marker lengths past the end, huge sizes, garbage after the SOI.
    let mut huge = good.clone();
    let sof = huge
        .windows(2)
        .position(|w| w == [0xFF, 0xC0])
        .expect("SOF0");
    huge[sof + 5..sof + 9].copy_from_slice(&[0xFF, 0xDC, 0xFF, 0xDC]);
    let r = decode_coefficients(&huge, &mut into);
    println!("65500x65500 in {} bytes: {r:?}", huge.len());
    assert!(matches!(r, Err(HuffError::Corrupt(_))));
    let mut long = good[..20].to_vec();
    long.extend([0xFF, 0xFE, 0xFF, 0xFF, 1, 2, 3]);
    assert!(decode_coefficients(&long, &mut into).is_err());
    for seed in 0..200u64 {
        let mut rng = Rng(seed * 0x9E37_79B9 + 1);
        let mut junk = vec![0xFF, 0xD8];
        junk.extend((0..rng.below(3000)).map(|_| rng.next() as u8));
        never_looser_than_libjpeg("junk", &junk);
    }
    // Progressive: unsupported (the caller asks libjpeg).
    let mut comp = mozjpeg::Compress::new(mozjpeg::ColorSpace::JCS_RGB);
    comp.set_size(frame.width() as usize, frame.height() as usize);
    comp.set_progressive_mode();
    let mut started = comp.start_compress(Vec::new()).expect("start");
    started.write_scanlines(frame.as_raw()).expect("scanlines");
    let progressive = started.finish().expect("finish");
    assert!(matches!(
        decode_coefficients(&progressive, &mut into),
        Err(HuffError::Unsupported(_))
    ));
}

#[test]
fn a_frame_of_the_same_size_reuses_the_buffers() {
    let photo = photo();
    let a = webcam_jpeg(&piece(&photo, 320, 240, 1), 85, Sampling::S422).expect("jpeg");
    let b = webcam_jpeg(&piece(&photo, 320, 240, 2), 85, Sampling::S422).expect("jpeg");
    let mut into = Coefficients::default();
    decode_coefficients(&a, &mut into).expect("decode");
    let ptrs: Vec<*const [i16; 64]> = into.planes.iter().map(|p| p.blocks.as_ptr()).collect();
    decode_coefficients(&b, &mut into).expect("decode");
    let again: Vec<*const [i16; 64]> = into.planes.iter().map(|p| p.blocks.as_ptr()).collect();
    assert_eq!(ptrs, again, "no new buffers");
    let mut want = Coefficients::default();
    read_coefficients(&b, &mut want).expect("libjpeg");
    difference(&want, &into).expect("same as libjpeg after reuse");
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

#[test]
#[ignore = "a measurement: run with --ignored --nocapture, pinned to one core"]
fn huffman_speed() {
    let frame = photo();
    let noisy = with_sensor_noise(&frame, 2.0, 1);
    let bytes = webcam_jpeg(&noisy, 85, Sampling::S422).expect("jpeg");
    let runs = 60;
    let mut libjpeg = Coefficients::default();
    let mut ours = Coefficients::default();
    read_coefficients(&bytes, &mut libjpeg).expect("libjpeg");
    decode_coefficients(&bytes, &mut ours).expect("ours");
    difference(&libjpeg, &ours).expect("identical");
    let time = |f: &mut dyn FnMut()| {
        let mut ms: Vec<f64> = (0..runs)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        ms.sort_by(f64::total_cmp);
        (percentile(&ms, 0.5), percentile(&ms, 0.95))
    };
    let (lm, lp) = time(&mut || read_coefficients(&bytes, &mut libjpeg).expect("libjpeg"));
    let (om, op) = time(&mut || decode_coefficients(&bytes, &mut ours).expect("ours"));
    println!(
        "{}x{} 4:2:2 q85 noise 2.0, {:.0} kB, {runs} runs: libjpeg read_coefficients median {lm:.3} ms p95 {lp:.3} ms; huffman::decode_coefficients median {om:.3} ms p95 {op:.3} ms ({:.2}x)",
        noisy.width(),
        noisy.height(),
        bytes.len() as f64 / 1000.0,
        lm / om
    );
}
