//! Volley Fire! fire: the firing table (one d20 per group), scouts' d6
//! each, pistols' 6s, the Gardner gun's jam, casualties and the leaders'
//! d20s. "Fire is simultaneous": a man hit in the fire phase still fires in
//! it, and each unit fires once a phase.
//!
//! # Conventions
//! Table inches; a firer's range is to the nearest target figure in his
//! 45 degree cone; bands 0 = point blank, 1 = deadly, 2 = close.

use nalgebra::{Point2, Vector2};

use super::action::FireParams;
use super::engine::{
    VolleyFireRules, alive, centroid, fst, ids, kill, pos, quantized, refuse, standing_this_phase,
    unit, ust,
};
use super::event::Event as VfEvent;
use super::status::Troops;
use super::{FireDie, WeaponData, die_hits, fire_odds};
use crate::core::dice::Dice;
use crate::core::odds::{NamedOdds, named};
use crate::core::{Inch, Length, RefusalKind};
use crate::geometry::angle_off_facing_deg;
use crate::rules::stand_to::Wound;
use crate::rules::{Event, Figure, FigureId, GameState, Pace, RuleError, Unit};

/// Which kind of fire a unit gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FireKind {
    /// The firing table: one d20 per group.
    Table,
    /// Scouts: a d6 each.
    Scouts,
    /// Pistols: d6 by band, 6s hit.
    Pistols,
    /// A gun the unit mans, its crew gone: one d20, as into cover.
    CapturedGun,
}

/// A unit's fire from the firing table, before the dice.
#[derive(Debug, Clone)]
pub struct FirePlan {
    pub dice: Vec<FireDie>,
    /// The events that record the measurement and the numbers.
    pub notes: Vec<Event>,
}

/// Readings too close to call kept for one fire, at most.
const MAX_CLOSE_CALLS: usize = 8;

/// Each firer's range to the nearest man he may fire at.
#[derive(Debug, Clone, Default)]
struct FirerRanges {
    /// Ascending.
    ranges: Vec<Length<Inch>>,
    /// Calls on range, visibility or the cover's edge too close to call.
    close_calls: Vec<crate::core::Reading>,
    /// Firers with a man in range and cone that concealment hides.
    hidden: usize,
    /// Firers whose every line of fire passes over other troops without
    /// the elevation that overhead fire needs.
    blocked: usize,
}

/// Pistol fire before the dice: d6 per firer by his band.
#[derive(Debug, Clone)]
pub struct PistolPlan {
    pub dice: u32,
    pub firers: u32,
}

impl VolleyFireRules {
    fn weapon_of(&self, state: &GameState, u: &Unit) -> Result<&WeaponData, RuleError> {
        let name = standing_this_phase(state, u)
            .into_iter()
            .filter_map(|(_, id)| state.figure(id))
            .find(|f| {
                self.data
                    .weapon
                    .get(&f.weapon)
                    .is_some_and(|w| !w.range_ft.is_empty())
            })
            .or_else(|| {
                u.figures
                    .iter()
                    .filter_map(|id| state.figure(*id))
                    .find(|f| f.active())
            })
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

    /// The kind of fire the unit gives.
    pub(super) fn fire_kind(
        &self,
        state: &GameState,
        p: &FireParams,
    ) -> Result<FireKind, RuleError> {
        let (_, u) = unit(state, &p.unit)?;
        if p.gun {
            return Ok(FireKind::CapturedGun);
        }
        if u.formation == self.data.formation.scouts {
            return Ok(FireKind::Scouts);
        }
        let w = self.weapon_of(state, u)?;
        Ok(if w.hit_max.is_empty() && !w.pistol_dice.is_empty() {
            FireKind::Pistols
        } else {
            FireKind::Table
        })
    }

    /// What every kind of fire needs: two units of different sides, a
    /// firer that may act, a target that may be fired upon.
    pub(super) fn check_fire_units<'a>(
        &self,
        state: &'a GameState,
        p: &FireParams,
    ) -> Result<(&'a Unit, &'a Unit), RuleError> {
        let (_, u) = unit(state, &p.unit)?;
        let (_, t) = unit(state, &p.target)?;
        if u.side == t.side {
            return Err(refuse(
                RefusalKind::NotAnEnemy,
                "a unit does not fire at its own side",
            ));
        }
        self.check_may_act(state, u)?;
        if ust(u).jammed {
            return Err(refuse(
                RefusalKind::OutOfTheFight,
                format!("{} is clearing a jam and does not fire this turn", u.name),
            ));
        }
        // "Mounted leaders ... Cannot be fired upon."
        if ust(t).troops == Some(Troops::MountedLeaders) {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("{} are mounted leaders: they cannot be fired upon", t.name),
            ));
        }
        Ok((u, t))
    }

    /// Can the unit fire at the target now? (No dice.)
    pub(super) fn check_fire(&self, state: &GameState, p: &FireParams) -> Result<(), RuleError> {
        if p.evade {
            let (_, t) = unit(state, &p.target)?;
            self.check_scouts_evade(t)?;
        }
        match self.fire_kind(state, p)? {
            FireKind::Scouts => self.scout_fire_plan(state, p).map(drop),
            FireKind::Pistols => self.pistol_fire_plan(state, p).map(drop),
            FireKind::Table => self.fire_plan(state, p).map(drop),
            FireKind::CapturedGun => self.captured_gun_plan(state, p).map(drop),
        }
    }

    /// The range of each firer (standing this phase, in his rank and cone)
    /// to the nearest target figure he may fire at: in range (24 in, guns
    /// 36 in, into woods and scrub), seen (concealment) and, from cover,
    /// at its edge; `ranks`: only the front ranks fire.
    fn firer_ranges(
        &self,
        state: &GameState,
        u: &Unit,
        t: &Unit,
        max_in: f64,
        ranks: Option<usize>,
        weapon: Option<&str>,
    ) -> FirerRanges {
        let targets: Vec<&Figure> = standing_this_phase(state, t)
            .into_iter()
            .filter_map(|(_, tid)| state.figure(tid))
            .filter(|to| !(to.leader && to.mounted()))
            .collect();
        let exposed = self.exposed(state, t);
        let others = super::overhead::others(state, u, t);
        let mut out = FirerRanges::default();
        for (k, id) in standing_this_phase(state, u) {
            if ranks.is_some_and(|r| u.rank_of(k) >= r) {
                continue;
            }
            let Some(f) = state.figure(id) else { continue };
            if weapon.is_some_and(|w| f.weapon != w) {
                continue;
            }
            let gun = self.data.weapon.get(&f.weapon).is_some_and(|w| w.gun);
            let overhead = self.data.weapon.get(&f.weapon).is_some_and(|w| w.overhead);
            let from = f.placement.center_in_table;
            let (mut best, mut hidden): (Option<Length<Inch>>, bool) = (None, false);
            let mut blocked = false;
            for to in &targets {
                let off = angle_off_facing_deg(
                    from,
                    f.placement.facing_deg,
                    to.placement.center_in_table,
                );
                if off > self.data.fire.cone_deg / 2.0 {
                    continue;
                }
                let (sees, seen_by) = self.sees(state, f, to, exposed);
                let (edge, edge_by) = self.fires_out(state, f, to);
                let range = Length::<Inch>::centre_to_centre(&f.placement, &to.placement);
                let limit = self
                    .woods_range_in(state, to, gun)
                    .map_or(max_in, |w| w.min(max_in));
                let in_range = range.at_most(limit);
                for (call, by, what) in [
                    (sees, seen_by, "visibility into cover"),
                    (edge, edge_by, "at the edge of its cover"),
                    (in_range, range, "range"),
                ] {
                    if call.too_close_to_call && out.close_calls.len() < MAX_CLOSE_CALLS {
                        out.close_calls.push(
                            by.reading_with(format!("{} to {}: {what}", f.name, to.name), &call),
                        );
                    }
                }
                if !(sees.value && edge.value) {
                    hidden = true;
                    continue;
                }
                if !in_range.value {
                    continue;
                }
                if !overhead && !super::overhead::may_fire_over(state, &others, f, to) {
                    blocked = true;
                    continue;
                }
                if best.is_none_or(|b| range.value() < b.value()) {
                    best = Some(range);
                }
            }
            match best {
                Some(b) => out.ranges.push(b),
                None if hidden => out.hidden += 1,
                None if blocked => out.blocked += 1,
                None => {}
            }
        }
        out.ranges.sort_by(|a, b| a.value().total_cmp(&b.value()));
        out
    }

    /// The refusal when no firer has a target: concealment, or range and
    /// cone.
    fn no_target(&self, u: &Unit, t: &Unit, r: &FirerRanges, kind: RefusalKind) -> RuleError {
        if r.hidden > 0 {
            let c = &self.data.concealment;
            return refuse(
                RefusalKind::OutOfSight,
                format!(
                    "no firing into concealment unless a target is visible: no figure of {} sees a man of {} (into cover a viewer must be within {} in of it and sees {} in into it, {} in from its edge; concealed troops fire out only from its edge)",
                    u.name, t.name, c.view_from_in, c.see_into_in, c.see_into_from_edge_in
                ),
            );
        }
        if r.blocked > 0 {
            return refuse(
                RefusalKind::OutOfSight,
                format!(
                    "{}'s fire at {} passes over other troops: rifles and guns fire overhead only when the target is further from them than the firer, and the firer or the target is elevated (on a hill)",
                    u.name, t.name
                ),
            );
        }
        refuse(
            kind,
            format!(
                "no figure of {} has {} in range and in its {} degree cone",
                u.name, t.name, self.data.fire.cone_deg
            ),
        )
    }

    /// The firing plan: firers in range and cone, the band, the dice.
    pub(super) fn fire_plan(
        &self,
        state: &GameState,
        p: &FireParams,
    ) -> Result<FirePlan, RuleError> {
        let (u, t) = self.check_fire_units(state, p)?;
        let w = self.weapon_of(state, u)?;
        if w.hit_max.is_empty() {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("{} has no weapon on the firing table", u.name),
            ));
        }
        if w.gun && u.formation == super::movement::GUN_FORMATIONS[1] {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("{} is limbered: unlimber it to fire", u.name),
            ));
        }
        if w.gun && ust(u).gun_destroyed == Some(true) {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("{}'s gun is destroyed", u.name),
            ));
        }
        if w.gun && ust(u).gun_moved_full == Some(state.turn) {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!(
                    "{} moved its full move this turn: a deployed gun fires in the turn it moves only one d6 (the move's `fire_after`)",
                    u.name
                ),
            ));
        }
        if w.gun {
            self.check_crew_has_gun(state, u)?;
        }
        if w.gun && ust(u).limbered_turn == Some(state.turn) {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!(
                    "{} limbered or unlimbered this turn: it cannot fire the turn that it does so",
                    u.name
                ),
            ));
        }
        let edges = self.data.band_edges_in(w);
        let max_in = edges.last().copied().unwrap_or(0.0);
        let ranks = (!w.overhead && !w.gun).then_some(self.data.fire.firing_ranks);
        let found = self.firer_ranges(state, u, t, max_in, ranks, None);
        if found.ranges.is_empty() {
            return Err(self.no_target(u, t, &found, RefusalKind::OutOfSight));
        }
        let ranges = &found.ranges;
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
        // "Always fire as if their target is In Cover": shaken firers, and
        // two gunners or fewer manning a gun.
        let cover = self.in_cover(state, t)
            || ust(u).shaken
            || (w.gun && firers <= self.data.fire.gun_cover_gunners_max);
        let dice = self.fire_dice(state, t, w, firers, hit_max, cover);
        let mut notes: Vec<Event> = found
            .close_calls
            .iter()
            .cloned()
            .map(Event::Measured)
            .collect();
        notes.extend([
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
        ]);
        Ok(FirePlan { dice, notes })
    }

    /// The d20s of the plan: one for a gun, else one per group.
    pub(super) fn fire_dice(
        &self,
        state: &GameState,
        t: &Unit,
        w: &WeaponData,
        firers: u32,
        hit_max: u32,
        cover: bool,
    ) -> Vec<FireDie> {
        let targets = standing_this_phase(state, t);
        let is_key = |id: &FigureId| state.figure(*id).is_some_and(|f| fst(f).key);
        let mixed_key =
            targets.iter().any(|(_, id)| is_key(id)) && !targets.iter().all(|(_, id)| is_key(id));
        if w.gun {
            return vec![FireDie {
                hit_max,
                firers: u32::MAX,
                half_effect: false,
                cover,
                mixed_key_target: mixed_key,
                gun: true,
            }];
        }
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
    }

    /// Scouts fire one d6 each (those with a target figure in range and in
    /// their 45 degree arc): 4-6 hit in the open, 5-6 in cover. Returns the
    /// firers and the face needed.
    pub(super) fn scout_fire_plan(
        &self,
        state: &GameState,
        p: &FireParams,
    ) -> Result<(u32, u32), RuleError> {
        let (u, t) = self.check_fire_units(state, p)?;
        let w = self.weapon_of(state, u)?;
        let max_in = self.data.band_edges_in(w).last().copied().unwrap_or(0.0);
        let found = self.firer_ranges(state, u, t, max_in, None, None);
        let firers = found.ranges.len();
        if firers == 0 {
            return Err(self.no_target(u, t, &found, RefusalKind::OutOfSight));
        }
        let cover = self.in_cover(state, t) || ust(u).shaken;
        let need = if cover {
            self.data.fire.scout_hit_cover
        } else {
            self.data.fire.scout_hit_open
        };
        Ok((u32::try_from(firers).unwrap_or(u32::MAX), need))
    }

    /// Exact odds of scout fire: each die hits on `need` or more.
    pub(super) fn scout_fire_odds(firers: u32, need: u32) -> Vec<NamedOdds> {
        let p = f64::from(7_u32.saturating_sub(need)) / 6.0;
        let n = i32::try_from(firers).unwrap_or(i32::MAX);
        named(&[
            ("p_any_hit", 1.0 - (1.0 - p).powi(n)),
            ("p_all_hit", p.powi(n)),
        ])
    }

    /// "Pistols hit with 6's only in all cases. Point blank roll 6 D6,
    /// deadly range roll 4 D6, and close roll 2 D6." Each pistol-armed
    /// figure rolls by the band of his nearest target.
    pub(super) fn pistol_fire_plan(
        &self,
        state: &GameState,
        p: &FireParams,
    ) -> Result<PistolPlan, RuleError> {
        let (u, t) = self.check_fire_units(state, p)?;
        let w = self.weapon_of(state, u)?;
        let name = standing_this_phase(state, u)
            .into_iter()
            .filter_map(|(_, id)| state.figure(id))
            .map(|f| f.weapon.clone())
            .find(|n| self.data.weapon.get(n) == Some(w))
            .unwrap_or_default();
        let edges = self.data.band_edges_in(w);
        let max_in = edges.last().copied().unwrap_or(0.0);
        let found = self.firer_ranges(state, u, t, max_in, None, Some(&name));
        let ranges = &found.ranges;
        let dice: u32 = ranges
            .iter()
            .map(|r| {
                let band = edges.iter().position(|e| r.value() <= *e).unwrap_or(0);
                w.pistol_dice.get(band).copied().unwrap_or(0)
            })
            .sum();
        if dice == 0 {
            if found.hidden > 0 {
                return Err(self.no_target(u, t, &found, RefusalKind::OutOfRange));
            }
            return Err(refuse(
                RefusalKind::OutOfRange,
                format!(
                    "no pistol of {} has {} within {max_in:.0} in and in its cone",
                    u.name, t.name
                ),
            ));
        }
        Ok(PistolPlan {
            dice,
            firers: u32::try_from(ranges.len()).unwrap_or(u32::MAX),
        })
    }

    /// Exact odds of pistol fire: each d6 hits on the pistol face or more.
    pub(super) fn pistol_fire_odds(&self, plan: &PistolPlan) -> Vec<NamedOdds> {
        let p = f64::from(7_u32.saturating_sub(self.data.fire.pistol_hit_face)) / 6.0;
        let n = i32::try_from(plan.dice).unwrap_or(i32::MAX);
        named(&[("p_any_hit", 1.0 - (1.0 - p).powi(n))])
    }

    /// The target scouts try to evade first (three d6); the fire is then
    /// given at where they stand, or spent if they got out of it.
    fn resolve_fire_evaded(
        &self,
        state: &GameState,
        p: &FireParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        self.check_fire(state, p)?;
        let (ui, u) = unit(state, &p.unit)?;
        let (_, t) = unit(state, &p.target)?;
        let (mut ev, _) = self.scouts_evade(state, t, u, dice)?;
        let now = super::scouts::applied(state, &ev);
        let plain = FireParams {
            evade: false,
            ..p.clone()
        };
        match self.check_fire(&now, &plain) {
            Ok(()) => ev.extend(self.resolve_fire(&now, &plain, dice)?),
            Err(RuleError::Refused(r)) => {
                ev.push(Self::acted(state, ui));
                ev.push(Event::Note {
                    text: format!("{} evade {}'s fire: {}", t.name, u.name, r.why),
                });
            }
            Err(e) => return Err(e),
        }
        Ok(ev)
    }

    pub(super) fn resolve_fire(
        &self,
        state: &GameState,
        p: &FireParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        if p.evade {
            return self.resolve_fire_evaded(state, p, dice);
        }
        let (ui, u) = unit(state, &p.unit)?;
        let (_, t) = unit(state, &p.target)?;
        let (hits, key_hits, mut ev) = match self.fire_kind(state, p)? {
            FireKind::Scouts => {
                let (firers, need) = self.scout_fire_plan(state, p)?;
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
                (u32::try_from(hits).unwrap_or(u32::MAX), 0, ev)
            }
            FireKind::Pistols => {
                let plan = self.pistol_fire_plan(state, p)?;
                let face = self.data.fire.pistol_hit_face;
                let mut ev = vec![Event::Odds {
                    purpose: format!("{} (pistols) fire at {}", u.name, t.name),
                    odds: self.pistol_fire_odds(&plan),
                }];
                let rolls = dice.roll_n(plan.dice as usize, 6)?;
                let hits = rolls.iter().filter(|r| r.face >= face).count();
                ev.push(Event::Rolled {
                    purpose: format!("{} pistols, {} d6, {face}s hit", plan.firers, plan.dice),
                    figure: None,
                    dice: rolls,
                });
                (u32::try_from(hits).unwrap_or(u32::MAX), 0, ev)
            }
            FireKind::Table | FireKind::CapturedGun => {
                let captured = self.fire_kind(state, p)? == FireKind::CapturedGun;
                let plan = if captured {
                    self.captured_gun_plan(state, p)?
                } else {
                    self.fire_plan(state, p)?
                };
                let mut ev = plan.notes.clone();
                ev.push(Event::Odds {
                    purpose: format!("{} fires at {}", u.name, t.name),
                    odds: fire_named_of(self, &plan),
                });
                let (hits, key_hits, jammed) = self.roll_fire_dice(&plan, dice, &mut ev)?;
                if jammed {
                    ev.push(Self::acted(state, ui));
                    ev.extend(self.exposure(state, ui, u));
                    ev.extend(self.jam(state, ui, u));
                    if captured {
                        ev.extend(self.captured_gun_falls_back(state, ui, u));
                    }
                    return Ok(ev);
                }
                (hits, key_hits, ev)
            }
        };
        let (hits, key_hits) = if self.halted_outside(state, u) {
            // "To enter, must spend one turn halted outside - fire at 1/2
            // hit result (round up) while so doing."
            ev.push(Event::Note {
                text: format!(
                    "{} is halted outside a building: half of {hits} hits",
                    u.name
                ),
            });
            (super::half_up(hits), super::half_up(key_hits))
        } else {
            (hits, key_hits)
        };
        ev.push(Self::acted(state, ui));
        ev.extend(self.exposure(state, ui, u));
        ev.push(Event::Note {
            text: format!("{} fires: {hits} hits on {}", u.name, t.name),
        });
        ev.extend(self.casualties(state, u, t, hits, key_hits, dice)?);
        ev.extend(self.commanders_in_zone(state, u, t, dice)?);
        Ok(ev)
    }

    /// "Concealed troops must be at the edge of any cover to fire out and
    /// they will then be exposed."
    fn exposure(&self, state: &GameState, ui: usize, u: &Unit) -> Option<Event> {
        let men: Vec<&Figure> = standing_this_phase(state, u)
            .into_iter()
            .filter_map(|(_, id)| state.figure(id))
            .collect();
        self.has_men_in_cover(state, &men)
            .then_some(Event::VolleyFire(VfEvent::Exposed {
                unit: ui,
                turn: state.turn,
            }))
    }

    /// Rolls the plan's d20s: hits, key-figure hits, jammed.
    fn roll_fire_dice(
        &self,
        plan: &FirePlan,
        dice: &mut dyn Dice,
        ev: &mut Vec<Event>,
    ) -> Result<(u32, u32, bool), RuleError> {
        let (mut hits, mut key_hits, mut jammed) = (0, 0, false);
        for die in &plan.dice {
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
        Ok((hits, key_hits, jammed))
    }

    /// "Gun jams if a 20 is rolled on the firing die. Gun and crew fall back
    /// 12" to clear the jam ... and does not fire that turn."
    fn jam(&self, state: &GameState, ui: usize, u: &Unit) -> Vec<Event> {
        let rear = alive(state, u)
            .first()
            .and_then(|(_, id)| state.figure(*id))
            .map_or(Vector2::new(0.0, -1.0), |f| {
                let a = f.placement.facing_deg.to_radians();
                -Vector2::new(a.cos(), a.sin())
            });
        let back = self.jam_fall_back_in(state, u, rear);
        let mut ev = vec![
            Event::VolleyFire(VfEvent::Jammed {
                unit: ui,
                jammed: true,
            }),
            Event::Note {
                text: format!(
                    "{} jams: gun and crew fall back {back:.1} in to clear it",
                    u.name
                ),
            },
        ];
        for (_, id) in alive(state, u) {
            let Some(f) = state.figure(id) else { continue };
            let a = f.placement.facing_deg.to_radians();
            let to = f.placement.center_in_table - Vector2::new(a.cos(), a.sin()) * back;
            let to = Point2::new(
                to.x.clamp(0.0, state.table.width_in),
                to.y.clamp(0.0, state.table.depth_in),
            );
            ev.push(Event::Moved {
                figure: id,
                to_in: quantized(to),
                facing_deg: f.placement.facing_deg,
                pace: Pace::Walk,
                distance_in: (to - f.placement.center_in_table).norm(),
                through_rough: false,
            });
        }
        ev
    }

    /// "Hits equal the number of men down in the target unit": key figures
    /// first for key hits, then the nearest; a d20 of 20 puts the unit's
    /// leader among them. Gun crews lose one gunner per two hits.
    fn casualties(
        &self,
        state: &GameState,
        u: &Unit,
        t: &Unit,
        mut hits: u32,
        mut key_hits: u32,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        if ust(t).gun {
            hits /= self.data.fire.hits_per_gunner.max(1);
            key_hits = key_hits.min(hits);
        }
        let from = centroid(state, &ids(&standing_this_phase(state, u)));
        let mut pool: Vec<FigureId> = ids(&alive(state, t))
            .into_iter()
            .filter(|id| {
                state
                    .figure(*id)
                    .is_some_and(|f| !(f.leader && f.mounted()))
            })
            .collect();
        pool.sort_by(|a, b| {
            let da = (pos(state, *a) - from).norm();
            let db = (pos(state, *b) - from).norm();
            da.total_cmp(&db)
        });
        let is_key = |id: &FigureId| state.figure(*id).is_some_and(|f| fst(f).key);
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
        let mut ev = Vec::new();
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
        let at = state.clock();
        for id in down {
            ev.push(kill(id));
            ev.push(Event::VolleyFire(VfEvent::FellInFire { figure: id, at }));
        }
        Ok(ev)
    }

    /// "If either COMMANDER is in a zone of fire roll an additional D20. A
    /// 20 and the leader is killed, a 19 and the leader took a minor wound."
    fn commanders_in_zone(
        &self,
        state: &GameState,
        u: &Unit,
        t: &Unit,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let w = self.weapon_of(state, u)?;
        let max_in = self.data.band_edges_in(w).last().copied().unwrap_or(0.0);
        let firers: Vec<&Figure> = standing_this_phase(state, u)
            .into_iter()
            .filter_map(|(_, id)| state.figure(id))
            .collect();
        let mut ev = Vec::new();
        for c in state
            .figures
            .iter()
            .filter(|f| f.side == t.side && f.active() && fst(f).commander)
        {
            let to = c.placement.center_in_table;
            let in_zone = firers.iter().any(|f| {
                let from = f.placement.center_in_table;
                (to - from).norm() <= max_in
                    && angle_off_facing_deg(from, f.placement.facing_deg, to)
                        <= self.data.fire.cone_deg / 2.0
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
        Ok(ev)
    }
}

fn fire_named_of(rules: &VolleyFireRules, plan: &FirePlan) -> Vec<NamedOdds> {
    super::engine::fire_named(&fire_odds(&rules.data, &plan.dice))
}
