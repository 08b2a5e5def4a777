//! Label probes: fixed sample patterns counted on the label image at whole
//! top-view pixels, for the candidate searches of [`super::fit`].
//!
//! # Conventions
//! Top-view pixels as in [`super::rectify`] (column `i` right, row `j` down).
//! A pattern is given in table inches relative to a centre (x right, y up)
//! and held as whole-pixel offsets: a candidate centre on a top-view pixel
//! (every centre the searches try is one) sees the label of the pixel
//! nearest each sample point, as [`super::fit::Surface::label`] would, but
//! without a float transform and a rounding per sample.

use nalgebra::Vector2;

use super::segment::{NONE, Segmentation};

/// One pattern of sample points, as pixel offsets from the centre.
#[derive(Debug, Clone)]
pub struct Probe {
    /// Column and row offsets.
    offsets: Vec<(i32, i32)>,
    /// Offsets into the row-major label buffer (`dj * width + di`).
    linear: Vec<isize>,
    /// Largest |di| and |dj|: a centre this far inside the view needs no
    /// per-sample bounds check.
    reach: (i32, i32),
}

/// Pixel offset of the sample nearest `t_in` (table inches from the centre)
/// at `px_per_in`: x to columns, y up to rows down.
fn pixel_offset(t_in: Vector2<f64>, px_per_in: f64) -> (i32, i32) {
    // Rounding half up, as the label lookup does (a cast of v + 0.5); the
    // offsets are a few tens of pixels.
    let round = |v: f64| (v + 0.5).floor() as i32;
    (round(t_in.x * px_per_in), round(-t_in.y * px_per_in))
}

impl Probe {
    /// A probe over points given in table inches relative to the centre.
    pub fn new(
        points_in: impl IntoIterator<Item = Vector2<f64>>,
        px_per_in: f64,
        width: usize,
    ) -> Self {
        let offsets: Vec<(i32, i32)> = points_in
            .into_iter()
            .map(|p| pixel_offset(p, px_per_in))
            .collect();
        // Label images are a few thousand pixels wide: the products fit.
        let w = width as isize;
        let linear = offsets
            .iter()
            .map(|&(di, dj)| dj as isize * w + di as isize)
            .collect();
        let reach = offsets.iter().fold((0, 0), |(ri, rj), &(di, dj)| {
            (ri.max(di.abs()), rj.max(dj.abs()))
        });
        Self {
            offsets,
            linear,
            reach,
        }
    }

    pub fn len(&self) -> usize {
        self.offsets.len()
    }

    /// Whether every sample around (i, j) lies inside the label image.
    fn inside(&self, seg: &Segmentation, i: i64, j: i64) -> bool {
        i >= i64::from(self.reach.0)
            && j >= i64::from(self.reach.1)
            && i + i64::from(self.reach.0) < seg.width as i64
            && j + i64::from(self.reach.1) < seg.height as i64
    }

    /// Label of sample `k` around (i, j); `NONE` outside the image.
    fn label_at(&self, seg: &Segmentation, i: i64, j: i64, k: usize) -> u8 {
        let (di, dj) = self.offsets[k];
        let (x, y) = (i + i64::from(di), j + i64::from(dj));
        if x < 0 || y < 0 || x >= seg.width as i64 || y >= seg.height as i64 {
            return NONE;
        }
        // In range by the check above.
        seg.labels[y as usize * seg.width + x as usize]
    }

    /// Visits the labels of every sample around (i, j) in order, while
    /// `visit` returns true.
    fn scan(&self, seg: &Segmentation, i: i64, j: i64, mut visit: impl FnMut(u8) -> bool) {
        if self.inside(seg, i, j) {
            // Non-negative and in range by `inside`.
            let base = (j as usize * seg.width + i as usize) as isize;
            for &o in &self.linear {
                if !visit(seg.labels[(base + o) as usize]) {
                    return;
                }
            }
        } else {
            for k in 0..self.offsets.len() {
                if !visit(self.label_at(seg, i, j, k)) {
                    return;
                }
            }
        }
    }

    /// Samples around (i, j) labelled `label`, or `None` as soon as fewer
    /// than `need` can be.
    pub fn count_at_least(
        &self,
        seg: &Segmentation,
        i: i64,
        j: i64,
        label: u8,
        need: usize,
    ) -> Option<usize> {
        let n = self.offsets.len();
        if need > n {
            return None;
        }
        // Misses allowed before `need` is out of reach.
        let spare = n - need;
        let (mut on, mut off) = (0usize, 0usize);
        self.scan(seg, i, j, |l| {
            if l == label {
                on += 1;
            } else {
                off += 1;
            }
            off <= spare
        });
        (off <= spare).then_some(on)
    }

    /// Samples around (i, j) labelled `label`, or `None` as soon as there
    /// are more than `limit`.
    pub fn count_at_most(
        &self,
        seg: &Segmentation,
        i: i64,
        j: i64,
        label: u8,
        limit: usize,
    ) -> Option<usize> {
        let mut on = 0usize;
        self.scan(seg, i, j, |l| {
            on += usize::from(l == label);
            on <= limit
        });
        (on <= limit).then_some(on)
    }
}

/// Two probes of the same length whose samples count in pairs: a pair
/// counts when both its samples carry the label.
#[derive(Debug, Clone)]
pub struct PairProbe {
    near: Probe,
    far: Probe,
}

impl PairProbe {
    pub fn new(near: Probe, far: Probe) -> Self {
        debug_assert_eq!(near.len(), far.len());
        Self { near, far }
    }

    pub fn len(&self) -> usize {
        self.near.len().min(self.far.len())
    }

    /// Pairs around (i, j) labelled `label` at both samples, or `None` as
    /// soon as there are more than `limit`.
    pub fn count_at_most(
        &self,
        seg: &Segmentation,
        i: i64,
        j: i64,
        label: u8,
        limit: usize,
    ) -> Option<usize> {
        let mut on = 0usize;
        if self.near.inside(seg, i, j) && self.far.inside(seg, i, j) {
            // Non-negative and in range by `inside`.
            let base = (j as usize * seg.width + i as usize) as isize;
            for (&a, &b) in self.near.linear.iter().zip(&self.far.linear) {
                let both = seg.labels[(base + a) as usize] == label
                    && seg.labels[(base + b) as usize] == label;
                on += usize::from(both);
                if on > limit {
                    return None;
                }
            }
        } else {
            for k in 0..self.len() {
                let both = self.near.label_at(seg, i, j, k) == label
                    && self.far.label_at(seg, i, j, k) == label;
                on += usize::from(both);
                if on > limit {
                    return None;
                }
            }
        }
        Some(on)
    }
}

/// The sample points of one candidate pattern, inches from the centre: the
/// band's middle line, points inside the base, and pairs of points just
/// (`outer`) and well (`far`) outside it.
#[derive(Debug, Clone, Default)]
pub struct Pattern {
    pub ring: Vec<Vector2<f64>>,
    pub inner: Vec<Vector2<f64>>,
    pub outer: Vec<Vector2<f64>>,
    pub far: Vec<Vector2<f64>>,
}

/// A [`Pattern`] as probes on a label image.
#[derive(Debug, Clone)]
pub struct Probes {
    pub ring: Probe,
    pub inner: Probe,
    pub outer: PairProbe,
}

impl Probes {
    pub fn new(pattern: Pattern, px_per_in: f64, width: usize) -> Self {
        Self {
            ring: Probe::new(pattern.ring, px_per_in, width),
            inner: Probe::new(pattern.inner, px_per_in, width),
            outer: PairProbe::new(
                Probe::new(pattern.outer, px_per_in, width),
                Probe::new(pattern.far, px_per_in, width),
            ),
        }
    }
}

/// Which pattern a cached probe set is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PatternKind {
    Ring,
    /// A rectangle at an axis, in thousandths of a degree.
    Rect(i64),
}

/// Probe sets built once and kept for the next frames of the same
/// geometry (a live camera sends hundreds of frames of one table).
#[derive(Debug, Default)]
pub struct ProbeCache {
    /// What the probes were built for: the bits of every size and scale
    /// that shapes them, and the label image width.
    key: Vec<u64>,
    sets: std::collections::HashMap<PatternKind, std::rc::Rc<Probes>>,
}

impl ProbeCache {
    /// The cached set of `kind`, built by `build` when missing.
    pub fn get(
        &mut self,
        kind: PatternKind,
        build: impl FnOnce() -> Probes,
    ) -> std::rc::Rc<Probes> {
        self.sets
            .entry(kind)
            .or_insert_with(|| std::rc::Rc::new(build()))
            .clone()
    }
}

/// Most probe sets a cache keeps before it starts over (a cache key per
/// axis is a few hundred at most; this only bounds odd callers).
const MAX_CACHED_SETS: usize = 4096;

thread_local! {
    static CACHE: std::cell::RefCell<Option<ProbeCache>> = const { std::cell::RefCell::new(None) };
}

/// This thread's probe cache for `key`: the kept one when it was built for
/// the same key, else an empty one. Give it back with [`keep_cache`].
pub fn take_cache(key: Vec<u64>) -> ProbeCache {
    CACHE
        .with(|c| c.borrow_mut().take())
        .filter(|c| c.key == key && c.sets.len() <= MAX_CACHED_SETS)
        .unwrap_or_else(|| ProbeCache {
            key,
            sets: std::collections::HashMap::new(),
        })
}

/// Keeps a probe cache for this thread's next frame.
pub fn keep_cache(cache: ProbeCache) {
    CACHE.with(|c| *c.borrow_mut() = Some(cache));
}

/// The fewest of `n` samples whose share `k / n` is at least `share`
/// (compared as the scores are, in f64); `n + 1` when none is.
pub fn need_for(share: f64, n: usize) -> usize {
    (0..=n)
        .find(|&k| k as f64 / n.max(1) as f64 >= share)
        .unwrap_or(n + 1)
}

/// The most of `n` samples whose share `k / n` is at most `share`; `None`
/// when even zero is too many.
pub fn limit_for(share: f64, n: usize) -> Option<usize> {
    (0..=n).rev().find(|&k| k as f64 / n.max(1) as f64 <= share)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg_with(width: usize, height: usize, on: &[(usize, usize)]) -> Segmentation {
        let mut labels = vec![NONE; width * height];
        for &(i, j) in on {
            labels[j * width + i] = 3;
        }
        Segmentation {
            width,
            height,
            labels,
            table_hue: 0.0,
        }
    }

    #[test]
    fn offsets_follow_the_view_axes() {
        // x right is a column to the right; y up is a row up.
        let p = Probe::new([Vector2::new(0.5, 0.0), Vector2::new(0.0, 0.5)], 10.0, 20);
        assert_eq!(p.offsets, vec![(5, 0), (0, -5)]);
        assert_eq!(p.linear, vec![5, -100]);
    }

    #[test]
    fn counts_stop_early_and_agree_at_the_border() {
        let seg = seg_with(10, 10, &[(5, 5), (6, 5), (5, 4)]);
        let p = Probe::new(
            [
                Vector2::new(0.0, 0.0),
                Vector2::new(0.1, 0.0),
                Vector2::new(0.0, 0.1),
                Vector2::new(-0.1, 0.0),
            ],
            10.0,
            10,
        );
        assert_eq!(p.count_at_least(&seg, 5, 5, 3, 3), Some(3));
        assert_eq!(p.count_at_least(&seg, 5, 5, 3, 4), None);
        assert_eq!(p.count_at_most(&seg, 5, 5, 3, 2), None);
        assert_eq!(p.count_at_most(&seg, 5, 5, 3, 3), Some(3));
        // At the border the samples outside count as no label.
        assert_eq!(p.count_at_most(&seg, 0, 0, 3, 4), Some(0));
        let q = PairProbe::new(p.clone(), p.clone());
        assert_eq!(q.count_at_most(&seg, 5, 5, 3, 4), Some(3));
        assert_eq!(q.count_at_most(&seg, 5, 5, 3, 1), None);
    }

    #[test]
    fn shares_become_counts_as_the_float_test_would() {
        assert_eq!(need_for(0.45, 48), 22);
        assert_eq!(need_for(0.5, 10), 5);
        assert_eq!(need_for(1.1, 10), 11);
        assert_eq!(limit_for(0.35, 12), Some(4));
        assert_eq!(limit_for(0.5, 48), Some(24));
        assert_eq!(limit_for(-0.1, 5), None);
    }
}
