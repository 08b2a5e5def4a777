//! Fire: individual fire at one figure, activated and formation area fire
//! (the nearest enemy not in close combat, the 90 degree arc in
//! formation, the half circle of the firers' number in cm, the firer's
//! choice of whom to remove), three-rank fire and saves.
//!
//! # Conventions
//! Table inches in the state, cm in the rules; a range is a
//! [`Length<Centimetre>`] recorded as a `Measured` reading.

use nalgebra::Point2;

use super::action::FireParams;
use super::engine::{LittleColonialRules, centroid, fights_on, gathered, in_the_fight, refuse};
use super::{
    CavalrySave, cavalry_save, cavalry_volley_odds, check_removal, in_half_circle, removal_order,
    volley_odds,
};
use crate::core::dice::Dice;
use crate::core::odds::named;
use crate::core::{Centimetre, Length, RefusalKind};
use crate::geometry::{RangeMethod, angle_off_facing_deg, line_hits_base, range_in};
use crate::rules::RuleError;
use crate::rules::common::{Work, figure};
use crate::rules::stand_to::Wound;
use crate::rules::{Event, Figure, FigureId, GameState, Rank};

/// Where the hits of an area fire fall: the target, the half circle
/// (its radius in cm) and the figures in it,
/// nearest the target first, with the firer's chosen removals.
#[derive(Debug, Clone)]
pub(super) struct HitArea {
    pub target: FigureId,
    pub radius_cm: u32,
    /// Figures in the half circle, nearest the target first.
    pub area: Vec<FigureId>,
    /// The firer's removals, indices into `area`.
    pub chosen: Vec<usize>,
}

/// What an area fire checked: who rolls in which box, at what, where.
#[derive(Debug, Clone)]
pub(super) struct AreaPlan {
    pub firers: Vec<FigureId>,
    /// The first two ranks (or everyone, out of formation).
    pub front: Vec<FigureId>,
    pub dice_n: u32,
    pub third_n: u32,
    pub add: i32,
    pub range: Length<Centimetre>,
    pub need: u32,
    pub hits: HitArea,
    /// Why the firers who hold their fire do (a friend in the way).
    pub blocked: Vec<String>,
    /// The range bands' upper edges, cm (doubled for gathered wounded).
    pub edges: Vec<f64>,
}

impl LittleColonialRules {
    pub(super) fn check_fire(
        &self,
        state: &GameState,
        p: &FireParams,
    ) -> Result<Option<AreaPlan>, RuleError> {
        let firers: Vec<&Figure> = p
            .firers
            .iter()
            .map(|n| figure(state, n))
            .collect::<Result<_, _>>()?;
        if firers.is_empty() {
            return Err(refuse(RefusalKind::Malformed, "name the figures that fire"));
        }
        self.one_soldier(state, firers.len())?;
        // A line is in command if any of its figures is in the radius.
        let in_line = if p.formation {
            self.line_in_command(state, &firers)
        } else {
            vec![false; firers.len()]
        };
        for (f, in_line) in firers.iter().zip(in_line) {
            self.commanded(state, f, !in_line)?;
        }
        let aim = figure(state, &p.target)?;
        if p.individual {
            let [f] = firers.as_slice() else {
                return Err(refuse(
                    RefusalKind::Malformed,
                    "individual fire is one soldier's",
                ));
            };
            self.check_individual(state, f, aim)?;
            return Ok(None);
        }
        self.area_plan(state, &firers, aim.side, p.formation, &p.remove)
            .map(Some)
    }

    pub(super) fn resolve_fire(
        &self,
        state: &GameState,
        p: &FireParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let plan = self.check_fire(state, p)?;
        let mut work = Work::new(state);
        match plan {
            None => {
                let f = figure(state, &p.firers[0])?;
                let t = figure(state, &p.target)?;
                self.individual_fire(&mut work, f, t, dice)?;
            }
            Some(plan) => self.fire_area(&mut work, &plan, dice)?,
        }
        Ok(work.into_events())
    }

    pub(super) fn fire_dice(&self, f: &Figure) -> Result<(u32, i32), RuleError> {
        let w = self.data.weapons.get(&f.weapon).ok_or(RuleError::Unknown {
            what: "weapon",
            name: f.weapon.clone(),
        })?;
        if w.gun.is_some() {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("{} serves a gun: use `artillery`", f.name),
            )
            .by(f.id));
        }
        Ok((w.dice, if f.mounted() { w.mounted_add } else { 0 }))
    }

    /// The d6 face needed at `range` with the bands' upper `edges`.
    pub(super) fn range_need(
        &self,
        range: Length<Centimetre>,
        name: &str,
        edges: &[f64],
    ) -> Result<u32, RuleError> {
        edges
            .iter()
            .position(|e| range.value() <= *e)
            .and_then(|band| self.data.fire.to_hit.get(band).copied())
            .ok_or_else(|| {
                refuse(
                    RefusalKind::OutOfRange,
                    format!("{name} is out of range ({range})"),
                )
            })
    }

    /// The range bands' upper edges, cm: "Firing ranges are doubled for
    /// calculation purposes" for seriously wounded men gathered behind the
    /// lines.
    pub(super) fn band_edges(&self, gathered: bool) -> Vec<f64> {
        let factor = if gathered {
            self.data.wounded.gathered_range_factor
        } else {
            1.0
        };
        self.data
            .fire
            .band_edges_cm
            .iter()
            .map(|e| e * factor)
            .collect()
    }

    /// "If there is a continuous (and contiguous) line of figures in
    /// lateral contact (i.e., a line), all the figures in that line are
    /// considered in command IF the command radius of ANY officer or NCO
    /// ... is within range of ANY figure in that line": for each firer,
    /// is he joined to a firer in the radius by a chain of firers whose
    /// bases touch (within the flank's adjacency, edge to edge)?
    fn line_in_command(&self, state: &GameState, firers: &[&Figure]) -> Vec<bool> {
        let adjacent_in = self.inches(self.data.close_combat.flank_gap_cm);
        let mut reached: Vec<bool> = firers
            .iter()
            .map(|f| self.commanded(state, f, true).is_ok())
            .collect();
        let mut grew = true;
        while grew {
            grew = false;
            for i in 0..firers.len() {
                if reached[i] {
                    continue;
                }
                let touches = (0..firers.len()).any(|j| {
                    reached[j]
                        && range_in(
                            &firers[i].placement,
                            &firers[j].placement,
                            RangeMethod::EdgeToEdge,
                        )
                        .value_in
                            <= adjacent_in + 1e-9
                });
                if touches {
                    reached[i] = true;
                    grew = true;
                }
            }
        }
        reached
    }

    /// "The soldier can fire without restrictions, except that the line of
    /// fire must not pass over any friendly figure base(s), or is totally
    /// blocked by a high wall, a house or thick bamboo forest."
    fn check_individual(
        &self,
        state: &GameState,
        f: &Figure,
        t: &Figure,
    ) -> Result<(Length<Centimetre>, u32), RuleError> {
        if t.side == f.side || !fights_on(t) {
            return Err(refuse(
                RefusalKind::NotAnEnemy,
                "fire at an enemy in the fight",
            ));
        }
        self.fire_dice(f)?;
        let (a, b) = (f.placement.center_in_table, t.placement.center_in_table);
        if let Some(friend) = state.figures.iter().find(|g| {
            g.side == f.side
                && g.id != f.id
                && in_the_fight(g)
                && line_hits_base(a, b, &g.placement)
        }) {
            return Err(refuse(
                RefusalKind::OutOfSight,
                format!(
                    "{}'s line of fire to {} passes over {}'s base",
                    f.name, t.name, friend.name
                ),
            )
            .by(f.id));
        }
        let sight = self.sight(state, f, &t.placement, self.height_ft(t));
        if !sight.clear.value {
            return Err(refuse(
                RefusalKind::OutOfSight,
                format!(
                    "{}'s line of fire to {} is blocked by {}",
                    f.name,
                    t.name,
                    sight.areas.join(", ")
                ),
            )
            .by(f.id));
        }
        let range = self.in_cm(Length::centre_to_centre(&f.placement, &t.placement));
        let need = self.range_need(range, &t.name, &self.band_edges(gathered(f)))?;
        Ok((range, need))
    }

    /// One soldier at one figure: a hit (after the save) eliminates it.
    fn individual_fire(
        &self,
        work: &mut Work,
        f: &Figure,
        t: &Figure,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let (range, need) = self.check_individual(&work.now, f, t)?;
        let (n, add) = self.fire_dice(f)?;
        work.push(Event::Measured(range.reading(
            format!("range {} to {}", f.name, t.name),
            &self.band_edges(gathered(f)),
        )));
        let o = volley_odds(&self.data, n, need, add);
        work.push(Event::Odds {
            purpose: format!("{} fires at {}", f.name, t.name),
            odds: named(&[
                ("p_die_hits", o.p_die_hits),
                ("p_killed", 1.0 - o.hits.first().copied().unwrap_or(1.0)),
            ]),
        });
        Self::mark_acted(work, &[f.id]);
        let rolls = work.roll(dice, n as usize, self.data.fire.die, "fire", Some(f.id))?;
        let hits = rolls
            .iter()
            .filter(|r| i64::from(r.face) + i64::from(add) >= i64::from(need))
            .count();
        let struck = vec![t.id; hits];
        self.struck(work, &struck, dice)
    }

    /// Figures struck one by one (a roundshot's line, shrapnel, hits on a
    /// single figure): each saves as against fire (mounted: 4-5 kills the
    /// horse, 6 saves both). A figure already down is not struck again.
    pub(super) fn struck(
        &self,
        work: &mut Work,
        ids: &[FigureId],
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        for &id in ids {
            let f = work.fig(id)?.clone();
            if !fights_on(&f) {
                continue;
            }
            let face = work.roll1(dice, self.data.fire.die, "save", Some(id))?;
            if f.mounted() {
                match cavalry_save(&self.data, face) {
                    CavalrySave::BothSaved => {
                        work.note(format!("{} and his horse are unhurt", f.name));
                    }
                    CavalrySave::HorseKilled => {
                        work.note(format!("{}'s horse is killed", f.name));
                        work.push(Event::Wounded {
                            figure: id,
                            wound: Wound::Killed,
                            mount: true,
                        });
                    }
                    CavalrySave::BothKilled => self.casualty(work, id, dice)?,
                }
            } else if face >= self.data.fire.save_face {
                work.note(format!("{} is saved", f.name));
            } else {
                self.casualty(work, id, dice)?;
            }
        }
        Ok(())
    }

    /// Is the figure within close-combat contact (base edge to base edge)
    /// of an enemy in the fight?
    pub(super) fn in_contact(&self, state: &GameState, f: &Figure) -> bool {
        state.figures.iter().any(|e| {
            e.side != f.side
                && in_the_fight(e)
                && self.cm(range_in(&e.placement, &f.placement, RangeMethod::EdgeToEdge).value_in)
                    <= self.data.close_combat.contact_cm
        })
    }

    /// The half circle of an area fire around `target` seen from `from`,
    /// radius `radius_cm`, and the firer's removals read into it.
    pub(super) fn hit_area(
        &self,
        state: &GameState,
        target: &Figure,
        from: Point2<f64>,
        radius_cm: u32,
        remove: &[String],
    ) -> Result<HitArea, RuleError> {
        let radius_in = self.inches(f64::from(radius_cm));
        let mut area: Vec<&Figure> = state
            .figures
            .iter()
            .filter(|t| {
                t.side == target.side
                    && fights_on(t)
                    && in_half_circle(
                        target.placement.center_in_table,
                        from,
                        radius_in,
                        t.placement.center_in_table,
                    )
            })
            .collect();
        area.sort_by(|a, b| {
            let da = (a.placement.center_in_table - target.placement.center_in_table).norm();
            let db = (b.placement.center_in_table - target.placement.center_in_table).norm();
            da.total_cmp(&db)
        });
        let mut chosen = Vec::new();
        for name in remove {
            let f = figure(state, name)?;
            let Some(i) = area.iter().position(|a| a.id == f.id) else {
                return Err(refuse(
                    RefusalKind::CannotDo,
                    format!(
                        "{} is not in the {radius_cm} cm half circle around {}",
                        f.name, target.name
                    ),
                )
                .by(f.id));
            };
            chosen.push(i);
        }
        let ranks: Vec<Rank> = area.iter().map(|f| f.rank).collect();
        if let Err((i, why)) = check_removal(&self.data, &ranks, &chosen) {
            return Err(
                refuse(RefusalKind::CannotDo, format!("{} {why}", area[i].name)).by(area[i].id),
            );
        }
        Ok(HitArea {
            target: target.id,
            radius_cm,
            area: area.iter().map(|f| f.id).collect(),
            chosen,
        })
    }

    /// The firers split into their boxes (the first two ranks; a third
    /// rank apart, in formation; no fourth rank), their dice and the worst
    /// mounted modifier.
    fn fire_boxes(
        &self,
        state: &GameState,
        firers: &[&Figure],
        formation: bool,
    ) -> Result<(Vec<FigureId>, u32, u32, i32), RuleError> {
        let (mut front, mut dice_n, mut third_n, mut add) = (Vec::new(), 0, 0, 0);
        for f in firers.iter().copied() {
            let (n, a) = self.fire_dice(f)?;
            add = add.min(a);
            match self.rank_in_unit(state, f) {
                Some(r) if r >= 3 => {
                    return Err(refuse(
                        RefusalKind::CannotDo,
                        format!("{} is in the fourth rank: at most three ranks fire", f.name),
                    )
                    .by(f.id));
                }
                Some(2) if formation => third_n += n,
                _ => {
                    front.push(f.id);
                    dice_n += n;
                }
            }
        }
        Ok((front, dice_n, third_n, add))
    }

    /// Area fire by `firers` at the nearest figure of `target_side` not in
    /// close combat (in the 90 degree arc when in formation).
    pub(super) fn area_plan(
        &self,
        state: &GameState,
        firers: &[&Figure],
        target_side: usize,
        formation: bool,
        remove: &[String],
    ) -> Result<AreaPlan, RuleError> {
        let firers: Vec<&Figure> = firers.iter().copied().filter(|f| fights_on(f)).collect();
        let wounded = firers.iter().filter(|f| gathered(f)).count();
        if wounded > 0 && wounded < firers.len() {
            return Err(refuse(
                RefusalKind::Malformed,
                "gathered wounded men fire with doubled ranges: fire them apart from the healthy men",
            ));
        }
        let edges = self.band_edges(wounded > 0);
        self.fire_boxes(state, &firers, formation)?;
        let target = self.area_target(state, &firers, target_side, formation)?;
        // Those whose line of fire passes over a friend they may not fire
        // through hold their fire; the rest fire.
        let mut blocked = Vec::new();
        let mut firing = Vec::new();
        for f in firers {
            match self.friend_in_the_way(state, f, target, formation) {
                Some(friend) => blocked.push((f, friend)),
                None => firing.push(f),
            }
        }
        let blocked: Vec<String> = blocked
            .into_iter()
            .map(|(f, friend)| {
                format!(
                    "{}'s line of fire to {} passes over {friend}'s base, and he is not directly \
                     behind and adjacent to him: he does not fire",
                    f.name, target.name
                )
            })
            .collect();
        if firing.is_empty() {
            let why = blocked.first().cloned().unwrap_or_default();
            return Err(refuse(RefusalKind::OutOfSight, why));
        }
        let (front, dice_n, third_n, add) = self.fire_boxes(state, &firing, formation)?;
        let at = centroid(&firing);
        let range = self.in_cm(Length::path(
            (target.placement.center_in_table - at).norm(),
            &target.placement,
        ));
        let need = self.range_need(range, &target.name, &edges)?;
        let n_firers = u32::try_from(firing.len()).unwrap_or(u32::MAX);
        let hits = self.hit_area(state, target, at, n_firers, remove)?;
        Ok(AreaPlan {
            firers: firing.iter().map(|f| f.id).collect(),
            front,
            dice_n,
            third_n,
            add,
            range,
            need,
            hits,
            blocked,
            edges,
        })
    }

    /// "you must trace a line to the nearest enemy figure (not in close
    /// combat)": the nearest to the firers' centre, in the 90 degree arc
    /// in formation.
    fn area_target<'a>(
        &self,
        state: &'a GameState,
        firers: &[&Figure],
        target_side: usize,
        formation: bool,
    ) -> Result<&'a Figure, RuleError> {
        let at = centroid(firers);
        let eligible = |t: &Figure| {
            !formation
                || firers.iter().any(|f| {
                    angle_off_facing_deg(
                        f.placement.center_in_table,
                        f.placement.facing_deg,
                        t.placement.center_in_table,
                    ) <= self.data.fire.arc_deg / 2.0
                })
        };
        state
            .figures
            .iter()
            .filter(|t| {
                t.side == target_side && fights_on(t) && eligible(t) && !self.in_contact(state, t)
            })
            .min_by(|a, b| {
                let da = (a.placement.center_in_table - at).norm();
                let db = (b.placement.center_in_table - at).norm();
                da.total_cmp(&db)
            })
            .ok_or_else(|| {
                refuse(
                    RefusalKind::OutOfSight,
                    "no target in the arc of fire that is not in close combat",
                )
            })
    }

    /// The friend whose base `f`'s line of fire to `t` passes over, if he
    /// may not fire through it, in formation fire: "You can fire through
    /// the base of a friendly figure if the figure you are firing with is
    /// directly behind and adjacent to the figure you are firing through"
    /// (activated fire: the text sets no such limit, none is checked). A
    /// friend is
    /// passed when he stands adjacent (the flank's 1.25 cm, base to base)
    /// in front (within the front's 45 degrees) of the firer, or of a
    /// friend the firer already fires through (the third rank through the
    /// second and the first).
    fn friend_in_the_way(
        &self,
        state: &GameState,
        f: &Figure,
        t: &Figure,
        formation: bool,
    ) -> Option<String> {
        let (a, b) = (f.placement.center_in_table, t.placement.center_in_table);
        let mut crossed: Vec<&Figure> = state
            .figures
            .iter()
            .filter(|g| {
                g.side == f.side
                    && g.id != f.id
                    && in_the_fight(g)
                    && line_hits_base(a, b, &g.placement)
            })
            .collect();
        if !formation {
            return None;
        }
        let cc = &self.data.close_combat;
        let adjacent_in = self.inches(cc.flank_gap_cm);
        let mut through: Vec<&Figure> = vec![f];
        while let Some(i) = crossed.iter().position(|g| {
            through.iter().any(|h| {
                range_in(&h.placement, &g.placement, RangeMethod::EdgeToEdge).value_in
                    <= adjacent_in
                    && angle_off_facing_deg(
                        h.placement.center_in_table,
                        h.placement.facing_deg,
                        g.placement.center_in_table,
                    ) <= cc.front_half_arc_deg
            })
        }) {
            through.push(crossed.remove(i));
        }
        crossed.first().map(|g| g.name.clone())
    }

    /// Area fire (see [`Self::area_plan`]), resolved on the working copy.
    pub(super) fn area_fire(
        &self,
        work: &mut Work,
        firers: &[&Figure],
        target_side: usize,
        formation: bool,
        remove: &[String],
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let plan = self.area_plan(&work.now, firers, target_side, formation, remove)?;
        self.fire_area(work, &plan, dice)
    }

    /// Rolls an area fire: the front ranks' box, the third rank's box
    /// (each 1 in it kills a man of the two ranks in front), the saves and
    /// the removals.
    fn fire_area(
        &self,
        work: &mut Work,
        plan: &AreaPlan,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let target = work.fig(plan.hits.target)?.clone();
        for why in &plan.blocked {
            work.note(why.clone());
        }
        work.push(Event::Measured(
            plan.range
                .reading(format!("range to {}", target.name), &plan.edges),
        ));
        Self::mark_acted(work, &plan.firers);
        self.push_area_odds(
            work,
            &target,
            plan.dice_n + plan.third_n,
            plan.need,
            plan.add,
        );
        let die = self.data.fire.die;
        let mut faces = work.roll(dice, plan.dice_n as usize, die, "fire", None)?;
        let mut third_ones = 0;
        if plan.third_n > 0 {
            let t = work.roll(dice, plan.third_n as usize, die, "fire, third rank", None)?;
            third_ones = t
                .iter()
                .filter(|r| r.face == self.data.fire.third_rank_kills_on)
                .count();
            faces.extend(t.iter().copied());
        }
        let hit_count = faces
            .iter()
            .filter(|f| i64::from(f.face) + i64::from(plan.add) >= i64::from(plan.need))
            .count();
        self.area_hits(work, &plan.hits, hit_count, dice)?;
        for _ in 0..third_ones {
            let front_now: Vec<FigureId> = plan
                .front
                .iter()
                .copied()
                .filter(|id| work.now.figure(*id).is_some_and(in_the_fight))
                .collect();
            if front_now.is_empty() {
                break;
            }
            let k = work.roll1(
                dice,
                u32::try_from(front_now.len()).unwrap_or(u32::MAX),
                "third rank's 1: which man in front",
                None,
            )?;
            let victim = front_now[k as usize - 1];
            work.note(format!(
                "a 1 in the third rank hits {}",
                work.fig(victim)?.name
            ));
            self.casualty(work, victim, dice)?;
        }
        Ok(())
    }

    /// The exact odds of `n` dice needing `need` (after `add`) at the
    /// target (cavalry saves when he is mounted).
    pub(super) fn push_area_odds(
        &self,
        work: &mut Work,
        target: &Figure,
        n: u32,
        need: u32,
        add: i32,
    ) {
        let mut odds = if target.mounted() {
            let o = cavalry_volley_odds(&self.data, n, need, add);
            vec![
                ("p_die_kills", o.p_die_kills),
                ("p_die_kills_horse", o.p_die_kills_horse),
                ("p_no_kill", o.riders_killed.first().copied().unwrap_or(1.0)),
            ]
        } else {
            let o = volley_odds(&self.data, n, need, add);
            vec![
                ("p_die_hits", o.p_die_hits),
                ("p_no_hit", o.hits.first().copied().unwrap_or(1.0)),
            ]
        };
        odds.push(("dice", f64::from(n)));
        work.push(Event::Odds {
            purpose: format!("{n} dice needing {need}"),
            odds: named(&odds),
        });
    }

    /// `hit_count` hits of an area fire: saves, then the removals in the
    /// half circle (the firer's choice first).
    pub(super) fn area_hits(
        &self,
        work: &mut Work,
        at: &HitArea,
        hit_count: usize,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let target = work.fig(at.target)?.clone();
        let cav = target.mounted();
        let saves = work.roll(dice, hit_count, self.data.fire.die, "saves", None)?;
        let (mut kills, mut horses) = (0_u32, 0_u32);
        for s in &saves {
            if cav {
                match cavalry_save(&self.data, s.face) {
                    CavalrySave::BothSaved => {}
                    CavalrySave::HorseKilled => horses += 1,
                    CavalrySave::BothKilled => kills += 1,
                }
            } else if s.face < self.data.fire.save_face {
                kills += 1;
            }
        }
        let ranks: Vec<Rank> = at
            .area
            .iter()
            .map(|id| work.now.figure(*id).map_or(Rank::Private, |f| f.rank))
            .collect();
        let order = removal_order(&self.data, &ranks, &at.chosen, kills + horses);
        let down: Vec<FigureId> = order
            .iter()
            .take(kills as usize)
            .map(|i| at.area[*i])
            .collect();
        let unhorsed: Vec<FigureId> = order
            .iter()
            .skip(kills as usize)
            .map(|i| at.area[*i])
            .filter(|id| work.now.figure(*id).is_some_and(Figure::mounted))
            .collect();
        work.note(format!(
            "{kills} hits after saves{} in a {} cm half circle around {}: {} down",
            if cav {
                format!(" and {horses} horses")
            } else {
                String::new()
            },
            at.radius_cm,
            target.name,
            down.len()
        ));
        for id in unhorsed {
            work.push(Event::Wounded {
                figure: id,
                wound: Wound::Killed,
                mount: true,
            });
        }
        for id in down {
            self.casualty(work, id, dice)?;
        }
        Ok(())
    }

    /// The rank (0 = front) of a figure in its unit's formation.
    pub(super) fn rank_in_unit(&self, state: &GameState, f: &Figure) -> Option<usize> {
        state.units.iter().find_map(|u| {
            u.figures
                .iter()
                .position(|id| *id == f.id)
                .map(|k| u.rank_of(k))
        })
    }
}
