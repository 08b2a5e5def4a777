//! A baseline JPEG's quantised DCT coefficients, decoded in safe Rust: the
//! entropy (Huffman) pass of libjpeg's `jpeg_read_coefficients`, with
//! exactly its output ([`super::blocks::read_coefficients`] is the
//! reference), at about half its time.
//!
//! # What it reads
//! Baseline and extended sequential (SOF0, SOF1) 8-bit Huffman JPEGs, grey
//! or YCbCr in one interleaved scan, sampling factors 1 or 2: what webcams'
//! MJPEG and the usual encoders write. DQT (8- and 16-bit), DHT (and
//! libjpeg's standard tables in slots 0 and 1 when a frame defines none, as
//! MJPEG frames often do), DRI and RSTn, byte stuffing, fill bytes, APPn and
//! COM. Anything else is [`HuffError::Unsupported`], so that the caller can
//! hand the frame to libjpeg: progressive, arithmetic, lossless or
//! hierarchical coding, 12-bit samples, colour in several scans, sampling
//! factors 3 or 4, 2 or more than 3 components, an RGB colour space (libjpeg's
//! reader refuses it too).
//!
//! # The same coefficients as libjpeg
//! - The Huffman decode is libjpeg's, corrupt codes included: a bit pattern
//!   that is no code costs 17 bits and decodes as symbol 0 (a DC difference
//!   of 0, an end of block); a run past the 64th coefficient writes the last
//!   one (libjpeg's extra entries of `jpeg_natural_order`); DC predictions
//!   wrap as libjpeg's `int` stored in a 16-bit coefficient.
//! - Blocks are padded as libjpeg's coefficient arrays are: an interleaved
//!   scan codes whole MCUs (the padding blocks hold what the encoder wrote),
//!   a single-component scan codes only the component's blocks and the
//!   padding to whole MCUs of `max_h x max_v` is zero.
//! - Truncated entropy data (the data, or a restart interval, ends before
//!   its last block: libjpeg then warns and fills the rest with zeros) is
//!   [`HuffError::Corrupt`], as are restart markers out of order, extra
//!   bytes before a restart marker and a second scan. So is any header
//!   libjpeg would refuse. The decoder may be stricter than libjpeg, never
//!   looser: when it returns `Ok`, libjpeg gives the same coefficients.
//!
//! # Speed
//! A 64-bit bit buffer refilled up to seven bytes at a time when the next
//! eight hold no 0xFF; per table a lookup of [`FAST_BITS`] bits that, for AC,
//! yields a coefficient's run, value and the total bits (code and magnitude)
//! at once, and for DC the difference; an end of block is a run past the
//! block's end; each block is zeroed just before it is decoded.

use super::blocks::{Coefficients, Plane};

/// Why a frame could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HuffError {
    /// A JPEG this decoder does not read (libjpeg may).
    #[error("unsupported JPEG: {0}")]
    Unsupported(String),
    /// Broken or truncated data.
    #[error("corrupt JPEG: {0}")]
    Corrupt(String),
}

fn corrupt<T>(reason: impl Into<String>) -> Result<T, HuffError> {
    Err(HuffError::Corrupt(reason.into()))
}

fn unsupported<T>(reason: impl Into<String>) -> Result<T, HuffError> {
    Err(HuffError::Unsupported(reason.into()))
}

/// Bits of a table lookup.
pub const FAST_BITS: u32 = 10;
const FAST_SIZE: usize = 1 << FAST_BITS;

/// The most blocks a frame may hold (an 8K 4:4:4 frame has 1.6 million).
const MAX_BLOCKS: usize = 1 << 22;

/// libjpeg's limit on either dimension.
const MAX_DIMENSION: usize = 65500;

/// libjpeg's limit on the blocks of an MCU.
const MAX_BLOCKS_IN_MCU: usize = 10;

/// Zig-zag position to natural (row-major) position.
const ZIGZAG: [u8; 64] = [
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20,
    13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59,
    52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
];

/// [`ZIGZAG`] extended to 256 entries: past the block's end, the last
/// coefficient (libjpeg's `jpeg_natural_order` has the same extra entries,
/// which corrupt runs reach; an end of block is a run past the end).
const NATURAL: [u8; 256] = {
    let mut t = [63u8; 256];
    let mut i = 0;
    while i < 64 {
        t[i] = ZIGZAG[i];
        i += 1;
    }
    t
};

/// An AC entry's run for an end of block: past the block's end.
const EOB_RUN: u32 = 64;

// ---------------------------------------------------------------------------
// Bit reader

/// The entropy-coded data, most significant bit first. `Copy`, and its
/// cold paths take and return it by value, so that the decoding loop keeps
/// it in registers.
#[derive(Debug, Clone, Copy)]
struct Bits<'a> {
    data: &'a [u8],
    /// The next byte to load.
    pos: usize,
    /// Loaded bits, left-aligned; the bits below `nbits` are zero.
    buf: u64,
    nbits: u32,
    /// Zero bits loaded past the end of the data (a marker or the end of
    /// the file): the last `pad` loaded bits.
    pad: u64,
    /// `pos` is at a marker's first 0xFF, or at the end of the data.
    at_marker: bool,
}

/// Whether any byte of `x` is 0xFF.
#[inline(always)]
fn has_ff(x: u64) -> bool {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    ((!x).wrapping_sub(LOW) & x & HIGH) != 0
}

/// A JPEG magnitude of `s` bits (1..=16) as a signed value.
#[inline(always)]
fn extend(v: u32, s: u32) -> i32 {
    let v = v as i32;
    if v < 1 << (s - 1) {
        v - (1 << s) + 1
    } else {
        v
    }
}

impl<'a> Bits<'a> {
    fn new(data: &'a [u8], pos: usize) -> Self {
        Self {
            data,
            pos,
            buf: 0,
            nbits: 0,
            pad: 0,
            at_marker: false,
        }
    }

    /// Loads bytes until more than 56 bits are held.
    #[inline(always)]
    fn refill(&mut self) {
        if let Some(chunk) = self.data.get(self.pos..self.pos + 8) {
            let mut b = [0u8; 8];
            b.copy_from_slice(chunk);
            let x = u64::from_be_bytes(b);
            if !has_ff(x) {
                let take = (63 - self.nbits) >> 3;
                let n = self.nbits + 8 * take;
                self.buf |= (x >> self.nbits) & !(u64::MAX >> n);
                self.nbits = n;
                self.pos += take as usize;
                return;
            }
        }
        *self = self.refill_slow();
    }

    /// [`Self::refill`] a byte at a time: stuffed bytes, fill bytes, and
    /// zeros past a marker or the end of the data (counted in `pad`).
    #[inline(never)]
    #[must_use]
    fn refill_slow(mut self) -> Self {
        while self.nbits <= 56 {
            let byte = if self.at_marker {
                None
            } else {
                match self.data.get(self.pos) {
                    None => None,
                    Some(0xFF) => {
                        // libjpeg: FF (FF)* 00 is a data byte FF; FF (FF)* xx
                        // is a marker.
                        let mut p = self.pos + 1;
                        while self.data.get(p) == Some(&0xFF) {
                            p += 1;
                        }
                        if self.data.get(p) == Some(&0) {
                            self.pos = p + 1;
                            Some(0xFF)
                        } else {
                            None
                        }
                    }
                    Some(&b) => {
                        self.pos += 1;
                        Some(b)
                    }
                }
            };
            let byte = match byte {
                Some(b) => b,
                None => {
                    self.at_marker = true;
                    self.pad += 8;
                    0
                }
            };
            self.buf |= u64::from(byte) << (56 - self.nbits);
            self.nbits += 8;
        }
        self
    }

    /// The next `n` bits (1..=32); at least `n` must be held.
    #[inline(always)]
    fn peek(&self, n: u32) -> u32 {
        (self.buf >> (64 - n)) as u32
    }

    #[inline(always)]
    fn consume(&mut self, n: u32) {
        self.buf <<= n;
        self.nbits -= n;
    }

    #[inline(always)]
    fn get(&mut self, n: u32) -> u32 {
        let v = self.peek(n);
        self.consume(n);
        v
    }

    /// Whether bits past the end of the data were read.
    fn overran(&self) -> bool {
        u64::from(self.nbits) < self.pad
    }

    /// Past a restart interval: the data must end in this byte, and the
    /// marker RST`num` follow (after fill bytes).
    #[inline(never)]
    fn restart(self, num: u8) -> Result<Self, HuffError> {
        if self.overran() {
            return corrupt("the entropy data ends inside a restart interval");
        }
        if u64::from(self.nbits) - self.pad >= 8 {
            return corrupt("extra bytes before a restart marker");
        }
        let mut p = self.pos;
        if self.data.get(p) != Some(&0xFF) {
            return corrupt(format!("no restart marker RST{num} where expected"));
        }
        while self.data.get(p) == Some(&0xFF) {
            p += 1;
        }
        match self.data.get(p) {
            Some(&m) if m == 0xD0 + num => {}
            Some(&m) => return corrupt(format!("marker {m:02X} where RST{num} was expected")),
            None => return corrupt("the data ends where a restart marker was expected"),
        }
        Ok(Self::new(self.data, p + 1))
    }
}

// ---------------------------------------------------------------------------
// Huffman tables

/// A DHT table as the file gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct RawHuff {
    /// Codes per length, `bits[1..=16]`.
    bits: [u8; 17],
    /// Symbols in code order; zero past the table's count.
    vals: [u8; 256],
}

impl RawHuff {
    fn new(bits: &[u8; 17], vals: &[u8]) -> Self {
        let mut v = [0u8; 256];
        let n = vals.len().min(256);
        v[..n].copy_from_slice(&vals[..n]);
        Self {
            bits: *bits,
            vals: v,
        }
    }
}

/// libjpeg's standard tables (JPEG standard K.3), which it puts in slots 0
/// and 1 when a frame has not defined them (Motion JPEG).
fn standard_table(ac: bool, slot: usize) -> RawHuff {
    const DC_LUMA_BITS: [u8; 17] = [0, 0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0];
    const DC_CHROMA_BITS: [u8; 17] = [0, 0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0];
    const DC_VALS: [u8; 12] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
    const AC_LUMA_BITS: [u8; 17] = [0, 0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d];
    const AC_LUMA_VALS: [u8; 162] = [
        0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61,
        0x07, 0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xa1, 0x08, 0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52,
        0xd1, 0xf0, 0x24, 0x33, 0x62, 0x72, 0x82, 0x09, 0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x25,
        0x26, 0x27, 0x28, 0x29, 0x2a, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45,
        0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64,
        0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x83,
        0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99,
        0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6,
        0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3,
        0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8,
        0xe9, 0xea, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa,
    ];
    const AC_CHROMA_BITS: [u8; 17] = [0, 0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77];
    const AC_CHROMA_VALS: [u8; 162] = [
        0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61,
        0x71, 0x13, 0x22, 0x32, 0x81, 0x08, 0x14, 0x42, 0x91, 0xa1, 0xb1, 0xc1, 0x09, 0x23, 0x33,
        0x52, 0xf0, 0x15, 0x62, 0x72, 0xd1, 0x0a, 0x16, 0x24, 0x34, 0xe1, 0x25, 0xf1, 0x17, 0x18,
        0x19, 0x1a, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44,
        0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63,
        0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a,
        0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97,
        0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4,
        0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca,
        0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7,
        0xe8, 0xe9, 0xea, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa,
    ];
    match (ac, slot) {
        (false, 0) => RawHuff::new(&DC_LUMA_BITS, &DC_VALS),
        (false, _) => RawHuff::new(&DC_CHROMA_BITS, &DC_VALS),
        (true, 0) => RawHuff::new(&AC_LUMA_BITS, &AC_LUMA_VALS),
        (true, _) => RawHuff::new(&AC_CHROMA_BITS, &AC_CHROMA_VALS),
    }
}

/// A Huffman table ready to decode (libjpeg's `d_derived_tbl`).
#[derive(Debug, Clone)]
struct HuffTable {
    /// Per [`FAST_BITS`]-bit peek: `length << 8 | symbol` of the code it
    /// starts with, or 0 when that code is longer (or no code).
    fast: [u16; FAST_SIZE],
    /// Per length, the largest code (-1: none); `[17]` ends every search.
    maxcode: [i32; 18],
    /// Per length, the index in `vals` of its first code, less that code.
    valoffset: [i32; 18],
    vals: [u8; 256],
}

impl Default for HuffTable {
    fn default() -> Self {
        Self {
            fast: [0; FAST_SIZE],
            maxcode: [-1; 18],
            valoffset: [0; 18],
            vals: [0; 256],
        }
    }
}

impl HuffTable {
    /// libjpeg's `jpeg_make_d_derived_tbl`, with its checks.
    fn new(raw: &RawHuff, dc: bool) -> Result<Self, HuffError> {
        let mut sizes = [0u8; 257];
        let mut codes = [0u32; 257];
        let mut n = 0;
        for l in 1..=16u8 {
            let count = usize::from(raw.bits[usize::from(l)]);
            if n + count > 256 {
                return corrupt("a Huffman table of more than 256 codes");
            }
            sizes[n..n + count].fill(l);
            n += count;
        }
        let (mut code, mut si, mut p) = (0u32, u32::from(sizes[0]), 0);
        while sizes[p] != 0 {
            while u32::from(sizes[p]) == si {
                codes[p] = code;
                p += 1;
                code += 1;
            }
            if code >= 1 << si {
                return corrupt("a Huffman table whose codes overflow");
            }
            code <<= 1;
            si += 1;
        }
        if dc && raw.vals[..n].iter().any(|&s| s > 15) {
            return corrupt("a DC Huffman table with a symbol over 15");
        }
        let mut t = Self {
            vals: raw.vals,
            ..Self::default()
        };
        let mut p = 0usize;
        for l in 1..=16 {
            let count = usize::from(raw.bits[l]);
            if count > 0 {
                t.valoffset[l] = p as i32 - codes[p] as i32;
                p += count;
                t.maxcode[l] = codes[p - 1] as i32;
            }
        }
        t.maxcode[17] = i32::MAX;
        for q in 0..n {
            let l = u32::from(sizes[q]);
            if l <= FAST_BITS {
                let base = (codes[q] << (FAST_BITS - l)) as usize;
                let entry = (l as u16) << 8 | u16::from(raw.vals[q]);
                t.fast[base..base + (1 << (FAST_BITS - l))].fill(entry);
            }
        }
        Ok(t)
    }

    /// The next symbol (at least 32 bits must be held).
    #[inline(always)]
    fn decode(&self, bits: &mut Bits) -> u8 {
        let e = self.fast[bits.peek(FAST_BITS) as usize & (FAST_SIZE - 1)];
        if e != 0 {
            bits.consume(u32::from(e >> 8));
            return e as u8;
        }
        let (sym, after) = self.decode_long(*bits);
        *bits = after;
        sym
    }

    /// A code longer than [`FAST_BITS`], as libjpeg reads it: a pattern
    /// that is no code costs 17 bits and is symbol 0.
    #[inline(never)]
    fn decode_long<'a>(&self, mut bits: Bits<'a>) -> (u8, Bits<'a>) {
        for l in FAST_BITS + 1..=16 {
            let code = bits.peek(l) as i32;
            if code <= self.maxcode[l as usize] {
                bits.consume(l);
                let i = (code + self.valoffset[l as usize]) & 0xFF;
                return (self.vals[i as usize], bits);
            }
        }
        bits.consume(17);
        (0, bits)
    }
}

/// A table entry flag: the code is in the table but its magnitude bits
/// do not all fit in the peek (`SLOW | size << 16 | run << 8 | code
/// length`, the value read by [`magnitude`]), or, alone, the code is
/// longer than the peek (or no code).
const SLOW: u32 = 0x8000;

/// A table entry for a code of at most [`FAST_BITS`] bits that are
/// followed by `size` magnitude bits, all within the peek `p`: `value << 16
/// | run << 8 | code length + size`; else a [`SLOW`] entry.
fn entry(p: usize, run: u32, size: u32, code_len: u32) -> u32 {
    if code_len + size > FAST_BITS {
        return SLOW | size << 16 | run << 8 | code_len;
    }
    let v = if size == 0 {
        0
    } else {
        extend(
            (p as u32 >> (FAST_BITS - code_len - size)) & ((1 << size) - 1),
            size,
        )
    };
    u32::from(v as u16) << 16 | run << 8 | (code_len + size)
}

/// The magnitude of `size` bits (0..=15) that follows a code of
/// `code_len` bits at the top of `buf`, as a signed value (0 when `size`
/// is 0).
#[inline(always)]
fn magnitude(buf: u64, code_len: u32, size: u32) -> i32 {
    let t = buf << code_len;
    let raw = ((t >> 1) >> (63 - size)) as i32;
    let half = (1i32 << size) >> 1;
    if raw < half {
        raw - (1 << size) + 1
    } else {
        raw
    }
}

/// A DC table: per peek, [`entry`] (run 0).
#[derive(Debug, Clone)]
struct DcTable {
    huff: HuffTable,
    fast: [u32; FAST_SIZE],
}

/// An AC table: per peek, [`entry`]. A zero run (ZRL) is a run of 15 and
/// a value 0, an end of block a run of [`EOB_RUN`]: both write a zero
/// where it is harmless.
///
/// `pair` decodes two symbols in one lookup when both fit in the peek:
/// `v2 << 48 | v1 << 32 | run2 << 24 | run1 << 16 | len2 << 8 | len1`
/// (lengths with magnitudes; `run2` as an `i8`); when only the first fits,
/// the second is -1, `v1`, 0: it writes the first again. `len1` 0: look
/// in `fast`.
#[derive(Debug, Clone)]
struct AcTable {
    huff: HuffTable,
    fast: [u32; FAST_SIZE],
    pair: [u64; FAST_SIZE],
}

impl Default for DcTable {
    fn default() -> Self {
        Self {
            huff: HuffTable::default(),
            fast: [0; FAST_SIZE],
        }
    }
}

impl Default for AcTable {
    fn default() -> Self {
        Self {
            huff: HuffTable::default(),
            fast: [0; FAST_SIZE],
            pair: [0; FAST_SIZE],
        }
    }
}

impl DcTable {
    fn new(raw: &RawHuff) -> Result<Self, HuffError> {
        let huff = HuffTable::new(raw, true)?;
        let mut fast = [SLOW; FAST_SIZE];
        for (p, (f, &e)) in fast.iter_mut().zip(&huff.fast).enumerate() {
            if e != 0 {
                *f = entry(p, 0, u32::from(e & 0xFF), u32::from(e >> 8));
            }
        }
        Ok(Self { huff, fast })
    }

    /// The next DC difference (at least 32 bits must be held).
    #[inline(always)]
    fn decode(&self, bits: &mut Bits) -> i32 {
        let e = self.fast[bits.peek(FAST_BITS) as usize & (FAST_SIZE - 1)];
        if e & SLOW == 0 {
            bits.consume(e & 0xFF);
            return i32::from((e >> 16) as u16 as i16);
        }
        if e != SLOW {
            let (l, s) = (e & 0xFF, e >> 16);
            let v = magnitude(bits.buf, l, s);
            bits.consume(l + s);
            return v;
        }
        let s = u32::from(self.huff.decode(bits));
        if s == 0 { 0 } else { extend(bits.get(s), s) }
    }
}

impl AcTable {
    fn new(raw: &RawHuff) -> Result<Self, HuffError> {
        let huff = HuffTable::new(raw, false)?;
        let mut fast = [SLOW; FAST_SIZE];
        for (p, (f, &e)) in fast.iter_mut().zip(&huff.fast).enumerate() {
            if e == 0 {
                continue;
            }
            let (l, sym) = (u32::from(e >> 8), u32::from(e & 0xFF));
            let (run, s) = (sym >> 4, sym & 15);
            *f = match (s, run) {
                (0, 15) => entry(p, 15, 0, l),
                (0, _) => entry(p, EOB_RUN, 0, l),
                _ => entry(p, run, s, l),
            };
        }
        let mut pair = [0u64; FAST_SIZE];
        for (p, q) in pair.iter_mut().enumerate() {
            let e1 = fast[p];
            if e1 & SLOW != 0 {
                continue;
            }
            let (l1, r1, v1) = (e1 & 0xFF, (e1 >> 8) & 0xFF, e1 >> 16);
            // The second symbol, from the bits after the first; its entry
            // holds when its code and magnitude are among them.
            let e2 = fast[(p << l1) & (FAST_SIZE - 1)];
            let second = if e2 & SLOW == 0 && (e2 & 0xFF) <= FAST_BITS - l1 {
                (e2 & 0xFF, (e2 >> 8) & 0xFF, e2 >> 16)
            } else {
                (0, 0xFF, v1)
            };
            let (l2, r2, v2) = second;
            *q = u64::from(v2) << 48
                | u64::from(v1) << 32
                | u64::from(r2) << 24
                | u64::from(r1) << 16
                | u64::from(l2) << 8
                | u64::from(l1);
        }
        Ok(Self { huff, fast, pair })
    }
}

// ---------------------------------------------------------------------------
// Blocks

/// One block: DC difference added to `pred`, then the AC coefficients in
/// natural order.
#[inline(always)]
fn decode_block(bits: &mut Bits, dc: &DcTable, ac: &AcTable, pred: &mut i32, out: &mut [i16; 64]) {
    *out = [0; 64];
    if bits.nbits < 32 {
        bits.refill();
    }
    *pred = pred.wrapping_add(dc.decode(bits));
    out[0] = *pred as i16;
    let mut k = 1usize;
    while k < 64 {
        if bits.nbits < 32 {
            bits.refill();
        }
        let peek = bits.peek(FAST_BITS) as usize & (FAST_SIZE - 1);
        let e = ac.pair[peek];
        if e & 0xFF != 0 {
            // One or two symbols; the second only if the first did not end
            // the block (else it writes the first's value again).
            let (l1, l2) = ((e & 0xFF) as u32, ((e >> 8) & 0xFF) as u32);
            let (r1, r2) = (((e >> 16) & 0xFF) as usize, (e >> 24) as u8 as i8 as isize);
            let (v1, v2) = ((e >> 32) as u16 as i16, (e >> 48) as u16 as i16);
            k += r1;
            out[usize::from(NATURAL[k & 255]) & 63] = v1;
            k += 1;
            let ended = k >= 64;
            let len = if ended { l1 } else { l1 + l2 };
            let v2 = if ended { v1 } else { v2 };
            bits.consume(len);
            k = k.wrapping_add_signed(r2);
            out[usize::from(NATURAL[k & 255]) & 63] = v2;
            k += 1;
            continue;
        }
        let e = ac.fast[peek];
        if e & SLOW == 0 {
            bits.consume(e & 0xFF);
            k += ((e >> 8) & 0xFF) as usize;
            out[usize::from(NATURAL[k & 255]) & 63] = (e >> 16) as u16 as i16;
            k += 1;
        } else if e != SLOW {
            // The code is in the table, its magnitude past the peek.
            let (l, s) = (e & 0xFF, (e >> 16) & 0xFF);
            let v = magnitude(bits.buf, l, s);
            bits.consume(l + s);
            k += ((e >> 8) & 0x7F) as usize;
            out[usize::from(NATURAL[k & 255]) & 63] = v as i16;
            k += 1;
        } else {
            let sym = u32::from(ac.huff.decode(bits));
            let (run, s) = ((sym >> 4) as usize, sym & 15);
            if s != 0 {
                k += run;
                let v = extend(bits.get(s), s);
                out[usize::from(NATURAL[k & 255]) & 63] = v as i16;
                k += 1;
            } else if run == 15 {
                k += 16;
            } else {
                break;
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Markers

/// A frame component (SOF).
#[derive(Debug, Clone, Copy, Default)]
struct Component {
    id: u8,
    h: usize,
    v: usize,
    tq: usize,
}

/// One component of the scan: its index in the frame and its tables.
#[derive(Debug, Clone, Copy, Default)]
struct ScanComponent {
    comp: usize,
    td: usize,
    ta: usize,
}

/// The tables and settings defined so far.
#[derive(Debug, Clone, Default)]
struct Tables {
    quant: [Option<[u16; 64]>; 4],
    dc: [Option<RawHuff>; 4],
    ac: [Option<RawHuff>; 4],
    restart: usize,
}

/// Everything up to the first scan's data.
#[derive(Debug, Clone, Default)]
struct Header {
    width: usize,
    height: usize,
    /// `ncomps` components (the frame header's), then unused.
    comps: [Component; 3],
    ncomps: usize,
    tables: Tables,
    jfif: bool,
    adobe_transform: Option<u8>,
    /// `nscan` components in the scan.
    scan: [ScanComponent; 4],
    nscan: usize,
    /// The first byte of the entropy-coded data.
    data_start: usize,
}

/// The next marker from `pos`, as libjpeg's `next_marker` finds it
/// (skipping stray bytes, fill bytes and stuffed zeros): its code and the
/// position after it.
fn next_marker(data: &[u8], mut pos: usize) -> Option<(u8, usize)> {
    loop {
        while *data.get(pos)? != 0xFF {
            pos += 1;
        }
        while *data.get(pos)? == 0xFF {
            pos += 1;
        }
        let c = *data.get(pos)?;
        pos += 1;
        if c != 0 {
            return Some((c, pos));
        }
    }
}

/// The body of the marker segment whose length field is at `pos`, and the
/// position after it.
fn segment(data: &[u8], pos: usize, marker: u8) -> Result<(&[u8], usize), HuffError> {
    let (Some(&a), Some(&b)) = (data.get(pos), data.get(pos + 1)) else {
        return corrupt(format!("the data ends in marker {marker:02X}"));
    };
    let len = usize::from(a) << 8 | usize::from(b);
    if len < 2 {
        return corrupt(format!("marker {marker:02X} of length {len}"));
    }
    match data.get(pos + 2..pos + len) {
        Some(body) => Ok((body, pos + len)),
        None => corrupt(format!("marker {marker:02X} runs past the end of the data")),
    }
}

fn be16(b: &[u8], i: usize) -> usize {
    usize::from(b[i]) << 8 | usize::from(b[i + 1])
}

/// DQT: one or more tables, 8- or 16-bit, zig-zag order.
fn read_dqt(body: &[u8], tables: &mut Tables) -> Result<(), HuffError> {
    let mut rest = body;
    while let Some((&pq, after)) = rest.split_first() {
        let (wide, slot) = (pq >> 4 != 0, usize::from(pq & 15));
        if slot >= 4 {
            return corrupt(format!("quantisation table {slot}"));
        }
        let size = if wide { 128 } else { 64 };
        let Some(values) = after.get(..size) else {
            return corrupt("a DQT marker of the wrong length");
        };
        let mut q = [0u16; 64];
        for (i, &z) in ZIGZAG.iter().enumerate() {
            q[usize::from(z)] = if wide {
                u16::from(values[2 * i]) << 8 | u16::from(values[2 * i + 1])
            } else {
                u16::from(values[i])
            };
        }
        tables.quant[slot] = Some(q);
        rest = &after[size..];
    }
    Ok(())
}

/// DHT: one or more tables.
fn read_dht(body: &[u8], tables: &mut Tables) -> Result<(), HuffError> {
    let mut rest = body;
    while rest.len() > 16 {
        let index = rest[0];
        let mut bits = [0u8; 17];
        bits[1..].copy_from_slice(&rest[1..17]);
        let count: usize = bits.iter().map(|&b| usize::from(b)).sum();
        let Some(vals) = rest.get(17..17 + count).filter(|_| count <= 256) else {
            return corrupt("a bad Huffman table (DHT)");
        };
        let raw = RawHuff::new(&bits, vals);
        let slot = usize::from(index & 0x0F);
        match index & 0xF0 {
            0x00 if slot < 4 => tables.dc[slot] = Some(raw),
            0x10 if slot < 4 => tables.ac[slot] = Some(raw),
            _ => return corrupt(format!("Huffman table index {index:02X}")),
        }
        rest = &rest[17 + count..];
    }
    if !rest.is_empty() {
        return corrupt("a DHT marker of the wrong length");
    }
    Ok(())
}

fn read_dri(body: &[u8], tables: &mut Tables) -> Result<(), HuffError> {
    if body.len() != 2 {
        return corrupt("a DRI marker of the wrong length");
    }
    tables.restart = be16(body, 0);
    Ok(())
}

fn read_sof(body: &[u8], head: &mut Header) -> Result<(), HuffError> {
    if head.ncomps > 0 {
        return corrupt("two frame headers (SOF)");
    }
    let Some(&n) = body.get(5) else {
        return corrupt("a short frame header (SOF)");
    };
    let (precision, height, width) = (body[0], be16(body, 1), be16(body, 3));
    if width == 0 || height == 0 || n == 0 {
        return corrupt("an empty image");
    }
    if body.len() != 6 + 3 * usize::from(n) {
        return corrupt("a frame header (SOF) of the wrong length");
    }
    if precision != 8 {
        return unsupported(format!("{precision}-bit samples"));
    }
    if n != 1 && n != 3 {
        return unsupported(format!("{n} components"));
    }
    if width > MAX_DIMENSION || height > MAX_DIMENSION {
        return corrupt(format!("{width}x{height} is past libjpeg's limit"));
    }
    for (i, c) in body[6..].chunks_exact(3).enumerate() {
        let (h, v) = (usize::from(c[1] >> 4), usize::from(c[1] & 15));
        if !(1..=4).contains(&h) || !(1..=4).contains(&v) {
            return corrupt(format!("sampling factors {h}x{v}"));
        }
        if h > 2 || v > 2 {
            return unsupported(format!("sampling factors {h}x{v}"));
        }
        head.comps[i] = Component {
            id: c[0],
            h,
            v,
            tq: usize::from(c[2]),
        };
    }
    head.ncomps = usize::from(n);
    head.width = width;
    head.height = height;
    Ok(())
}

/// SOS, with libjpeg's matching of component identifiers.
fn read_sos(body: &[u8], head: &mut Header) -> Result<(), HuffError> {
    if head.ncomps == 0 {
        return corrupt("a scan (SOS) before the frame header (SOF)");
    }
    let n = usize::from(*body.first().unwrap_or(&0));
    if !(1..=4).contains(&n) || body.len() != 4 + 2 * n {
        return corrupt("a scan header (SOS) of the wrong length");
    }
    let searched = head.ncomps.min(4);
    let mut taken = [false; 4];
    for i in 0..n {
        let (cc, tables) = (body[1 + 2 * i], body[2 + 2 * i]);
        let Some(ci) = (0..searched).find(|&ci| head.comps[ci].id == cc && !taken[ci]) else {
            return corrupt(format!("scan component {cc} is not in the frame"));
        };
        if head.scan[..i].iter().any(|s| s.comp == ci) {
            return corrupt(format!("scan component {cc} twice"));
        }
        taken[ci] = true;
        head.scan[i] = ScanComponent {
            comp: ci,
            td: usize::from(tables >> 4),
            ta: usize::from(tables & 15),
        };
    }
    head.nscan = n;
    Ok(())
}

/// APP0 (JFIF) and APP14 (Adobe), which decide the colour space as
/// libjpeg guesses it.
fn read_app(marker: u8, body: &[u8], head: &mut Header) {
    let data = &body[..body.len().min(14)];
    if marker == 0xE0 && data.len() >= 14 && data.starts_with(b"JFIF\0") {
        head.jfif = true;
    }
    if marker == 0xEE && data.len() >= 12 && data.starts_with(b"Adobe") {
        head.adobe_transform = Some(data[11]);
    }
}

/// The markers up to the first scan.
fn read_header(data: &[u8]) -> Result<Header, HuffError> {
    if data.len() < 4 || data[0] != 0xFF || data[1] != 0xD8 {
        return corrupt("not a JPEG (no start-of-image marker)");
    }
    let mut head = Header::default();
    let mut pos = 2;
    loop {
        let Some((marker, after)) = next_marker(data, pos) else {
            return corrupt("the data ends before the first scan");
        };
        pos = after;
        if matches!(marker, 0xD0..=0xD7 | 0x01) {
            continue;
        }
        let (body, next) = match marker {
            0xD8 => return corrupt("a second start-of-image marker"),
            0xD9 => return corrupt("the image ends before its first scan"),
            _ => segment(data, pos, marker)?,
        };
        pos = next;
        match marker {
            0xC0 | 0xC1 => read_sof(body, &mut head)?,
            0xC2 | 0xC6 => return unsupported("progressive JPEG"),
            0xC3 | 0xC7 => return unsupported("lossless JPEG"),
            0xC5 => return unsupported("hierarchical JPEG"),
            0xC9..=0xCB | 0xCD..=0xCF => return unsupported("arithmetic coding"),
            0xCC => return unsupported("arithmetic conditioning (DAC)"),
            0xC4 => read_dht(body, &mut head.tables)?,
            0xDB => read_dqt(body, &mut head.tables)?,
            0xDD => read_dri(body, &mut head.tables)?,
            0xE0..=0xEF => read_app(marker, body, &mut head),
            0xFE | 0xDC => {}
            0xDA => {
                read_sos(body, &mut head)?;
                head.data_start = pos;
                return Ok(head);
            }
            _ => return corrupt(format!("unknown marker {marker:02X}")),
        }
    }
}

/// The markers after the scan, up to EOI (or the end of the data, where
/// libjpeg supposes an EOI), with libjpeg's checks.
fn read_trailer(data: &[u8], mut pos: usize) -> Result<(), HuffError> {
    let mut tables = Tables::default();
    loop {
        let Some((marker, after)) = next_marker(data, pos) else {
            return Ok(());
        };
        pos = after;
        match marker {
            0xD9 => return Ok(()),
            0xD0..=0xD7 | 0x01 => continue,
            0xDA => return corrupt("a second scan"),
            0xC4 | 0xDB | 0xDD | 0xDC | 0xE0..=0xEF | 0xFE => {}
            _ => return corrupt(format!("marker {marker:02X} after the scan")),
        }
        let (body, next) = segment(data, pos, marker)?;
        pos = next;
        match marker {
            0xC4 => read_dht(body, &mut tables)?,
            0xDB => read_dqt(body, &mut tables)?,
            0xDD => read_dri(body, &mut tables)?,
            _ => {}
        }
    }
}

// ---------------------------------------------------------------------------
// The frame

/// One block of an MCU: the plane, its tables, and its index in the
/// plane's blocks for MCU (`mx`, `my`): `(my * sv + dy) * bw + mx * sh + dx`.
#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    plane: usize,
    td: usize,
    ta: usize,
    dx: usize,
    dy: usize,
    sh: usize,
    sv: usize,
    bw: usize,
}

/// Sets `into`'s layout for the frame (its buffers are reused).
fn lay_out(head: &Header, into: &mut Coefficients) -> Result<(), HuffError> {
    let comps = &head.comps[..head.ncomps];
    let max_h = comps.iter().map(|c| c.h).max().unwrap_or(1);
    let max_v = comps.iter().map(|c| c.v).max().unwrap_or(1);
    into.width = head.width;
    into.height = head.height;
    into.max_h = max_h;
    into.max_v = max_v;
    let (mcus_w, mcus_h) = into.mcus();
    let total: usize = comps.iter().map(|c| mcus_w * c.h * mcus_h * c.v).sum();
    if total > MAX_BLOCKS {
        return unsupported(format!("{total} blocks is more than this decoder holds"));
    }
    into.planes.resize_with(comps.len(), Plane::default);
    for (plane, comp) in into.planes.iter_mut().zip(comps) {
        let Some(quant) = head.tables.quant.get(comp.tq).copied().flatten() else {
            return corrupt(format!("no quantisation table {}", comp.tq));
        };
        plane.h = comp.h;
        plane.v = comp.v;
        plane.bw = mcus_w * comp.h;
        plane.bh = mcus_h * comp.v;
        plane.quant = quant;
        plane.blocks.resize(plane.bw * plane.bh, [0; 64]);
    }
    Ok(())
}

/// Decodes the quantised DCT coefficients of a baseline JPEG into `into`
/// (its buffers are reused: a frame of the size of the last allocates
/// nothing), exactly as [`super::blocks::read_coefficients`] (libjpeg)
/// gives them. On an error `into` holds no frame in particular.
pub fn decode_coefficients(bytes: &[u8], into: &mut Coefficients) -> Result<(), HuffError> {
    let mut head = read_header(bytes)?;
    let n = head.ncomps;
    if head.nscan != n {
        return unsupported("colour in more than one scan");
    }
    if n == 3 {
        let rgb = if head.jfif {
            false
        } else if let Some(t) = head.adobe_transform {
            t == 0
        } else {
            head.comps.iter().map(|c| c.id).eq([82, 71, 66])
        };
        if rgb {
            return unsupported("an RGB colour space");
        }
    }
    for (slot, ac) in [(0, false), (1, false), (0, true), (1, true)] {
        let t = if ac {
            &mut head.tables.ac
        } else {
            &mut head.tables.dc
        };
        if t[slot].is_none() {
            t[slot] = Some(standard_table(ac, slot));
        }
    }
    let mut dcs: [DcTable; 4] = Default::default();
    let mut acs: [AcTable; 4] = Default::default();
    for s in &head.scan[..head.nscan] {
        let Some(raw) = head.tables.dc.get(s.td).and_then(Option::as_ref) else {
            return corrupt(format!("no DC Huffman table {}", s.td));
        };
        dcs[s.td] = DcTable::new(raw)?;
        let Some(raw) = head.tables.ac.get(s.ta).and_then(Option::as_ref) else {
            return corrupt(format!("no AC Huffman table {}", s.ta));
        };
        acs[s.ta] = AcTable::new(raw)?;
    }
    // Every block costs at least two bits: a frame too large for its data
    // is refused before its buffers are made.
    let comps = &head.comps[..n];
    let max_h = comps.iter().map(|c| c.h).max().unwrap_or(1);
    let max_v = comps.iter().map(|c| c.v).max().unwrap_or(1);
    let coded: usize = if n == 1 {
        head.width.div_ceil(8) * head.height.div_ceil(8)
    } else {
        let (mw, mh) = (
            head.width.div_ceil(8 * max_h),
            head.height.div_ceil(8 * max_v),
        );
        comps.iter().map(|c| mw * c.h * mh * c.v).sum()
    };
    if coded / 4 > bytes.len() - head.data_start {
        return corrupt(format!(
            "{}x{}: the entropy data is too short for the image",
            head.width, head.height
        ));
    }
    lay_out(&head, into)?;
    // The blocks coded, and the MCU grid of the scan.
    let mut slots = [Slot::default(); MAX_BLOCKS_IN_MCU];
    let mut nslots = 0;
    let (grid_w, grid_h);
    if n == 1 {
        // A single-component scan codes the component's own blocks.
        let c = head.comps[0];
        grid_w = (head.width * c.h).div_ceil(8 * into.max_h);
        grid_h = (head.height * c.v).div_ceil(8 * into.max_v);
        slots[0] = Slot {
            plane: 0,
            td: head.scan[0].td,
            ta: head.scan[0].ta,
            dx: 0,
            dy: 0,
            sh: 1,
            sv: 1,
            bw: into.planes[0].bw,
        };
        nslots = 1;
    } else {
        (grid_w, grid_h) = into.mcus();
        for s in &head.scan[..head.nscan] {
            let c = head.comps[s.comp];
            for dy in 0..c.v {
                for dx in 0..c.h {
                    if nslots == MAX_BLOCKS_IN_MCU {
                        return unsupported("more than 10 blocks in an MCU");
                    }
                    slots[nslots] = Slot {
                        plane: s.comp,
                        td: s.td,
                        ta: s.ta,
                        dx,
                        dy,
                        sh: c.h,
                        sv: c.v,
                        bw: into.planes[s.comp].bw,
                    };
                    nslots += 1;
                }
            }
        }
    }
    let slots = &slots[..nslots];
    let mut bits = Bits::new(bytes, head.data_start);
    let mut preds = [0i32; 3];
    let restart = head.tables.restart;
    let (mut to_go, mut rst) = (restart, 0u8);
    for my in 0..grid_h {
        for mx in 0..grid_w {
            if restart > 0 {
                if to_go == 0 {
                    bits = bits.restart(rst)?;
                    rst = (rst + 1) & 7;
                    preds = [0; 3];
                    to_go = restart;
                }
                to_go -= 1;
            }
            for s in slots {
                let i = (my * s.sv + s.dy) * s.bw + mx * s.sh + s.dx;
                decode_block(
                    &mut bits,
                    &dcs[s.td],
                    &acs[s.ta],
                    &mut preds[s.plane],
                    &mut into.planes[s.plane].blocks[i],
                );
            }
        }
        if bits.overran() {
            return corrupt("the entropy data ends before the last block");
        }
    }
    if n == 1 {
        // libjpeg's arrays are zero past the coded blocks.
        let plane = &mut into.planes[0];
        for (by, row) in plane.blocks.chunks_exact_mut(plane.bw).enumerate() {
            let from = if by < grid_h { grid_w } else { 0 };
            row[from..].fill([0; 64]);
        }
    }
    // Bytes loaded but not read are past the scan's end, as is `pos`.
    read_trailer(bytes, bits.pos)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A full bit buffer holding `text` ('0' and '1'), then zeros.
    fn held(text: &str) -> Bits<'static> {
        let mut buf = 0u64;
        for (i, c) in text.bytes().enumerate() {
            buf |= u64::from(c == b'1') << (63 - i);
        }
        Bits {
            data: &[],
            pos: 0,
            buf,
            nbits: 64,
            pad: 0,
            at_marker: true,
        }
    }

    #[test]
    fn the_bit_reader_reads_bits_in_order_across_refills() {
        let data: Vec<u8> = (0..40u8).map(|i| i.wrapping_mul(37)).collect();
        let mut bits = Bits::new(&data, 0);
        let mut got = Vec::new();
        for _ in 0..data.len() * 8 / 5 {
            if bits.nbits < 32 {
                bits.refill();
            }
            got.push(bits.get(5));
        }
        let mut want = Vec::new();
        let all: Vec<u32> = data
            .iter()
            .flat_map(|b| (0..8).rev().map(move |i| u32::from(b >> i & 1)))
            .collect();
        for c in all.chunks_exact(5) {
            want.push(c.iter().fold(0, |a, &b| a << 1 | b));
        }
        assert_eq!(got, want);
        assert!(!bits.overran());
    }

    #[test]
    fn the_bit_reader_unstuffs_and_stops_at_markers() {
        // FF 00 is a data FF; FF FF 00 too (fill byte); FF D9 ends the data.
        let data = [
            0x12, 0xFF, 0x00, 0x34, 0xFF, 0xFF, 0x00, 0x56, 0xFF, 0xD9, 0x77,
        ];
        let mut bits = Bits::new(&data, 0);
        bits.refill();
        let got: Vec<u32> = (0..5).map(|_| bits.get(8)).collect();
        assert_eq!(got, [0x12, 0xFF, 0x34, 0xFF, 0x56]);
        assert!(!bits.overran());
        assert!(bits.at_marker);
        assert_eq!(bits.pos, 8, "at the marker's FF");
        assert_eq!(bits.get(8), 0, "zeros past the marker");
        assert!(bits.overran());
    }

    #[test]
    fn the_bit_reader_pads_the_end_of_the_data() {
        let data = [0xAB];
        let mut bits = Bits::new(&data, 0);
        bits.refill();
        assert_eq!(bits.get(8), 0xAB);
        assert!(!bits.overran());
        assert_eq!(bits.get(1), 0);
        assert!(bits.overran());
    }

    #[test]
    fn has_ff_finds_any_ff_byte() {
        assert!(!has_ff(0x0011_2233_4455_66FE));
        for i in 0..8 {
            assert!(has_ff(0xFFu64 << (8 * i)), "byte {i}");
            assert!(has_ff(
                (0xFFu64 << (8 * i)) | 0x0101_0101_0101_0101 & !(0xFFu64 << (8 * i))
            ));
        }
        assert!(!has_ff(0x7F7F_7F7F_7F7F_7F7F));
        assert!(!has_ff(0xFEFE_FEFE_FEFE_FEFE));
    }

    #[test]
    fn extend_gives_jpeg_magnitudes() {
        assert_eq!(extend(0, 1), -1);
        assert_eq!(extend(1, 1), 1);
        assert_eq!(extend(0, 3), -7);
        assert_eq!(extend(3, 3), -4);
        assert_eq!(extend(4, 3), 4);
        assert_eq!(extend(0x7FFF, 15), 0x7FFF);
        assert_eq!(extend(0x3FFF, 15), -0x4000);
        assert_eq!(extend(0, 15), -32767);
    }

    #[test]
    fn the_natural_order_table_is_a_permutation_then_the_last() {
        let mut seen = [false; 64];
        for &z in &NATURAL[..64] {
            seen[usize::from(z)] = true;
        }
        assert!(seen.iter().all(|&s| s));
        assert!(NATURAL[64..].iter().all(|&z| z == 63));
        assert_eq!(NATURAL.len(), 256, "room for two runs past the end");
        assert_eq!(&NATURAL[..6], &[0, 1, 8, 16, 9, 2]);
    }

    #[test]
    fn the_standard_tables_decode_their_codes() {
        // Luminance DC: '00' is 0, '010' 1, '011' 2, '100' 3, '111111110' 11.
        let t = DcTable::new(&standard_table(false, 0)).expect("table");
        for (code, magnitude_bits, want) in [
            ("00", "", 0),
            ("010", "1", 1),
            ("010", "0", -1),
            ("011", "10", 2),
            ("011", "01", -2),
            ("100", "100", 4),
            ("111111110", "00000000000", -2047),
            ("111111110", "11111111111", 2047),
        ] {
            let mut bits = held(&format!("{code}{magnitude_bits}"));
            assert_eq!(t.decode(&mut bits), want, "{code} {magnitude_bits}");
            assert_eq!(64 - bits.nbits as usize, code.len() + magnitude_bits.len());
        }
    }

    /// Every code of a table, canonical order: (code, length, symbol).
    fn codes_of(raw: &RawHuff) -> Vec<(u32, u32, u8)> {
        let (mut out, mut code, mut q) = (Vec::new(), 0u32, 0);
        for l in 1..=16u32 {
            for _ in 0..raw.bits[l as usize] {
                out.push((code, l, raw.vals[q]));
                code += 1;
                q += 1;
            }
            code <<= 1;
        }
        out
    }

    #[test]
    fn every_code_of_the_standard_tables_decodes_to_its_symbol() {
        for (ac, slot) in [(false, 0), (false, 1), (true, 0), (true, 1)] {
            let raw = standard_table(ac, slot);
            let t = HuffTable::new(&raw, !ac).expect("table");
            let codes = codes_of(&raw);
            assert_eq!(codes.len(), if ac { 162 } else { 12 });
            for (code, l, sym) in codes {
                // The code, then zeros or ones: the lookups must not
                // depend on what follows.
                let text: String = (0..l)
                    .rev()
                    .map(|i| if code >> i & 1 == 1 { '1' } else { '0' })
                    .collect();
                for tail in ["", "1111111111111111"] {
                    let mut bits = held(&format!("{text}{tail}"));
                    assert_eq!(t.decode(&mut bits), sym, "{text}");
                    assert_eq!(64 - bits.nbits, l, "{text}");
                }
            }
        }
    }

    #[test]
    fn a_pattern_that_is_no_code_costs_17_bits_and_decodes_as_0() {
        let t = HuffTable::new(&standard_table(true, 0), false).expect("table");
        let mut bits = held("11111111111111111111");
        assert_eq!(t.decode(&mut bits), 0);
        assert_eq!(64 - bits.nbits, 17);
    }

    #[test]
    fn the_ac_entries_hold_run_value_and_length() {
        let t = AcTable::new(&standard_table(true, 0)).expect("table");
        let fields = |e: u32| (e & SLOW, (e >> 8) & 0x7F, (e >> 16) as u16 as i16, e & 0xFF);
        // 0x01 is '00' then one magnitude bit: '001' is +1, '000' is -1.
        assert_eq!(fields(t.fast[0b001 << (FAST_BITS - 3)]), (0, 0, 1, 3));
        assert_eq!(fields(t.fast[0]), (0, 0, -1, 3));
        // EOB '1010': a run past the block.
        assert_eq!(
            fields(t.fast[0b1010 << (FAST_BITS - 4)]),
            (0, EOB_RUN, 0, 4)
        );
        // 0x11 is '1100' then one bit.
        assert_eq!(fields(t.fast[0b11001 << (FAST_BITS - 5)]), (0, 1, 1, 5));
        // 0x06 is '1111000' then six bits, past the peek: size and code
        // length.
        let e = t.fast[0b1111000 << (FAST_BITS - 7)];
        assert_eq!(
            (e & SLOW, (e >> 8) & 0x7F, e >> 16, e & 0xFF),
            (SLOW, 0, 6, 7)
        );
        // ZRL '11111111001' is 11 bits: past the peek.
        assert_eq!(t.fast[0b1111111100], SLOW);
    }

    #[test]
    fn magnitudes_are_read_after_the_code() {
        let buf = |s: &str| held(s).buf;
        assert_eq!(magnitude(buf("001"), 2, 1), 1);
        assert_eq!(magnitude(buf("000"), 2, 1), -1);
        assert_eq!(magnitude(buf("1111"), 2, 0), 0);
        assert_eq!(magnitude(buf("11011"), 2, 3), -4);
        assert_eq!(magnitude(buf("11100"), 2, 3), 4);
        assert_eq!(magnitude(buf("0111111111111111"), 1, 15), 0x7FFF);
        assert_eq!(magnitude(buf("0000000000000000"), 1, 15), -0x7FFF);
    }

    #[test]
    fn bad_tables_are_refused() {
        // Three codes of length 1 cannot exist.
        let mut bits = [0u8; 17];
        bits[1] = 3;
        assert!(HuffTable::new(&RawHuff::new(&bits, &[0, 1, 2]), false).is_err());
        // Two codes of length 1 would use the all-ones code.
        bits[1] = 2;
        assert!(HuffTable::new(&RawHuff::new(&bits, &[0, 1]), false).is_err());
        bits[1] = 1;
        assert!(HuffTable::new(&RawHuff::new(&bits, &[0]), false).is_ok());
        // A DC symbol over 15.
        assert!(HuffTable::new(&RawHuff::new(&bits, &[16]), true).is_err());
        // More than 256 codes.
        let bits = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255];
        assert!(HuffTable::new(&RawHuff::new(&bits, &[0; 256]), false).is_err());
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        let mut into = Coefficients::default();
        for data in [
            &[][..],
            &[0xFF, 0xD8],
            &[0xFF, 0xD8, 0xFF, 0xD9],
            &[0xFF, 0xD8, 0xFF, 0xDB, 0x00, 0x01, 0x00],
            &[0xFF, 0xD8, 0xFF, 0xC0, 0xFF, 0xFF, 0x08],
        ] {
            assert!(decode_coefficients(data, &mut into).is_err(), "{data:?}");
        }
    }
}
