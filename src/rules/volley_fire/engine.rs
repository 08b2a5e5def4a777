//! The Volley Fire! engine: unit actions as typed [`Action`]s
//! (`fire`, `move`, `form`, `melee`, `regroup`, `morale`) and `end-phase`.
//! Each action runs only in its phase of the turn (`turn.action_phase`).
//!
//! # Conventions
//! Positions in table inches (table frame); a unit's front is the centre of
//! its front-rank figures. Unit status keys: `troops` (move-dice row, and
//! melee row unless `melee` names one), `cover` ("true": target in cover), `shaken`, `jammed`; side status
//! `nationality` (morale table row); figure status `key` ("true": a key
//! figure of a mixed group), `commander` ("true": a force's commander, who
//! rolls a d20 when in a zone of fire), `heat-stroke` (down from double
//! time).

use nalgebra::{Point2, Vector2};

use super::action::*;
use super::{
    FireDie, MeleeFighter, MoraleResult, NAME, VolleyFire, WeaponData, die_hits, fire_odds,
    pair_winner,
};
use crate::core::dice::{Dice, total};
use crate::core::odds::{NamedOdds, named};
use crate::core::{Inch, Length, RefusalKind};
use crate::geometry::angle_off_facing_deg;
use crate::rules::action::{CheckDice, next_phase_event};
use crate::rules::stand_to::Wound;
use crate::rules::{Command, Event, FigureId, GameState, Pace, StatusOf, Unit};
use crate::rules::{RuleError, RuleSet};

/// Melee rounds after which a fight that keeps tying is left undecided.
const MAX_MELEE_ROUNDS: usize = 200;
/// Distance between bases (edge gap plus a base) that counts as contact, in.
pub(super) const CONTACT_EXTRA_IN: f64 = 1.0;

/// A figure's place in a formation: position (table inches) and facing
/// (degrees).
type Spot = (Point2<f64>, f64);

/// Volley Fire! as a [`RuleSet`].
#[derive(Debug, Clone)]
pub struct VolleyFireRules {
    pub data: VolleyFire,
}

/// This rule set refuses the command now, for a rule of `kind`.
fn refuse(kind: RefusalKind, why: impl Into<String>) -> RuleError {
    crate::rules::common::refusal(NAME, kind, why)
}

fn unit<'a>(state: &'a GameState, name: &str) -> Result<(usize, &'a Unit), RuleError> {
    state.unit_named(name).ok_or(RuleError::Unknown {
        what: "unit",
        name: name.to_owned(),
    })
}

/// Alive figures of a unit with their place in the unit.
fn alive(state: &GameState, u: &Unit) -> Vec<(usize, FigureId)> {
    u.figures
        .iter()
        .enumerate()
        .filter(|(_, id)| state.figure(**id).is_some_and(crate::rules::Figure::active))
        .map(|(k, id)| (k, *id))
        .collect()
}

fn pos(state: &GameState, id: FigureId) -> Point2<f64> {
    state
        .figure(id)
        .map_or_else(Point2::origin, |f| f.placement.center_in_table)
}

fn centroid(state: &GameState, ids: &[FigureId]) -> Point2<f64> {
    if ids.is_empty() {
        return Point2::new(f64::NAN, f64::NAN);
    }
    let n = ids.len().max(1) as f64;
    let sum = ids
        .iter()
        .fold(Vector2::zeros(), |acc, id| acc + pos(state, *id).coords);
    Point2::from(sum / n)
}

/// Positions the engine computes are kept to a micro-inch (steps per
/// inch), far below any measurement, so that their short decimal form
/// survives the JSON log exactly.
const POSITION_STEPS_PER_IN: f64 = 1e6;

fn quantized(p: Point2<f64>) -> Point2<f64> {
    let q = |v: f64| (v * POSITION_STEPS_PER_IN).round() / POSITION_STEPS_PER_IN;
    Point2::new(q(p.x), q(p.y))
}

pub(super) fn status_is(s: &crate::rules::Status, key: &str) -> bool {
    s.get(key).is_some_and(|v| v == "true")
}

fn kill(id: FigureId) -> Event {
    Event::Wounded {
        figure: id,
        wound: Wound::Killed,
        mount: false,
    }
}

impl VolleyFireRules {
    /// The built-in data.
    pub fn builtin() -> Result<Self, crate::spec::SpecError> {
        Ok(Self {
            data: VolleyFire::builtin()?,
        })
    }

    fn weapon_of(&self, state: &GameState, u: &Unit) -> Result<&WeaponData, RuleError> {
        let name = u
            .figures
            .iter()
            .filter_map(|id| state.figure(*id))
            .find(|f| f.active())
            .map(|f| f.weapon.clone())
            .ok_or_else(|| {
                refuse(
                    RefusalKind::OutOfTheFight,
                    format!("{} has nobody left", u.name),
                )
            })?;
        self.data.weapon.get(&name).ok_or(RuleError::Unknown {
            what: "weapon",
            name,
        })
    }

    /// The firing plan: firers in range and cone, the band, the dice.
    fn fire_plan(
        &self,
        state: &GameState,
        p: &FireParams,
    ) -> Result<(Vec<FireDie>, usize, Vec<Event>), RuleError> {
        let (_, u) = unit(state, &p.unit)?;
        let (_, t) = unit(state, &p.target)?;
        if u.side == t.side {
            return Err(refuse(
                RefusalKind::NotAnEnemy,
                "a unit does not fire at its own side",
            ));
        }
        let w = self.weapon_of(state, u)?;
        if w.hit_max.is_empty() {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("{} has no weapon on the firing table", u.name),
            ));
        }
        if status_is(&u.status, "jammed") {
            return Err(refuse(
                RefusalKind::OutOfTheFight,
                format!("{} is clearing a jam", u.name),
            ));
        }
        let edges = self.data.band_edges_in(w);
        let max_in = edges.last().copied().unwrap_or(0.0);
        let targets = alive(state, t);
        let mut ranges: Vec<Length<Inch>> = Vec::new();
        for (k, id) in alive(state, u) {
            if !w.overhead && !w.gun && u.rank_of(k) >= self.data.fire.firing_ranks {
                continue;
            }
            let Some(f) = state.figure(id) else { continue };
            let from = f.placement.center_in_table;
            let nearest = targets
                .iter()
                .filter_map(|(_, tid)| state.figure(*tid))
                .filter(|to| {
                    angle_off_facing_deg(from, f.placement.facing_deg, to.placement.center_in_table)
                        <= self.data.fire.cone_deg / 2.0
                })
                .map(|to| Length::<Inch>::centre_to_centre(&f.placement, &to.placement))
                .min_by(|a, b| a.value().total_cmp(&b.value()));
            if let Some(nearest) = nearest.filter(|n| n.value() <= max_in) {
                ranges.push(nearest);
            }
        }
        if ranges.is_empty() {
            return Err(refuse(
                RefusalKind::OutOfSight,
                format!(
                    "no figure of {} has {} in range and in its {} degree cone",
                    u.name, t.name, self.data.fire.cone_deg
                ),
            ));
        }
        ranges.sort_by(|a, b| a.value().total_cmp(&b.value()));
        let median = ranges[ranges.len() / 2];
        let band = edges.iter().position(|e| median.value() <= *e).unwrap_or(0);
        let double = u.formation == "double-rank" && !w.hit_max_double_rank.is_empty();
        let table = if double {
            &w.hit_max_double_rank
        } else {
            &w.hit_max
        };
        let hit_max = table.get(band).copied().unwrap_or(0);
        let firers = u32::try_from(ranges.len()).unwrap_or(u32::MAX);
        let shaken = status_is(&u.status, "shaken");
        let cover = status_is(&t.status, "cover")
            || shaken
            || (w.gun && firers <= self.data.fire.gun_cover_gunners_max);
        let mixed_key = targets.iter().any(|(_, id)| {
            state
                .figure(*id)
                .is_some_and(|f| status_is(&f.status, "key"))
        }) && !targets.iter().all(|(_, id)| {
            state
                .figure(*id)
                .is_some_and(|f| status_is(&f.status, "key"))
        });
        let dice: Vec<FireDie> = if w.gun {
            vec![FireDie {
                hit_max,
                firers: u32::MAX,
                half_effect: false,
                cover,
                mixed_key_target: mixed_key,
                gun: true,
            }]
        } else {
            self.data
                .fire_groups(firers, w.cavalry)
                .into_iter()
                .map(|(n, half)| FireDie {
                    hit_max,
                    firers: n,
                    half_effect: half,
                    cover,
                    mixed_key_target: mixed_key,
                    gun: false,
                })
                .collect()
        };
        let notes = vec![
            Event::Measured(median.reading(
                format!("median range of {firers} firers of {}", u.name),
                &edges,
            )),
            Event::Note {
                text: format!(
                    "{} fires with {firers} figures, band {band}, hits on 1-{hit_max}{}{}",
                    u.name,
                    if cover { ", half for cover" } else { "" },
                    if double { ", double rank" } else { "" }
                ),
            },
        ];
        Ok((dice, band, notes))
    }

    /// Scouts fire one d6 each (those with a target figure in range and in
    /// their 45 degree arc): 4-6 hit in the open, 5-6 in cover. Returns the
    /// firers and the face needed.
    fn scout_fire_plan(&self, state: &GameState, p: &FireParams) -> Result<(u32, u32), RuleError> {
        let (_, u) = unit(state, &p.unit)?;
        let (_, t) = unit(state, &p.target)?;
        if u.side == t.side {
            return Err(refuse(
                RefusalKind::NotAnEnemy,
                "a unit does not fire at its own side",
            ));
        }
        let w = self.weapon_of(state, u)?;
        let max_in = self.data.band_edges_in(w).last().copied().unwrap_or(0.0);
        let targets: Vec<Point2<f64>> = alive(state, t)
            .into_iter()
            .map(|(_, id)| pos(state, id))
            .collect();
        let firers = alive(state, u)
            .into_iter()
            .filter_map(|(_, id)| state.figure(id))
            .filter(|f| {
                let from = f.placement.center_in_table;
                targets.iter().any(|to| {
                    (to - from).norm() <= max_in
                        && angle_off_facing_deg(from, f.placement.facing_deg, *to)
                            <= self.data.fire.cone_deg / 2.0
                })
            })
            .count();
        if firers == 0 {
            return Err(refuse(
                RefusalKind::OutOfSight,
                format!(
                    "no scout of {} has {} in range and in his {} degree arc",
                    u.name, t.name, self.data.fire.cone_deg
                ),
            ));
        }
        let cover = status_is(&t.status, "cover") || status_is(&u.status, "shaken");
        let need = if cover {
            self.data.fire.scout_hit_cover
        } else {
            self.data.fire.scout_hit_open
        };
        Ok((u32::try_from(firers).unwrap_or(u32::MAX), need))
    }

    /// Exact odds of scout fire: each die hits on `need` or more.
    fn scout_fire_odds(firers: u32, need: u32) -> Vec<NamedOdds> {
        let p = f64::from(7_u32.saturating_sub(need)) / 6.0;
        let n = i32::try_from(firers).unwrap_or(i32::MAX);
        named(&[
            ("p_any_hit", 1.0 - (1.0 - p).powi(n)),
            ("p_all_hit", p.powi(n)),
        ])
    }

    fn resolve_scout_fire(
        &self,
        state: &GameState,
        p: &FireParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let (firers, need) = self.scout_fire_plan(state, p)?;
        let (_, u) = unit(state, &p.unit)?;
        let (_, t) = unit(state, &p.target)?;
        let mut ev = vec![Event::Odds {
            purpose: format!("{} (scouts) fire at {}", u.name, t.name),
            odds: Self::scout_fire_odds(firers, need),
        }];
        let rolls = dice.roll_n(firers as usize, 6)?;
        let hits = rolls.iter().filter(|r| r.face >= need).count();
        ev.push(Event::Rolled {
            purpose: format!("scout fire, {need}+ hits"),
            figure: None,
            dice: rolls,
        });
        let from = centroid(
            state,
            &alive(state, u)
                .into_iter()
                .map(|(_, id)| id)
                .collect::<Vec<_>>(),
        );
        let mut pool: Vec<FigureId> = alive(state, t)
            .into_iter()
            .map(|(_, id)| id)
            .filter(|id| state.figure(*id).is_some_and(|f| !f.leader))
            .collect();
        pool.sort_by(|a, b| {
            (pos(state, *a) - from)
                .norm()
                .total_cmp(&(pos(state, *b) - from).norm())
        });
        ev.push(Event::Note {
            text: format!("{} scouts fire: {hits} hits on {}", firers, t.name),
        });
        ev.extend(pool.into_iter().take(hits).map(kill));
        Ok(ev)
    }

    fn resolve_fire(
        &self,
        state: &GameState,
        p: &FireParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let (ui, u) = unit(state, &p.unit)?;
        let (ti, t) = unit(state, &p.target)?;
        if u.formation == self.data.formation.scouts {
            return self.resolve_scout_fire(state, p, dice);
        }
        let (plan, _, mut ev) = self.fire_plan(state, p)?;
        let odds = fire_odds(&self.data, &plan);
        ev.push(Event::Odds {
            purpose: format!("{} fires at {}", u.name, t.name),
            odds: fire_named(&odds),
        });
        let (mut hits, mut key_hits, mut jammed) = (0, 0, false);
        for die in &plan {
            let roll = dice.roll(20)?;
            ev.push(Event::Rolled {
                purpose: "fire".into(),
                figure: None,
                dice: vec![roll],
            });
            let h = die_hits(&self.data, die, roll.face);
            hits += h.hits;
            key_hits += h.key_hits;
            jammed |= h.jammed;
        }
        if jammed {
            ev.push(Event::Status {
                of: StatusOf::Unit(ui),
                key: "jammed".into(),
                value: Some("true".into()),
            });
            ev.push(Event::Note {
                text: format!(
                    "{} jams: gun and crew fall back {} in to clear it",
                    u.name, self.data.fire.gun_jam_fall_back_in
                ),
            });
            return Ok(ev);
        }
        // Gun crews: two hits for each gunner.
        if status_is(&t.status, "gun") {
            hits /= self.data.fire.hits_per_gunner.max(1);
            key_hits = key_hits.min(hits);
        }
        // Casualties: key figures first for key hits, then nearest first.
        let shooters = alive(state, u)
            .into_iter()
            .map(|(_, id)| id)
            .collect::<Vec<_>>();
        let from = centroid(state, &shooters);
        let mut pool: Vec<FigureId> = alive(state, t).into_iter().map(|(_, id)| id).collect();
        pool.sort_by(|a, b| {
            let da = (pos(state, *a) - from).norm();
            let db = (pos(state, *b) - from).norm();
            da.total_cmp(&db)
        });
        let is_key = |id: &FigureId| {
            state
                .figure(*id)
                .is_some_and(|f| status_is(&f.status, "key"))
        };
        let is_leader = |id: &FigureId| state.figure(*id).is_some_and(|f| f.leader);
        let mut down: Vec<FigureId> = Vec::new();
        for _ in 0..key_hits {
            if let Some(i) = pool.iter().position(|id| is_key(id) && !down.contains(id)) {
                down.push(pool[i]);
            }
        }
        for id in &pool {
            if down.len() as u32 >= hits {
                break;
            }
            if !down.contains(id) && !is_leader(id) {
                down.push(*id);
            }
        }
        if !down.is_empty() {
            let roll = dice.roll(20)?;
            ev.push(Event::Rolled {
                purpose: "leader among the casualties".into(),
                figure: None,
                dice: vec![roll],
            });
            if roll.face >= self.data.fire.leader_hit_face
                && let Some(leader) = pool.iter().find(|id| is_leader(id))
            {
                down.pop();
                down.push(*leader);
                ev.push(Event::Note {
                    text: format!("{}'s leader is among the casualties", t.name),
                });
            }
        }
        ev.push(Event::Note {
            text: format!("{} loses {} men", t.name, down.len()),
        });
        ev.extend(down.into_iter().map(kill));
        // A commander of the target's side in the zone of fire (in range and
        // in the cone of a firer) rolls an extra d20: killed or wounded.
        let w = self.weapon_of(state, u)?;
        let max_in = self.data.band_edges_in(w).last().copied().unwrap_or(0.0);
        for c in state
            .figures
            .iter()
            .filter(|f| f.side == t.side && f.active() && status_is(&f.status, "commander"))
        {
            let in_zone = alive(state, u).iter().any(|(_, id)| {
                state.figure(*id).is_some_and(|f| {
                    let to = c.placement.center_in_table;
                    let from = f.placement.center_in_table;
                    (to - from).norm() <= max_in
                        && angle_off_facing_deg(from, f.placement.facing_deg, to)
                            <= self.data.fire.cone_deg / 2.0
                })
            });
            if !in_zone {
                continue;
            }
            let roll = dice.roll(20)?;
            ev.push(Event::Rolled {
                purpose: format!("{} in the zone of fire", c.name),
                figure: Some(c.id),
                dice: vec![roll],
            });
            if roll.face >= self.data.fire.commander_killed_face {
                ev.push(Event::Note {
                    text: format!("{} is killed", c.name),
                });
                ev.push(kill(c.id));
            } else if roll.face >= self.data.fire.commander_wounded_face {
                ev.push(Event::Note {
                    text: format!("{} takes a minor wound", c.name),
                });
                ev.push(Event::Wounded {
                    figure: c.id,
                    wound: Wound::Light,
                    mount: false,
                });
            }
        }
        let _ = ti;
        Ok(ev)
    }

    fn resolve_move(
        &self,
        state: &GameState,
        p: &MoveParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let (_, u) = unit(state, &p.unit)?;
        let troops = u.status.get("troops").cloned().unwrap_or_default();
        let (from, members) = self.front_of(state, u);
        if members.is_empty() {
            return Err(refuse(
                RefusalKind::OutOfTheFight,
                format!("{} has nobody left", u.name),
            ));
        }
        let has_leader = self.has_leader(state, u, &troops, from, &members);
        let formation = if status_is(&u.status, "shaken") {
            None
        } else {
            Some(u.formation.as_str())
        };
        let n = match formation {
            Some(fm) => self
                .data
                .move_dice(&troops, fm, has_leader)
                .ok_or_else(|| {
                    refuse(
                        RefusalKind::NotInTables,
                        format!("no move dice for {troops} in {}", u.formation),
                    )
                })?,
            None => self.data.melee.shaken_move_dice,
        };
        let rolls = dice.roll_n(n as usize, 6)?;
        let mut allowed = f64::from(total(&rolls));
        if p.rough && self.data.terrain_halves(&troops) {
            allowed = f64::from(total(&rolls).div_ceil(self.data.movement.terrain_divisor.max(1)));
        }
        let mut heat = Vec::new();
        if p.double_time {
            let dt = &self.data.double_time;
            if !dt.troops.contains(&troops)
                || u.formation == self.data.formation.scouts
                || formation.is_none()
            {
                return Err(refuse(
                    RefusalKind::CannotDo,
                    format!(
                        "{} cannot double time (only {} units, never scouts or shaken units)",
                        u.name,
                        dt.troops.join(", ")
                    ),
                ));
            }
            let extra = dice.roll_n(dt.dice as usize, 6)?;
            let faces = [
                extra[0].face,
                extra.get(1).map_or(extra[0].face, |d| d.face),
            ];
            let (more, down) = super::double_time(faces, dt.high_die_troops.contains(&troops));
            allowed += f64::from(more);
            heat.push(Event::Rolled {
                purpose: format!("{} double times", u.name),
                figure: None,
                dice: extra,
            });
            // Heat stroke takes the rearmost men.
            let fallen: Vec<FigureId> = members
                .iter()
                .rev()
                .filter(|(_, id)| state.figure(*id).is_some_and(|f| !f.leader))
                .take(down as usize)
                .map(|(_, id)| *id)
                .collect();
            heat.push(Event::Note {
                text: format!(
                    "{} double times {more} in more; {} down from heat stroke",
                    u.name,
                    fallen.len()
                ),
            });
            for id in fallen {
                heat.push(Event::Status {
                    of: StatusOf::Figure(id),
                    key: "heat-stroke".into(),
                    value: Some("true".into()),
                });
                heat.push(kill(id));
            }
        }
        let want = Point2::new(p.to_in[0], p.to_in[1]) - from;
        let step = if want.norm() > allowed && want.norm() > 0.0 {
            want * (allowed / want.norm())
        } else {
            want
        };
        let mut ev = vec![
            Event::Rolled {
                purpose: format!("{} moves ({n} d6)", u.name),
                figure: None,
                dice: rolls,
            },
            Event::Measured(
                Length::<Inch>::exact(step.norm()).reading(format!("{} moves", u.name), &[allowed]),
            ),
        ];
        ev.splice(1..1, heat.iter().cloned());
        let fallen: Vec<FigureId> = heat
            .iter()
            .filter_map(|e| match e {
                Event::Wounded { figure, .. } => Some(*figure),
                _ => None,
            })
            .collect();
        for (_, id) in members {
            if fallen.contains(&id) {
                continue;
            }
            if let Some(f) = state.figure(id) {
                ev.push(Event::Moved {
                    figure: id,
                    to_in: quantized(f.placement.center_in_table + step),
                    facing_deg: f.placement.facing_deg,
                    pace: Pace::Walk,
                    distance_in: step.norm(),
                    through_rough: p.rough,
                });
            }
        }
        Ok(ev)
    }

    /// A figure's melee modifier from its unit's troops and formation.
    fn fighter(&self, state: &GameState, u: &Unit, id: FigureId, defending: bool) -> MeleeFighter {
        let m = &self.data.melee.modifier;
        // The melee row (`melee`), else the troops' row.
        let troops = u
            .status
            .get("melee")
            .or_else(|| u.status.get("troops"))
            .cloned()
            .unwrap_or_default();
        let officer = state.figure(id).is_some_and(|f| {
            f.rank == crate::rules::Rank::Officer || f.rank == crate::rules::Rank::Chief
        });
        let mounted = state.figure(id).is_some_and(crate::rules::Figure::mounted);
        let key = if officer {
            if mounted {
                "mounted-officer"
            } else {
                "foot-officer"
            }
            .to_owned()
        } else if troops == "sudanese" || troops == "british-cavalry" {
            let k = format!("{troops}/{}", u.formation);
            match m.get(&k) {
                Some(x) if !x.defence_only || defending => k,
                _ => format!("{troops}/other"),
            }
        } else {
            troops
        };
        let mut f = m
            .get(&key)
            .map(|x| MeleeFighter {
                add: x.add,
                win_ties: x.win_ties,
            })
            .unwrap_or_default();
        if status_is(&u.status, "shaken")
            && let Some(s) = m.get("shaken")
        {
            f.add += s.add;
        }
        if defending
            && status_is(&u.status, "works")
            && let Some(s) = m.get("defending-works")
        {
            f.add += s.add;
            f.win_ties |= s.win_ties;
        }
        f
    }

    fn resolve_melee(
        &self,
        state: &GameState,
        p: &MeleeParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let (ai, a) = unit(state, &p.attacker)?;
        let (di, d) = unit(state, &p.defender)?;
        if status_is(&a.status, "shaken") {
            return Err(refuse(
                RefusalKind::Morale,
                format!("{} is shaken and cannot charge", a.name),
            ));
        }
        if a.formation == "square" {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("{} is in square: a square cannot initiate a melee", a.name),
            ));
        }
        let contact = self.data.movement.melee_contact_gap_in + CONTACT_EXTRA_IN;
        let a_all: Vec<FigureId> = alive(state, a).into_iter().map(|(_, id)| id).collect();
        let d_all: Vec<FigureId> = alive(state, d).into_iter().map(|(_, id)| id).collect();
        let near = |x: FigureId, ys: &[FigureId], r: f64| {
            ys.iter()
                .any(|y| (pos(state, x) - pos(state, *y)).norm() <= r)
        };
        let mut a_in: Vec<FigureId> = a_all
            .iter()
            .copied()
            .filter(|x| near(*x, &d_all, contact))
            .collect();
        let contacted: Vec<FigureId> = d_all
            .iter()
            .copied()
            .filter(|x| near(*x, &a_in, contact))
            .collect();
        if a_in.is_empty() {
            return Err(refuse(
                RefusalKind::NotInContact,
                format!("{} is not in contact with {}", a.name, d.name),
            ));
        }
        let support = self.data.melee.support_in;
        let mut d_in: Vec<FigureId> = d_all
            .iter()
            .copied()
            .filter(|x| contacted.contains(x) || near(*x, &contacted, support))
            .collect();
        // Officers and emirs fight last.
        let officer_last = |ids: &mut Vec<FigureId>| {
            ids.sort_by_key(|id| state.figure(*id).is_some_and(|f| f.leader));
        };
        officer_last(&mut a_in);
        officer_last(&mut d_in);
        let mut ev = vec![Event::Note {
            text: format!(
                "{} men of {} fight {} of {}",
                a_in.len(),
                a.name,
                d_in.len(),
                d.name
            ),
        }];
        let a_cas = if p.from_rear {
            self.data.melee.rear_casualty_max
        } else {
            self.data.melee.casualty_max
        };
        for _ in 0..MAX_MELEE_ROUNDS {
            if a_in.is_empty() || d_in.is_empty() {
                break;
            }
            let pairs = a_in.len().min(d_in.len());
            let (mut a_out, mut d_out) = (Vec::new(), Vec::new());
            for i in 0..pairs {
                let (x, y) = (a_in[i], d_in[i]);
                let rolls = dice.roll_n(2, 6)?;
                ev.push(Event::Rolled {
                    purpose: "melee pair".into(),
                    figure: Some(x),
                    dice: rolls.clone(),
                });
                let fx = self.fighter(state, a, x, false);
                let fy = self.fighter(state, d, y, true);
                match pair_winner(fx, fy, rolls[0].face, rolls[1].face) {
                    Some(true) => {
                        d_out.push(y);
                        if rolls[1].face <= a_cas {
                            ev.push(kill(y));
                        }
                    }
                    Some(false) => {
                        a_out.push(x);
                        if rolls[0].face <= self.data.melee.casualty_max {
                            ev.push(kill(x));
                        }
                    }
                    None => {}
                }
            }
            a_in.retain(|x| !a_out.contains(x));
            d_in.retain(|y| !d_out.contains(y));
        }
        let loser = match (a_in.is_empty(), d_in.is_empty()) {
            (true, false) => Some((ai, a, d)),
            (false, true) => Some((di, d, a)),
            _ => None,
        };
        let Some((li, l, w)) = loser else {
            ev.push(Event::Note {
                text: "the melee is undecided".into(),
            });
            return Ok(ev);
        };
        let rolls = dice.roll_n(self.data.melee.fall_back_dice as usize, 6)?;
        let dist = f64::from(total(&rolls));
        ev.push(Event::Rolled {
            purpose: format!("{} falls back", l.name),
            figure: None,
            dice: rolls,
        });
        ev.push(Event::Status {
            of: StatusOf::Unit(li),
            key: "shaken".into(),
            value: Some("true".into()),
        });
        let l_ids: Vec<FigureId> = alive(state, l).into_iter().map(|(_, id)| id).collect();
        let w_ids: Vec<FigureId> = alive(state, w).into_iter().map(|(_, id)| id).collect();
        let away = centroid(state, &l_ids) - centroid(state, &w_ids);
        let dir = if away.norm() > 0.0 {
            away / away.norm()
        } else {
            Vector2::new(0.0, -1.0)
        };
        for id in l_ids {
            if let Some(f) = state.figure(id) {
                let to = f.placement.center_in_table + dir * dist;
                let to = Point2::new(
                    to.x.clamp(0.0, state.table.width_in),
                    to.y.clamp(0.0, state.table.depth_in),
                );
                ev.push(Event::Moved {
                    figure: id,
                    to_in: quantized(to),
                    facing_deg: f.placement.facing_deg,
                    pace: Pace::Evade,
                    distance_in: dist,
                    through_rough: false,
                });
            }
        }
        ev.push(Event::Note {
            text: format!(
                "{} loses the melee, falls back {dist} in and is shaken",
                l.name
            ),
        });
        Ok(ev)
    }

    fn resolve_regroup(
        &self,
        state: &GameState,
        p: &UnitParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let (ui, u) = unit(state, &p.unit)?;
        if !status_is(&u.status, "shaken") {
            return Err(refuse(
                RefusalKind::Morale,
                format!("{} is not shaken", u.name),
            ));
        }
        let roll = dice.roll(6)?;
        let mut ev = vec![Event::Rolled {
            purpose: format!("{} regroups", u.name),
            figure: None,
            dice: vec![roll],
        }];
        if roll.face < self.data.melee.still_shaken_min {
            ev.push(Event::Status {
                of: StatusOf::Unit(ui),
                key: "shaken".into(),
                value: None,
            });
        }
        Ok(ev)
    }

    fn resolve_morale(
        &self,
        state: &GameState,
        p: &SideParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let si = state
            .sides
            .iter()
            .position(|s| s.name == p.side)
            .ok_or(RuleError::Unknown {
                what: "side",
                name: p.side.clone(),
            })?;
        let all = state.figures.iter().filter(|f| f.side == si).count();
        let up = state
            .figures
            .iter()
            .filter(|f| f.side == si && f.active())
            .count();
        if all == 0 || up as f64 >= self.data.morale.test_below_fraction * all as f64 {
            return Err(refuse(
                RefusalKind::Morale,
                format!("{} has {up} of {all} men: no morale test", p.side),
            ));
        }
        let nationality = state.sides[si]
            .status
            .get("nationality")
            .cloned()
            .unwrap_or_default();
        let roll = dice.roll(self.data.morale.die)?;
        let result = self
            .data
            .morale_result(&nationality, roll.face)
            .ok_or_else(|| {
                refuse(
                    RefusalKind::NotInTables,
                    format!("no morale table for `{nationality}`"),
                )
            })?;
        Ok(vec![
            Event::Rolled {
                purpose: format!("{} army morale", p.side),
                figure: None,
                dice: vec![roll],
            },
            Event::Status {
                of: StatusOf::Side(si),
                key: "morale".into(),
                value: Some(
                    match result {
                        MoraleResult::Holds => "holds",
                        MoraleResult::Routs => "routs",
                        MoraleResult::Disaster => "disaster",
                    }
                    .into(),
                ),
            },
        ])
    }

    /// An action runs only in its phase of the turn; moves and formation
    /// changes only in the turn of the unit's side.
    fn check_phase(&self, state: &GameState, action: &Action) -> Result<(), RuleError> {
        let name = action.name();
        let Some(phase) = self.data.turn.action_phase.get(name) else {
            return Ok(());
        };
        let now = self
            .data
            .turn
            .phases
            .get(state.phase)
            .map_or("", String::as_str);
        if now != phase {
            return Err(refuse(
                RefusalKind::WrongPhase,
                format!(
                    "`{name}` belongs to the {phase} phase; this is the {now} phase (end the phase to go on)"
                ),
            ));
        }
        if self.data.turn.own_side_actions.iter().any(|a| a == name)
            && let Some(unit_name) = action.unit()
        {
            let (_, u) = unit(state, unit_name)?;
            if u.side != state.active_side {
                let side = state.sides.get(u.side).map_or("?", |s| s.name.as_str());
                return Err(refuse(
                    RefusalKind::NotYourTurn,
                    format!(
                        "{} moves in its own side's turn ({side}), not this one",
                        u.name
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Alive figures laid out in a formation around a front centre: ranks
    /// front to back, files left to right seen from behind; a hollow square
    /// fills its four sides in turn, each facing out. Returns positions and
    /// facings, and the frontage.
    fn layout(
        &self,
        formation: &str,
        n: usize,
        front: Point2<f64>,
        facing_deg: f64,
    ) -> Result<(Vec<Spot>, u32), RuleError> {
        let fd = self.data.formation.layout.get(formation).ok_or_else(|| {
            let known: Vec<&str> = self
                .data
                .formation
                .layout
                .keys()
                .map(String::as_str)
                .collect();
            refuse(
                RefusalKind::NotInTables,
                format!(
                    "no formation `{formation}` (formations: {})",
                    known.join(", ")
                ),
            )
        })?;
        let sp = self.data.formation.spacing_in;
        let a = facing_deg.to_radians();
        let forward = Vector2::new(a.cos(), a.sin());
        let right = Vector2::new(forward.y, -forward.x);
        let n_u32 = u32::try_from(n).unwrap_or(u32::MAX);
        if fd.hollow {
            // Sides as equal as possible: front, right, rear, left.
            let side = n.div_ceil(4).max(1);
            let half = (side as f64 - 1.0) / 2.0 * sp;
            let centre = front - forward * (half + sp / 2.0);
            let mut out = Vec::new();
            for k in 0..n {
                let (s, i) = (k / side, k % side);
                let along = (i as f64 - (side as f64 - 1.0) / 2.0) * sp;
                let depth = half + sp / 2.0;
                let (out_dir, across) = match s {
                    0 => (forward, right),
                    1 => (right, -forward),
                    2 => (-forward, -right),
                    _ => (-right, forward),
                };
                let p = centre + out_dir * depth + across * along;
                let f = out_dir.y.atan2(out_dir.x).to_degrees().rem_euclid(360.0);
                out.push((quantized(p), f));
            }
            return Ok((out, u32::try_from(side).unwrap_or(u32::MAX)));
        }
        let per_rank = match (fd.frontage, fd.ranks) {
            (Some(f), _) => f.max(1),
            (None, Some(r)) => n_u32.div_ceil(r.max(1)).max(1),
            (None, None) => n_u32.max(1),
        } as usize;
        let out = (0..n)
            .map(|k| {
                let (row, col) = (k / per_rank, k % per_rank);
                let in_row = per_rank.min(n - row * per_rank);
                let across = (col as f64 - (in_row as f64 - 1.0) / 2.0) * sp;
                let p = front + right * across - forward * (row as f64 * sp);
                (quantized(p), facing_deg.rem_euclid(360.0))
            })
            .collect();
        Ok((out, u32::try_from(per_rank).unwrap_or(u32::MAX)))
    }

    /// British units need their own leader; Dervish groups a leader within
    /// 24 in of their front.
    pub(super) fn has_leader(
        &self,
        state: &GameState,
        u: &Unit,
        troops: &str,
        from: Point2<f64>,
        members: &[(usize, FigureId)],
    ) -> bool {
        if troops.starts_with("dervish") {
            state.figures.iter().any(|f| {
                f.side == u.side
                    && f.leader
                    && f.active()
                    && (f.placement.center_in_table - from).norm()
                        <= self.data.movement.dervish_leader_radius_in
            })
        } else {
            members
                .iter()
                .any(|(_, id)| state.figure(*id).is_some_and(|f| f.leader))
        }
    }

    /// The front centre of a unit (its foremost rank with men left) and its
    /// alive figures.
    pub(super) fn front_of(
        &self,
        state: &GameState,
        u: &Unit,
    ) -> (Point2<f64>, Vec<(usize, FigureId)>) {
        let members = alive(state, u);
        let first_rank = members
            .iter()
            .map(|(k, _)| u.rank_of(*k))
            .min()
            .unwrap_or(0);
        let front: Vec<FigureId> = members
            .iter()
            .filter(|(k, _)| u.rank_of(*k) == first_rank)
            .map(|(_, id)| *id)
            .collect();
        (centroid(state, &front), members)
    }

    /// A formation change: half the present formation's move, then the new
    /// formation and facing at the new place.
    fn resolve_form(
        &self,
        state: &GameState,
        p: &FormParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let (ui, u) = unit(state, &p.unit)?;
        let troops = u.status.get("troops").cloned().unwrap_or_default();
        if status_is(&u.status, "shaken") {
            return Err(refuse(
                RefusalKind::Morale,
                format!("{} is shaken: it regroups first", u.name),
            ));
        }
        let allowed_formations = self.data.movement.dice.get(&troops);
        if p.formation == self.data.formation.scouts
            || !allowed_formations.is_some_and(|f| f.contains_key(&p.formation))
        {
            let known: Vec<&str> = allowed_formations
                .map(|f| {
                    f.keys()
                        .map(String::as_str)
                        .filter(|k| *k != self.data.formation.scouts)
                        .collect()
                })
                .unwrap_or_default();
            return Err(refuse(
                RefusalKind::CannotDo,
                format!(
                    "{} ({troops}) cannot form {}; its formations: {}",
                    u.name,
                    p.formation,
                    known.join(", ")
                ),
            ));
        }
        let (from, members) = self.front_of(state, u);
        if members.is_empty() {
            return Err(refuse(
                RefusalKind::OutOfTheFight,
                format!("{} has nobody left", u.name),
            ));
        }
        let has_leader = members
            .iter()
            .any(|(_, id)| state.figure(*id).is_some_and(|f| f.leader));
        let n = self
            .data
            .move_dice(&troops, &u.formation, has_leader)
            .ok_or_else(|| {
                refuse(
                    RefusalKind::NotInTables,
                    format!("no move dice for {troops} in {}", u.formation),
                )
            })?;
        let rolls = dice.roll_n(n as usize, 6)?;
        let mut allowed = total(&rolls).div_ceil(self.data.formation.change_move_divisor.max(1));
        if p.rough && self.data.terrain_halves(&troops) {
            allowed = allowed.div_ceil(self.data.movement.terrain_divisor.max(1));
        }
        let allowed = f64::from(allowed);
        let want = p
            .to_in
            .map_or(Vector2::zeros(), |t| Point2::new(t[0], t[1]) - from);
        let step = if want.norm() > allowed {
            want * (allowed / want.norm())
        } else {
            want
        };
        let facing = p.facing_deg.unwrap_or_else(|| {
            state
                .figure(members[0].1)
                .map_or(0.0, |f| f.placement.facing_deg)
        });
        let (spots, frontage) = self.layout(&p.formation, members.len(), from + step, facing)?;
        let mut ev = vec![
            Event::Rolled {
                purpose: format!("{} changes formation ({n} d6, half)", u.name),
                figure: None,
                dice: rolls,
            },
            Event::Measured(
                Length::<Inch>::exact(step.norm())
                    .reading(format!("{} moves while forming", u.name), &[allowed]),
            ),
            Event::Formed {
                unit: ui,
                formation: p.formation.clone(),
                frontage,
            },
        ];
        // Alive figures take the new places in unit order; the fallen keep
        // theirs.
        for ((_, id), (to, f)) in members.iter().zip(spots) {
            let from_p = pos(state, *id);
            ev.push(Event::Moved {
                figure: *id,
                to_in: to,
                facing_deg: f,
                pace: Pace::Walk,
                distance_in: (to - from_p).norm(),
                through_rough: p.rough,
            });
        }
        Ok(ev)
    }

    fn resolve_inner(
        &self,
        state: &GameState,
        command: &Command,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        match command {
            Command::EndPhase => {
                let mut ev = vec![next_phase_event(state, self.data.turn.phases.len())];
                // A jammed gun is cleared by the start of its side's next turn.
                for (i, u) in state.units.iter().enumerate() {
                    if status_is(&u.status, "jammed")
                        && state.phase + 1 >= self.data.turn.phases.len()
                    {
                        ev.push(Event::Status {
                            of: StatusOf::Unit(i),
                            key: "jammed".into(),
                            value: None,
                        });
                    }
                }
                Ok(ev)
            }
            Command::VolleyFire(action) => {
                self.check_phase(state, action)?;
                self.resolve_action(state, action, dice)
            }
            other => Err(RuleError::Unsupported {
                rule_set: NAME.into(),
                action: crate::rules::action::action_name(other),
            }),
        }
    }

    fn resolve_action(
        &self,
        state: &GameState,
        action: &Action,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        match action {
            Action::Fire(p) => self.resolve_fire(state, p, dice),
            Action::Move(p) => self.resolve_move(state, p, dice),
            Action::Form(p) => self.resolve_form(state, p, dice),
            Action::Melee(p) => self.resolve_melee(state, p, dice),
            Action::Regroup(p) => self.resolve_regroup(state, p, dice),
            Action::Morale(p) => self.resolve_morale(state, p, dice),
        }
    }
}

/// Fire odds as named probabilities.
pub fn fire_named(o: &super::FireOdds) -> Vec<NamedOdds> {
    named(&[
        ("p_any_hit", o.p_any_hit),
        ("p_key_hit", o.p_key_hit),
        ("p_jam", o.p_jam),
        ("p_leader_hit", o.p_leader_hit),
    ])
}

impl RuleSet for VolleyFireRules {
    fn name(&self) -> &str {
        NAME
    }

    fn actions(&self) -> Vec<crate::rules::describe::ActionSpec> {
        super::menu::actions(|name| self.data.turn.action_phase.get(name).cloned())
    }

    fn phases(&self) -> Vec<String> {
        self.data.turn.phases.clone()
    }

    fn knows_weapon(&self, name: &str) -> bool {
        self.data.weapon.contains_key(name)
    }

    fn knows_melee_weapon(&self, _name: &str) -> bool {
        // Melee modifiers come from troops and formation, not weapons.
        true
    }

    fn check(&self, state: &GameState, command: &Command) -> Result<(), RuleError> {
        self.resolve_inner(state, command, &mut CheckDice)
            .map(|_| ())
    }

    fn odds(&self, state: &GameState, command: &Command) -> Result<Vec<NamedOdds>, RuleError> {
        match command {
            Command::VolleyFire(Action::Fire(p)) => {
                if unit(state, &p.unit)?.1.formation == self.data.formation.scouts {
                    let (firers, need) = self.scout_fire_plan(state, p)?;
                    return Ok(Self::scout_fire_odds(firers, need));
                }
                let (plan, _, _) = self.fire_plan(state, p)?;
                Ok(fire_named(&fire_odds(&self.data, &plan)))
            }
            _ => Ok(Vec::new()),
        }
    }

    fn parse_action(&self, name: &str, params: &serde_json::Value) -> Result<Command, RuleError> {
        crate::rules::action::parse_action_or_shared(
            NAME,
            Action::NAMES,
            || Action::parse(name, params).map(Command::VolleyFire),
            name,
            params,
        )
    }

    fn overlays(
        &self,
        state: &GameState,
        figure: FigureId,
    ) -> Vec<crate::rules::overlay::OverlayShape> {
        self.overlay_shapes(state, figure)
    }

    fn resolve(
        &self,
        state: &GameState,
        command: &Command,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        self.resolve_inner(state, command, dice)
    }
}
