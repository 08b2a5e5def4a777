//! Stand To! arithmetic: the outcome of given dice, and exact odds by
//! enumerating every face. Pure functions of the data and the situation.

use serde::{Deserialize, Serialize};

use super::action::AimUse;
use super::data::{SaveData, StandTo, Wound};
use crate::core::odds::for_each_outcome;

/// Number of faces on every Stand To! die.
pub const D6: u32 = 6;

/// Everything a shot's odds depend on.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FireSituation {
    /// Two-dice total needed to be on target.
    pub needed: u32,
    /// Firing ability (with wound penalty), added to the white dice.
    pub ability: i32,
    /// Save number: the coloured die at or under it saves.
    pub save: u32,
    /// The target is a leader (always saves on an unmodified 1).
    pub leader: bool,
    /// The firer has an aiming bonus to place after the roll.
    pub aim_bonus: bool,
    /// Where the bonus goes.
    pub aim_use: AimUse,
    /// Weapon note 1: saved doubles still cause a light wound.
    pub note1: bool,
    /// The target is mounted: one more die picks rider or mount.
    pub mounted_target: bool,
    /// The mount was the intended target (the die is flipped).
    pub at_mount: bool,
}

/// Who a hit struck.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Struck {
    Man,
    Mount,
}

/// What given dice did to a shot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FireOutcome {
    pub on_target: bool,
    pub saved: bool,
    /// Where the aiming bonus went, if there was one.
    pub aim_bonus: Option<AimUse>,
    /// The wound, and who took it (note 1 light wounds included).
    pub wound: Option<(Struck, Wound)>,
}

/// The outcome of a shot for white dice `w0, w1`, coloured die `c`, and (for
/// a mounted target) the rider-or-mount die `m`.
pub fn fire_outcome(
    rules: &StandTo,
    s: &FireSituation,
    w0: u32,
    w1: u32,
    c: u32,
    m: Option<u32>,
) -> FireOutcome {
    let white = i64::from(w0 + w1) + i64::from(s.ability);
    let needed = i64::from(s.needed);
    let bonus = i64::from(rules.fire.aiming_bonus);
    let save_hit = |c_mod: i64| -> bool {
        (s.leader && c <= rules.saves.leader_always_saves_on) || c_mod <= i64::from(s.save)
    };
    let c = u32::min(c, D6);
    let (on_target, saved, used) = if !s.aim_bonus {
        let on = white >= needed;
        (on, on && save_hit(i64::from(c)), None)
    } else {
        let choice = match s.aim_use {
            AimUse::Hit => AimUse::Hit,
            AimUse::Save => AimUse::Save,
            // Seeing the dice: the bonus on the roll to hit when that makes
            // the difference, otherwise on the save.
            AimUse::Best => {
                if white < needed && white + bonus >= needed {
                    AimUse::Hit
                } else {
                    AimUse::Save
                }
            }
        };
        match choice {
            AimUse::Hit => {
                let on = white + bonus >= needed;
                (on, on && save_hit(i64::from(c)), Some(AimUse::Hit))
            }
            _ => {
                let on = white >= needed;
                (on, on && save_hit(i64::from(c) + bonus), Some(AimUse::Save))
            }
        }
    };
    let wound = if on_target && !saved {
        let struck = match m {
            Some(m) if s.mounted_target => {
                let face = if s.at_mount { D6 + 1 - m } else { m };
                if face <= rules.mounted_hit.rider_max {
                    Struck::Man
                } else {
                    Struck::Mount
                }
            }
            _ => Struck::Man,
        };
        let table = match struck {
            Struck::Man => &rules.damage.men,
            Struck::Mount => &rules.damage.mounts,
        };
        Some((struck, table.wound(w0, w1)))
    } else if on_target && saved && s.note1 && rules.fire.note1_doubles_light && w0 == w1 {
        Some((Struck::Man, Wound::Light))
    } else {
        None
    };
    FireOutcome {
        on_target,
        saved,
        aim_bonus: used,
        wound,
    }
}

/// Exact odds of a shot.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct FireOdds {
    pub p_on_target: f64,
    /// On target but saved.
    pub p_saved: f64,
    /// On target and not saved.
    pub p_hit: f64,
    /// Wounds to the man (note 1 splinters included).
    pub p_light: f64,
    pub p_serious: f64,
    pub p_killed: f64,
    /// Wounds to the mount (mounted targets only).
    pub p_mount_light: f64,
    pub p_mount_serious: f64,
    pub p_mount_killed: f64,
}

/// Enumerates the 216 (or 1296 with a mounted target) outcomes of a shot.
pub fn fire_odds(rules: &StandTo, s: &FireSituation) -> FireOdds {
    let sides: &[u32] = if s.mounted_target {
        &[D6, D6, D6, D6]
    } else {
        &[D6, D6, D6]
    };
    let mut n = FireOdds::default();
    let total = for_each_outcome(sides, |f| {
        let o = fire_outcome(rules, s, f[0], f[1], f[2], f.get(3).copied());
        let add = |p: &mut f64| *p += 1.0;
        if o.on_target {
            add(&mut n.p_on_target);
            if o.saved {
                add(&mut n.p_saved);
            } else {
                add(&mut n.p_hit);
            }
        }
        match o.wound {
            Some((Struck::Man, Wound::Light)) => add(&mut n.p_light),
            Some((Struck::Man, Wound::Serious)) => add(&mut n.p_serious),
            Some((Struck::Man, Wound::Killed)) => add(&mut n.p_killed),
            Some((Struck::Mount, Wound::Light)) => add(&mut n.p_mount_light),
            Some((Struck::Mount, Wound::Serious)) => add(&mut n.p_mount_serious),
            Some((Struck::Mount, Wound::Killed)) => add(&mut n.p_mount_killed),
            None => {}
        }
    }) as f64;
    for p in [
        &mut n.p_on_target,
        &mut n.p_saved,
        &mut n.p_hit,
        &mut n.p_light,
        &mut n.p_serious,
        &mut n.p_killed,
        &mut n.p_mount_light,
        &mut n.p_mount_serious,
        &mut n.p_mount_killed,
    ] {
        *p /= total;
    }
    n
}

/// What protects a target from a shot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct SaveSituation {
    /// The movement save (or 0 for artillery, where movement has no effect).
    pub movement: u32,
    pub prone: bool,
    pub soft_cover: bool,
    pub hard_cover: bool,
    pub leader: bool,
}

/// The save number: soft cover and the leader's bonus add to the others;
/// only the leader's bonus adds to hard cover; otherwise the best one.
pub fn save_number(saves: &SaveData, s: &SaveSituation) -> u32 {
    let leader = if s.leader { saves.leader_bonus } else { 0 };
    let posture = s.movement.max(if s.prone { saves.prone } else { 0 });
    let open = posture + if s.soft_cover { saves.soft_cover } else { 0 } + leader;
    let hard = if s.hard_cover {
        saves.hard_cover + leader
    } else {
        0
    };
    open.max(hard).min(saves.max_save)
}

/// One side of a melee exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct MeleeSide {
    /// Sum of all modifiers (ability, weapon, charging, shield, ...).
    pub modifier: i32,
    /// Evading: wounds only on an unmodified "always wound" roll.
    pub evading: bool,
}

/// Does a figure that rolled `raw` (unmodified) and `total` wound an
/// opponent whose total is `other_total`?
pub fn melee_wounds(
    rules: &StandTo,
    raw: u32,
    total: i32,
    evading: bool,
    other_total: i32,
) -> bool {
    if rules.melee.never_wound.contains(&raw) {
        false
    } else if rules.melee.always_wound.contains(&raw) {
        true
    } else if evading {
        false
    } else {
        total - other_total >= rules.melee.wound_margin
    }
}

/// Wounds from one exchange of a one-on-one melee: (attacker's wound,
/// defender's wound), each from the other's unmodified dice.
pub fn melee_outcome(
    rules: &StandTo,
    attacker: &MeleeSide,
    defender: &MeleeSide,
    a: [u32; 2],
    d: [u32; 2],
) -> (Option<Wound>, Option<Wound>) {
    let (ra, rd) = (a[0] + a[1], d[0] + d[1]);
    let ta = ra as i32 + attacker.modifier;
    let td = rd as i32 + defender.modifier;
    let defender_hurt = melee_wounds(rules, ra, ta, attacker.evading, td)
        .then(|| rules.damage.men.wound(a[0], a[1]));
    let attacker_hurt = melee_wounds(rules, rd, td, defender.evading, ta)
        .then(|| rules.damage.men.wound(d[0], d[1]));
    (attacker_hurt, defender_hurt)
}

/// Exact odds of a one-on-one melee exchange.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct MeleeOdds {
    pub p_attacker_wounded: f64,
    pub p_defender_wounded: f64,
    /// Neither is wounded.
    pub p_no_wound: f64,
}

/// The 36 rolls of two dice grouped by what Stand To! reads from them (the
/// sum and whether it is a double): one representative pair per group, with
/// the number of the 36 rolls it stands for. Enumerating groups instead of
/// faces gives the same exact odds with far fewer cases.
pub fn two_dice_classes() -> Vec<([u32; 2], u32)> {
    let mut classes: Vec<([u32; 2], u32)> = Vec::new();
    for a in 1..=D6 {
        for b in 1..=D6 {
            let key = |p: [u32; 2]| (p[0] + p[1], p[0] == p[1]);
            match classes.iter_mut().find(|(p, _)| key(*p) == key([a, b])) {
                Some((_, n)) => *n += 1,
                None => classes.push(([a, b], 1)),
            }
        }
    }
    classes
}

/// Enumerates every roll of the four dice (by two-dice groups).
pub fn melee_odds(rules: &StandTo, attacker: &MeleeSide, defender: &MeleeSide) -> MeleeOdds {
    let classes = two_dice_classes();
    let (mut aw, mut dw, mut none) = (0_u32, 0_u32, 0_u32);
    let mut total = 0_u32;
    for &(a, na) in &classes {
        for &(d, nd) in &classes {
            let w = na * nd;
            let (ah, dh) = melee_outcome(rules, attacker, defender, a, d);
            total += w;
            aw += w * u32::from(ah.is_some());
            dw += w * u32::from(dh.is_some());
            none += w * u32::from(ah.is_none() && dh.is_none());
        }
    }
    let total = f64::from(total);
    MeleeOdds {
        p_attacker_wounded: f64::from(aw) / total,
        p_defender_wounded: f64::from(dw) / total,
        p_no_wound: f64::from(none) / total,
    }
}

/// Outnumbered melee: one figure's single roll meets every opponent. Each
/// opponent may wound him (the worst wound counts); he can wound only the
/// opponent(s) with the worst adjusted roll (ties all suffer).
/// Returns (the lone figure's wound, each opponent's wound).
pub fn outnumbered_outcome(
    rules: &StandTo,
    lone: &MeleeSide,
    lone_dice: [u32; 2],
    others: &[(MeleeSide, [u32; 2])],
) -> (Option<Wound>, Vec<Option<Wound>>) {
    let raw = lone_dice[0] + lone_dice[1];
    let total = raw as i32 + lone.modifier;
    let totals: Vec<i32> = others
        .iter()
        .map(|(s, d)| (d[0] + d[1]) as i32 + s.modifier)
        .collect();
    let worst = totals.iter().copied().min().unwrap_or(i32::MAX);
    let mut lone_wound: Option<Wound> = None;
    let mut wounds = Vec::with_capacity(others.len());
    for ((side, d), &t) in others.iter().zip(&totals) {
        let oraw = d[0] + d[1];
        if melee_wounds(rules, oraw, t, side.evading, total) {
            let w = rules.damage.men.wound(d[0], d[1]);
            lone_wound = lone_wound.max(Some(w));
        }
        let hurt = t == worst && melee_wounds(rules, raw, total, lone.evading, t);
        wounds.push(hurt.then(|| rules.damage.men.wound(lone_dice[0], lone_dice[1])));
    }
    (lone_wound, wounds)
}

/// The most opponents whose dice are enumerated for outnumbered odds (15
/// two-dice groups each: four opponents is 760 000 cases).
pub const MAX_ENUMERATED_OPPONENTS: usize = 4;

/// Exact odds of an outnumbered exchange: P(lone figure wounded) and, for
/// each opponent, P(wounded). None above [`MAX_ENUMERATED_OPPONENTS`].
pub fn outnumbered_odds(
    rules: &StandTo,
    lone: &MeleeSide,
    others: &[MeleeSide],
) -> Option<(f64, Vec<f64>)> {
    if others.len() > MAX_ENUMERATED_OPPONENTS {
        return None;
    }
    let classes = two_dice_classes();
    let k = classes.len();
    let n = others.len() + 1;
    let mut idx = vec![0_usize; n];
    let mut lone_n = 0_u64;
    let mut other_n = vec![0_u64; others.len()];
    let mut total = 0_u64;
    let mut opp: Vec<(MeleeSide, [u32; 2])> = others.iter().map(|s| (*s, [1, 1])).collect();
    loop {
        let weight: u64 = idx.iter().map(|&i| u64::from(classes[i].1)).product();
        for (j, o) in opp.iter_mut().enumerate() {
            o.1 = classes[idx[j + 1]].0;
        }
        let (lw, ow) = outnumbered_outcome(rules, lone, classes[idx[0]].0, &opp);
        total += weight;
        lone_n += weight * u64::from(lw.is_some());
        for (c, w) in other_n.iter_mut().zip(ow) {
            *c += weight * u64::from(w.is_some());
        }
        let mut i = 0;
        loop {
            if i == n {
                let t = total as f64;
                return Some((
                    lone_n as f64 / t,
                    other_n.iter().map(|&c| c as f64 / t).collect(),
                ));
            }
            idx[i] += 1;
            if idx[i] < k {
                break;
            }
            idx[i] = 0;
            i += 1;
        }
    }
}

/// The wound a figure is left with after taking `new` on top of `old`.
/// Heroes and fanatics ignore light wounds and take serious ones as light.
pub fn combine_wounds(
    rules: &StandTo,
    old: Option<Wound>,
    new: Wound,
    ignores_light: bool,
) -> Option<Wound> {
    let new = match (ignores_light, new) {
        (true, Wound::Light) => return old,
        (true, Wound::Serious) => Wound::Light,
        (_, w) => w,
    };
    match old {
        None => Some(new),
        Some(Wound::Killed) => Some(Wound::Killed),
        Some(Wound::Serious) => Some(rules.damage.wounds.serious_plus_any.max(new)),
        Some(Wound::Light) => match new {
            Wound::Light => Some(rules.damage.wounds.light_plus_light),
            w => Some(w),
        },
    }
}

/// P(2d6 + modifier >= needed).
pub fn p_two_dice_at_least(needed: i32, modifier: i32) -> f64 {
    crate::core::odds::probability(&[D6, D6], |f| (f[0] + f[1]) as i32 + modifier >= needed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    fn rules() -> StandTo {
        StandTo::builtin().expect("builtin data")
    }

    #[test]
    fn leader_save_is_cumulative_with_soft_cover_not_hard() {
        let r = rules();
        let s = &r.saves;
        let soft = save_number(
            s,
            &SaveSituation {
                movement: s.walking,
                soft_cover: true,
                leader: true,
                ..Default::default()
            },
        );
        assert_eq!(soft, s.walking + s.soft_cover + s.leader_bonus);
        let hard = save_number(
            s,
            &SaveSituation {
                movement: s.charging,
                hard_cover: true,
                soft_cover: true,
                leader: true,
                ..Default::default()
            },
        );
        assert_eq!(
            hard,
            (s.hard_cover + s.leader_bonus).max(s.charging + s.soft_cover + s.leader_bonus)
        );
    }

    #[test]
    fn odds_sum_to_one_where_they_must() {
        let r = rules();
        let s = FireSituation {
            needed: 8,
            ability: 0,
            save: 2,
            leader: false,
            aim_bonus: false,
            aim_use: AimUse::Best,
            note1: true,
            mounted_target: false,
            at_mount: false,
        };
        let o = fire_odds(&r, &s);
        assert_relative_eq!(o.p_saved + o.p_hit, o.p_on_target, epsilon = 1e-12);
        let classes = two_dice_classes();
        assert_eq!(classes.len(), 15);
        assert_eq!(classes.iter().map(|c| c.1).sum::<u32>(), 36);
        // Grouped enumeration equals the face-by-face count.
        let a = MeleeSide {
            modifier: 1,
            evading: false,
        };
        let d = MeleeSide {
            modifier: 0,
            evading: true,
        };
        let mut faces = 0_u32;
        let total = for_each_outcome(&[D6, D6, D6, D6], |f| {
            faces += u32::from(
                melee_outcome(&r, &a, &d, [f[0], f[1]], [f[2], f[3]])
                    .1
                    .is_some(),
            );
        });
        assert_relative_eq!(
            melee_odds(&r, &a, &d).p_defender_wounded,
            f64::from(faces) / total as f64
        );
        let m = melee_odds(
            &r,
            &MeleeSide {
                modifier: 3,
                evading: false,
            },
            &MeleeSide {
                modifier: 2,
                evading: false,
            },
        );
        assert!(m.p_no_wound + m.p_attacker_wounded.max(m.p_defender_wounded) <= 1.0 + 1e-12);
    }
}
