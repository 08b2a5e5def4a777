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

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn two_d6_at_least_eight_is_15_in_36() {
        assert_relative_eq!(probability(&[6, 6], |f| f[0] + f[1] >= 8), 15.0 / 36.0);
        assert_eq!(for_each_outcome(&[6, 6, 6], |_| {}), 216);
    }
}
