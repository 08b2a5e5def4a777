//! Exact odds by enumerating every face of every die.
//!
//! Probabilities are counts of equally likely outcomes divided by their
//! number; with at most a few dice the f64 quotient is exact to the last bit
//! that matters.

use serde::{Deserialize, Serialize};

/// Calls `f` once for every combination of faces of dice with the given
/// numbers of sides (each combination equally likely); returns how many
/// combinations there were.
pub fn for_each_outcome(sides: &[u32], mut f: impl FnMut(&[u32])) -> u64 {
    let mut faces: Vec<u32> = vec![1; sides.len()];
    let mut count = 0;
    if sides.contains(&0) {
        return 0;
    }
    loop {
        f(&faces);
        count += 1;
        let mut i = 0;
        loop {
            if i == faces.len() {
                return count;
            }
            if faces[i] < sides[i] {
                faces[i] += 1;
                break;
            }
            faces[i] = 1;
            i += 1;
        }
    }
}

/// Probability that `pred` holds for a uniformly random outcome of the dice.
pub fn probability(sides: &[u32], mut pred: impl FnMut(&[u32]) -> bool) -> f64 {
    let mut hits = 0_u64;
    let total = for_each_outcome(sides, |f| {
        if pred(f) {
            hits += 1;
        }
    });
    if total == 0 {
        0.0
    } else {
        hits as f64 / total as f64
    }
}

/// A named probability, as shown before a roll and kept in the log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NamedOdds {
    /// e.g. `p_on_target`.
    pub name: String,
    /// 0..=1.
    pub p: f64,
}

/// Shorthand for building a list of named odds.
pub fn named(pairs: &[(&str, f64)]) -> Vec<NamedOdds> {
    pairs
        .iter()
        .map(|&(name, p)| NamedOdds {
            name: name.to_owned(),
            p,
        })
        .collect()
}

/// Distribution of the sum of `n` dice with `sides` faces: entry `t` is
/// P(total = t) (entries below `n` are 0). Built by convolution, so it is
/// exact for many dice where enumeration would not finish.
pub fn sum_distribution(n: usize, sides: u32) -> Vec<f64> {
    let mut dist = vec![1.0];
    for _ in 0..n {
        dist = convolve(&dist, &die_distribution(sides));
    }
    dist
}

/// One die: entry `f` is P(face = f) (entry 0 is 0).
pub fn die_distribution(sides: u32) -> Vec<f64> {
    let mut d = vec![0.0; sides as usize + 1];
    for p in d.iter_mut().skip(1) {
        *p = 1.0 / f64::from(sides);
    }
    d
}

/// Distribution of the sum of two independent counts.
pub fn convolve(a: &[f64], b: &[f64]) -> Vec<f64> {
    if a.is_empty() || b.is_empty() {
        return Vec::new();
    }
    let mut out = vec![0.0; a.len() + b.len() - 1];
    for (i, pa) in a.iter().enumerate() {
        for (j, pb) in b.iter().enumerate() {
            out[i + j] += pa * pb;
        }
    }
    out
}

/// Number of successes among `n` independent trials of probability `p`.
pub fn binomial(n: usize, p: f64) -> Vec<f64> {
    let mut dist = vec![1.0];
    for _ in 0..n {
        dist = convolve(&dist, &[1.0 - p, p]);
    }
    dist
}

/// Probability that a card drawn uniformly from `cards` satisfies `pred`
/// (a shuffled deck: every remaining card equally likely).
pub fn card_probability<T>(cards: &[T], mut pred: impl FnMut(&T) -> bool) -> f64 {
    if cards.is_empty() {
        return 0.0;
    }
    cards.iter().filter(|c| pred(c)).count() as f64 / cards.len() as f64
}

/// P(X >= k) of a distribution.
pub fn at_least(dist: &[f64], k: usize) -> f64 {
    dist.iter().skip(k).sum()
}

/// Expected value of a distribution.
pub fn mean(dist: &[f64]) -> f64 {
    dist.iter().enumerate().map(|(i, p)| i as f64 * p).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn two_d6_at_least_eight_is_15_in_36() {
        assert_relative_eq!(probability(&[6, 6], |f| f[0] + f[1] >= 8), 15.0 / 36.0);
        assert_eq!(for_each_outcome(&[6, 6, 6], |_| {}), 216);
    }

    #[test]
    fn sums_and_binomials_match_enumeration() {
        let d = sum_distribution(3, 6);
        assert_eq!(d.len(), 19, "totals 0 to 18");
        for (t, &p) in d.iter().enumerate() {
            let want = probability(&[6, 6, 6], |f| (f[0] + f[1] + f[2]) as usize == t);
            assert_relative_eq!(p, want, epsilon = 1e-12);
        }
        let b = binomial(4, 1.0 / 6.0);
        assert_relative_eq!(b[0], (5.0_f64 / 6.0).powi(4), epsilon = 1e-12);
        assert_relative_eq!(b.iter().sum::<f64>(), 1.0, epsilon = 1e-12);
        assert_relative_eq!(mean(&b), 4.0 / 6.0, epsilon = 1e-12);
        assert_relative_eq!(card_probability(&[1, 2, 3, 4], |c| *c <= 3), 0.75);
    }
}
