//! Artillery, catapults, bolt throwers and grenades (9): loading a gun's
//! marker, a shot at a point or a figure, grapeshot's cone, scatter, and a
//! blast.
//!
//! # Conventions
//! Table inches, centre to centre; the gun's arc is measured from the
//! centre of the stand's front (its facing).

use nalgebra::Point2;

use super::action::{ArtilleryParams, GrenadeParams, LoadGunParams};
use super::engine::{
    COMMAND, HORSES, MEN, RALLY, SHOOTING, SoldiersInTimeRules, VEHICLES, centre_gap, in_play,
    point, refuse, routed, sit, st,
};
use super::event::Event as SitEvent;
use super::status::Ammo;
use super::{ArtilleryKind, NAME, WeaponData, damage_distribution, damage_odds, hit_p, hits};
use crate::core::dice::{Dice, total};
use crate::core::odds::{NamedOdds, named};
use crate::core::{Inch, Length, RefusalKind};
use crate::geometry::{angle_off_facing_deg, bearing_deg, disc_touches_base, in_cone, point_at};
use crate::rules::common::{Work, figure, require_active_side};
use crate::rules::{Event, Figure, FigureId, GameState, RuleError};

/// A gun's shot, decided but for the dice.
pub(super) struct GunPlan {
    gun: FigureId,
    kind: ArtilleryKind,
    ammo: Ammo,
    weapon: WeaponData,
    /// Where it aims and at whom (None for grapeshot: its cone).
    aim: Option<(Point2<f64>, Option<FigureId>)>,
}

/// A grenade, decided but for the dice.
pub(super) struct GrenadePlan {
    thrower: FigureId,
    aim: Point2<f64>,
    target: Option<FigureId>,
    modifier: i32,
}

impl SoldiersInTimeRules {
    pub(super) fn plan_load_gun<'a>(
        &self,
        state: &'a GameState,
        p: &LoadGunParams,
    ) -> Result<(&'a Figure, Ammo), RuleError> {
        self.phase(state, "load-gun", &[RALLY, COMMAND, HORSES, MEN, VEHICLES])?;
        let g = figure(state, &p.gun)?;
        require_active_side(NAME, state, g)?;
        let w = self.weapon(g)?;
        let Some(kind) = w.artillery else {
            return Err(refuse(RefusalKind::CannotDo, format!("{} has no gun", g.name)).by(g.id));
        };
        let ammo = match (kind, p.ammo.as_deref().map(|a| (a, Ammo::parse(a)))) {
            (ArtilleryKind::Cannon, Some((_, Some(a @ (Ammo::Ball | Ammo::Grapeshot))))) => a,
            (ArtilleryKind::Cannon, _) => {
                return Err(refuse(
                    RefusalKind::NotLoaded,
                    "a cannon loads `ball` or `grapeshot`",
                ));
            }
            (_, None) => Ammo::Shot,
            (_, Some((other, _))) => {
                return Err(refuse(
                    RefusalKind::NotLoaded,
                    format!("{} cannot load {other}", g.weapon),
                ));
            }
        };
        Ok((g, ammo))
    }

    /// 9: a gun reloads on the d10 like any missile weapon; its marker says
    /// ball or grapeshot.
    pub(super) fn resolve_load_gun(
        &self,
        state: &GameState,
        p: &LoadGunParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let (g, ammo) = self.plan_load_gun(state, p)?;
        let w = self.weapon(g)?;
        let mut work = Work::new(state);
        if let Some(with) = st(g).loaded_with {
            work.note(format!("{} is loaded with {} already", g.name, with.name()));
            return Ok(work.into_events());
        }
        work.push(Event::Odds {
            purpose: format!("{} reloads", g.name),
            odds: named(&[(
                "p_reloaded",
                f64::from(w.reload_max.min(self.data.fire.die)) / f64::from(self.data.fire.die),
            )]),
        });
        let r = work.roll1(dice, self.data.fire.die, "reload", Some(g.id))?;
        if r <= w.reload_max {
            work.push(sit(SitEvent::GunLoaded { figure: g.id, ammo }));
            work.note(format!(
                "{} is loaded with {} (marker face down)",
                g.name,
                ammo.name()
            ));
        } else {
            work.note(format!("{} is still reloading", g.name));
        }
        Ok(work.into_events())
    }

    /// Where a scattered shot lands: d6 inches in a d12 clock direction
    /// (12 = straight on from the thrower).
    fn scatter(
        &self,
        work: &mut Work,
        from: Point2<f64>,
        aim: Point2<f64>,
        dice: &mut dyn Dice,
        who: FigureId,
    ) -> Result<Point2<f64>, RuleError> {
        let s = &self.data.special;
        let dist = work.roll1(dice, s.scatter_die, "scatter inches", Some(who))?;
        let dir = work.roll1(
            dice,
            s.scatter_direction_faces,
            "scatter direction",
            Some(who),
        )?;
        let step = 360.0 / f64::from(s.scatter_direction_faces.max(1));
        // Clockwise from straight on, as a clock face is read.
        let bearing = bearing_deg(from, aim) - f64::from(dir % s.scatter_direction_faces) * step;
        let landed = point_at(aim, bearing, f64::from(dist));
        work.note(format!(
            "the shot scatters {dist} in toward {dir} o'clock, to ({:.1}, {:.1})",
            landed.x, landed.y
        ));
        Ok(landed)
    }

    /// Figures under a quarter-sized target area at `at`.
    fn under_quarter(&self, state: &GameState, at: Point2<f64>) -> Vec<FigureId> {
        let radius_in = self.data.special.quarter_diameter_in / 2.0;
        state
            .figures
            .iter()
            .filter(|f| in_play(f) && disc_touches_base(at, radius_in, &f.placement))
            .map(|f| f.id)
            .collect()
    }

    fn aim_point(
        state: &GameState,
        target: Option<&String>,
        at_in: Option<[f64; 2]>,
    ) -> Result<(Point2<f64>, Option<FigureId>), RuleError> {
        match (target, at_in) {
            (Some(name), None) => {
                let t = figure(state, name)?;
                Ok((t.placement.center_in_table, Some(t.id)))
            }
            (None, Some(p)) => Ok((point(p), None)),
            _ => Err(refuse(
                RefusalKind::Malformed,
                "name a `target` figure or an `at_in` point, not both",
            )),
        }
    }

    /// A grenade (or mine) explosion: every figure touched takes 1d10.
    pub(super) fn blast(
        &self,
        work: &mut Work,
        at: Point2<f64>,
        radius_in: f64,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let caught: Vec<FigureId> = work
            .now
            .figures
            .iter()
            .filter(|f| in_play(f) && disc_touches_base(at, radius_in, &f.placement))
            .map(|f| f.id)
            .collect();
        for id in caught {
            let d = work.roll1(
                dice,
                self.data.special.grenade_damage_sides,
                "blast damage",
                Some(id),
            )?;
            self.apply_damage(work, id, d, dice)?;
        }
        Ok(())
    }

    pub(super) fn plan_artillery(
        &self,
        state: &GameState,
        p: &ArtilleryParams,
    ) -> Result<GunPlan, RuleError> {
        self.phase(state, "artillery", &[SHOOTING])?;
        let g = figure(state, &p.gun)?;
        require_active_side(NAME, state, g)?;
        if !in_play(g) || routed(g) {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("{} cannot serve the gun", g.name),
            )
            .by(g.id));
        }
        let w = self.weapon(g)?.clone();
        let Some(kind) = w.artillery else {
            return Err(refuse(RefusalKind::CannotDo, format!("{} has no gun", g.name)).by(g.id));
        };
        if let Some(hp) = w.hit_points.filter(|hp| st(g).weapon_damage >= *hp) {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!(
                    "{}'s {} has taken {} damage, its {hp} hit points: it is unusable",
                    g.name,
                    g.weapon,
                    st(g).weapon_damage
                ),
            )
            .by(g.id));
        }
        if st(g).moved_turn == Some(state.turn) {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!("{} moved this turn: it fires next turn", g.name),
            )
            .by(g.id));
        }
        let Some(ammo) = st(g).loaded_with else {
            return Err(refuse(
                RefusalKind::NotLoaded,
                format!(
                    "{} is not loaded (`load-gun` before the shooting phase)",
                    g.name
                ),
            )
            .by(g.id));
        };
        if kind == ArtilleryKind::Cannon && ammo == Ammo::Grapeshot {
            return Ok(GunPlan {
                gun: g.id,
                kind,
                ammo,
                weapon: w,
                aim: None,
            });
        }
        let (aim, target) = Self::aim_point(state, p.target.as_ref(), p.at_in)?;
        let from = g.placement.center_in_table;
        let arc = self.data.special.artillery_arc_deg;
        if angle_off_facing_deg(from, g.placement.facing_deg, aim) > arc / 2.0 {
            return Err(refuse(
                RefusalKind::OutOfArc,
                format!("the target is outside {}'s {arc} degree arc", g.name),
            ));
        }
        let range = (aim - from).norm();
        if range > w.range_in {
            return Err(refuse(
                RefusalKind::OutOfRange,
                format!("the target is {range:.1} in away, beyond {} in", w.range_in),
            ));
        }
        Ok(GunPlan {
            gun: g.id,
            kind,
            ammo,
            weapon: w,
            aim: Some((aim, target)),
        })
    }

    /// 9: "The 'to hit' number is the missile skill number of the most
    /// experienced gun crew member": the best of the crew's experience
    /// numbers (the stand's own experience when no crew is given).
    pub(super) fn gun_skill(g: &Figure) -> u8 {
        st(g).crew.iter().copied().max().unwrap_or(g.experience)
    }

    /// Damage dice, damage added, P(hit) and the to-hit modifier of a gun's
    /// shot.
    fn gun_numbers(
        &self,
        state: &GameState,
        g: &Figure,
        plan: &GunPlan,
        target: Option<&Figure>,
    ) -> (u32, u32, f64, i32) {
        let sp = &self.data.special;
        let m = target.map_or(0, |t| self.fire_modifier(state, g, t, false, None));
        match plan.kind {
            ArtilleryKind::Catapult => (
                sp.catapult_damage_dice,
                sp.catapult_damage_add,
                f64::from(sp.catapult_hit_max) / f64::from(self.data.fire.die),
                0,
            ),
            ArtilleryKind::BoltThrower => (
                sp.bolt_thrower_damage_dice,
                sp.bolt_thrower_damage_add,
                hit_p(self.data.fire.die, m, Self::gun_skill(g)),
                m,
            ),
            ArtilleryKind::Cannon => (
                plan.weapon.damage_dice,
                plan.weapon.damage_add,
                hit_p(self.data.fire.die, m, Self::gun_skill(g)),
                m,
            ),
        }
    }

    pub(super) fn resolve_artillery(
        &self,
        state: &GameState,
        p: &ArtilleryParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let plan = self.plan_artillery(state, p)?;
        let g = state
            .figure(plan.gun)
            .ok_or_else(|| refuse(RefusalKind::OutOfTheFight, "the gun is gone"))?;
        let mut work = Work::new(state);
        work.push(sit(SitEvent::GunFired { figure: g.id }));
        let Some((aim, target)) = plan.aim else {
            return self.grapeshot(work, g, dice);
        };
        let from = g.placement.center_in_table;
        work.push(Event::Measured(
            Length::<Inch>::path((aim - from).norm(), &g.placement)
                .reading(format!("{} to the target", g.name), &[plan.weapon.range_in]),
        ));
        let t = target.and_then(|t| state.figure(t));
        let (dmg_dice, dmg_add, p_hit, modifier) = self.gun_numbers(state, g, &plan, t);
        let dist = damage_distribution(dmg_dice, 10, dmg_add);
        let mut odds = vec![("p_hit", p_hit)];
        if let Some(t) = t {
            let (_, _, k) = damage_odds(
                &dist,
                &self.shot_for(state, t, 0, 0),
                &Self::deck_pile(state, t.side),
            );
            odds.push(("p_target_killed", p_hit * k));
        }
        work.push(Event::Odds {
            purpose: format!("{} fires {}", g.name, plan.ammo.name()),
            odds: named(&odds),
        });
        let h = work.roll1(dice, self.data.fire.die, "to hit", Some(g.id))?;
        let landed = match plan.kind {
            ArtilleryKind::Catapult if h <= self.data.special.catapult_hit_max => Some(aim),
            ArtilleryKind::Catapult => Some(self.scatter(&mut work, from, aim, dice, g.id)?),
            _ if hits(h, modifier, Self::gun_skill(g)) => Some(aim),
            _ => None,
        };
        let Some(landed) = landed else {
            work.note(format!("{} misses", g.name));
            return Ok(work.into_events());
        };
        // Ball and bolt alike: "The target area is the size of a quarter."
        let struck = self.under_quarter(&work.now, landed);
        if struck.is_empty() {
            work.note("the shot strikes empty ground");
        }
        for id in struck {
            let d = work.roll(dice, dmg_dice as usize, 10, "damage", Some(g.id))?;
            self.apply_damage(&mut work, id, total(&d) + dmg_add, dice)?;
        }
        Ok(work.into_events())
    }

    /// Grapeshot: every enemy stand within 8 in in the 45 degree cone takes
    /// 1d10 before armour.
    fn grapeshot(
        &self,
        mut work: Work,
        g: &Figure,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let sp = &self.data.special;
        let state = work.now.clone();
        let caught: Vec<&Figure> = state
            .figures
            .iter()
            .filter(|t| {
                t.side != g.side
                    && in_play(t)
                    && centre_gap(g, t).value() <= sp.grapeshot_range_in
                    && in_cone(&g.placement, sp.grapeshot_cone_deg, 0.0, &t.placement).value
            })
            .collect();
        let dist = damage_distribution(1, sp.grapeshot_damage_sides, 0);
        let mut odds = Vec::new();
        for t in &caught {
            let (_, _, k) = damage_odds(
                &dist,
                &self.shot_for(&state, t, 0, 0),
                &Self::deck_pile(&state, t.side),
            );
            odds.push(NamedOdds {
                name: format!("p_killed {}", t.name),
                p: k,
            });
        }
        work.push(Event::Odds {
            purpose: format!("{} fires grapeshot", g.name),
            odds,
        });
        if caught.is_empty() {
            work.note(format!(
                "no enemy within {} in in {}'s {} degree cone",
                sp.grapeshot_range_in, g.name, sp.grapeshot_cone_deg
            ));
        }
        for t in caught {
            let d = work.roll1(dice, sp.grapeshot_damage_sides, "grapeshot", Some(t.id))?;
            self.apply_damage(&mut work, t.id, d, dice)?;
        }
        Ok(work.into_events())
    }

    pub(super) fn plan_grenade(
        &self,
        state: &GameState,
        p: &GrenadeParams,
    ) -> Result<GrenadePlan, RuleError> {
        self.phase(state, "grenade", &[SHOOTING])?;
        let s = figure(state, &p.thrower)?;
        require_active_side(NAME, state, s)?;
        if !in_play(s) || routed(s) {
            return Err(refuse(RefusalKind::CannotDo, format!("{} cannot throw", s.name)).by(s.id));
        }
        if st(s).grenades == 0 {
            return Err(
                refuse(RefusalKind::CannotDo, format!("{} has no grenades", s.name)).by(s.id),
            );
        }
        let (aim, target) = Self::aim_point(state, p.target.as_ref(), p.at_in)?;
        let range = (aim - s.placement.center_in_table).norm();
        let reach = self.data.special.grenade_range_in;
        if range > reach {
            return Err(refuse(
                RefusalKind::OutOfRange,
                format!("grenades reach {reach} in; that is {range:.1} in"),
            ));
        }
        let modifier = target
            .and_then(|t| state.figure(t))
            .map_or(0, |t| self.fire_modifier(state, s, t, false, None));
        Ok(GrenadePlan {
            thrower: s.id,
            aim,
            target,
            modifier,
        })
    }

    /// A grenade (house: "to be done next draft"): thrown like a shot, else
    /// it scatters like a catapult's rock; 2 in blast.
    pub(super) fn resolve_grenade(
        &self,
        state: &GameState,
        p: &GrenadeParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let plan = self.plan_grenade(state, p)?;
        let s = figure(state, &p.thrower)?;
        let sp = &self.data.special;
        let mut work = Work::new(state);
        let p_on = hit_p(self.data.fire.die, plan.modifier, s.experience);
        let mut odds = vec![("p_on_target", p_on)];
        if let Some(t) = plan.target.and_then(|t| state.figure(t)) {
            let (_, _, k) = damage_odds(
                &damage_distribution(1, sp.grenade_damage_sides, 0),
                &self.shot_for(state, t, 0, 0),
                &Self::deck_pile(state, t.side),
            );
            odds.push(("p_target_killed_if_on_target", k));
        }
        work.push(Event::Odds {
            purpose: format!("{} throws a grenade", s.name),
            odds: named(&odds),
        });
        work.push(sit(SitEvent::GrenadeThrown {
            figure: plan.thrower,
        }));
        let h = work.roll1(dice, self.data.fire.die, "grenade throw", Some(s.id))?;
        let from = s.placement.center_in_table;
        let landed = if hits(h, plan.modifier, s.experience) {
            plan.aim
        } else {
            self.scatter(&mut work, from, plan.aim, dice, s.id)?
        };
        self.blast(&mut work, landed, sp.mine_blast_in, dice)?;
        Ok(work.into_events())
    }
}
