//! Rolling timing statistics: frame rates and latencies, shown in the app
//! and reported by the benchmark.
//!
//! # Conventions
//! Durations are milliseconds (`f64`); rates are per second.

use std::collections::VecDeque;
use std::time::Instant;

/// Samples kept per series: a few seconds at 30-60 fps.
pub const WINDOW: usize = 240;

/// A rolling window of samples with median and 95th percentile.
#[derive(Debug, Clone, Default)]
pub struct Series {
    samples: VecDeque<f64>,
}

/// Median and 95th percentile of a series.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    pub median: f64,
    pub p95: f64,
    pub count: usize,
}

impl Series {
    pub fn push(&mut self, value: f64) {
        if self.samples.len() == WINDOW {
            self.samples.pop_front();
        }
        self.samples.push_back(value);
    }

    pub fn len(&self) -> usize {
        self.samples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// `None` until there is a sample.
    pub fn summary(&self) -> Option<Summary> {
        summarize(self.samples.iter().copied().collect())
    }
}

/// Median and 95th percentile (nearest rank) of `values`.
pub fn summarize(mut values: Vec<f64>) -> Option<Summary> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let rank = |q: f64| {
        // Nearest-rank percentile: the smallest value with at least q of the
        // samples at or below it.
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "small positive rank"
        )]
        let r = (q * values.len() as f64).ceil() as usize;
        values[r.clamp(1, values.len()) - 1]
    };
    Some(Summary {
        median: rank(0.5),
        p95: rank(0.95),
        count: values.len(),
    })
}

/// Intervals between events, turned into a rate.
#[derive(Debug, Clone, Default)]
pub struct RateMeter {
    last: Option<Instant>,
    intervals_ms: Series,
}

impl RateMeter {
    pub fn tick(&mut self, now: Instant) {
        if let Some(last) = self.last {
            self.intervals_ms.push((now - last).as_secs_f64() * 1e3);
        }
        self.last = Some(now);
    }

    /// Events per second from the median interval.
    pub fn rate_hz(&self) -> Option<f64> {
        self.intervals_ms
            .summary()
            .filter(|s| s.median > 0.0)
            .map(|s| 1e3 / s.median)
    }

    /// The intervals themselves, milliseconds.
    pub fn intervals_ms(&self) -> &Series {
        &self.intervals_ms
    }
}

/// Everything the status bar shows.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    /// UI frames painted.
    pub ui: RateMeter,
    /// Camera frames that came out of detection.
    pub detection: RateMeter,
    /// Time spent finding markers and figures per frame.
    pub work_ms: Series,
    /// From capture to the overlay for that frame on screen.
    pub overlay_latency_ms: Series,
    /// Time to build and paint one UI frame (CPU side).
    pub paint_ms: Series,
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;
    use std::time::Duration;

    #[test]
    fn median_and_p95_by_nearest_rank() {
        let s = summarize((1..=100).map(f64::from).collect()).unwrap();
        assert_relative_eq!(s.median, 50.0);
        assert_relative_eq!(s.p95, 95.0);
        assert!(summarize(Vec::new()).is_none());
    }

    #[test]
    fn window_forgets_old_samples() {
        let mut series = Series::default();
        for _ in 0..WINDOW {
            series.push(1000.0);
        }
        for _ in 0..WINDOW {
            series.push(1.0);
        }
        assert_relative_eq!(series.summary().unwrap().p95, 1.0);
    }

    #[test]
    fn rate_from_intervals() {
        let mut m = RateMeter::default();
        let t0 = Instant::now();
        for i in 0..10 {
            m.tick(t0 + Duration::from_millis(25 * i));
        }
        assert_relative_eq!(m.rate_hz().unwrap(), 40.0, epsilon = 1e-9);
    }
}
