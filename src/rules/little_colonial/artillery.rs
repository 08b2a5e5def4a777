//! Artillery: the crew, roundshot along its line and its bounce,
//! grapeshot as automatic area fire, shrapnel over a point, deviation when
//! a gun misses its point, and the guns of a card firing at once.
//!
//! # Conventions
//! Table inches in the state, cm in the rules; a point's deviation
//! direction 1 is "over" (on along the line of fire), then clockwise.

use nalgebra::Point2;

use super::action::{Ammo, ArtilleryParams};
use super::engine::{LittleColonialRules, in_the_fight, refuse, st};
use super::fire::HitArea;
use super::{GunKind, gun_hit_p, struck_killed_p};
use crate::core::dice::Dice;
use crate::core::odds::named;
use crate::core::{Length, RefusalKind};
use crate::geometry::{
    BaseShape, Placement, bearing_deg, disc_touches_base, line_hits_base, point_at,
};
use crate::rules::RuleError;
use crate::rules::common::{Work, centre_gap_in, figure};
use crate::rules::{Event, Figure, FigureId, GameState};

/// What `artillery` checked.
pub(super) enum GunPlan {
    /// Grapeshot: automatic hits, the gun's rating of them, as area fire.
    Grape {
        gun: FigureId,
        rating: u32,
        range: crate::core::Reading,
        hits: HitArea,
    },
    /// Roundshot or shrapnel at a point.
    AtPoint {
        gun: FigureId,
        ammo: Ammo,
        aim: Point2<f64>,
        crew_mod: i32,
        gunners: u32,
        helpers: u32,
    },
}

impl LittleColonialRules {
    /// The crew of a gun: its artillerymen and the men helping.
    fn gun_crew(&self, state: &GameState, g: &Figure) -> (u32, u32) {
        let serving = state
            .figures
            .iter()
            .filter(|f| in_the_fight(f) && st(f).crew.as_deref() == Some(g.name.as_str()));
        let (mut gunners, mut helpers) = (0, 0);
        for f in serving {
            if st(f).gunner {
                gunners += 1;
            } else {
                helpers += 1;
            }
        }
        if st(g).gunner {
            gunners += 1;
        }
        (gunners, helpers)
    }

    fn gun_kind(&self, g: &Figure) -> Result<GunKind, RuleError> {
        self.data
            .weapons
            .get(&g.weapon)
            .and_then(|w| w.gun)
            .ok_or_else(|| refuse(RefusalKind::CannotDo, format!("{} has no gun", g.name)).by(g.id))
    }

    pub(super) fn check_artillery(
        &self,
        state: &GameState,
        p: &ArtilleryParams,
    ) -> Result<GunPlan, RuleError> {
        let g = figure(state, &p.gun)?;
        self.commanded(state, g, true)?;
        let kind = self.gun_kind(g)?;
        if !kind.fires(p.ammo) {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("a {} gun does not fire {}", kind.name(), p.ammo.name()),
            ));
        }
        if p.ammo == Ammo::Grapeshot {
            return self.check_grapeshot(state, g, p);
        }
        let aim = match (&p.at_in, &p.target) {
            (Some(q), None) => Point2::new(q[0], q[1]),
            (None, Some(t)) => figure(state, t)?.placement.center_in_table,
            _ => {
                return Err(refuse(
                    RefusalKind::Malformed,
                    "name an `at_in` point or a `target` figure",
                ));
            }
        };
        let range_cm = self.cm((aim - g.placement.center_in_table).norm());
        if range_cm > self.data.artillery.range_cm {
            return Err(refuse(
                RefusalKind::OutOfRange,
                format!(
                    "the point is {range_cm:.0} cm away, beyond {} cm",
                    self.data.artillery.range_cm
                ),
            ));
        }
        self.check_point_in_sight(state, g, aim)?;
        let (gunners, helpers) = self.gun_crew(state, g);
        Ok(GunPlan::AtPoint {
            gun: g.id,
            ammo: p.ammo,
            aim,
            crew_mod: self.data.crew_modifier(gunners, helpers),
            gunners,
            helpers,
        })
    }

    /// "To hit with roundshot: You must designate a target point within
    /// LOS" (shrapnel too): the line from the gun to the point crosses no
    /// blocking terrain (the shared line of sight, its own call of too
    /// close to call counting as seen).
    fn check_point_in_sight(
        &self,
        state: &GameState,
        g: &Figure,
        aim: Point2<f64>,
    ) -> Result<(), RuleError> {
        let point = Placement {
            center_in_table: aim,
            facing_deg: 0.0,
            shape: BaseShape::Round { diameter_in: 0.0 },
            sigma_in: 0.0,
        };
        let sight = self.sight(state, g, &point, 0.0);
        if sight.clear.value || sight.clear.too_close_to_call {
            return Ok(());
        }
        Err(refuse(
            RefusalKind::OutOfSight,
            format!(
                "{} cannot see the point ({:.1}, {:.1}): {} is in the way",
                g.name,
                aim.x,
                aim.y,
                sight.areas.join(", ")
            ),
        )
        .by(g.id))
    }

    /// "To hit with grapeshot: Automatic (as long as it is within range),
    /// Apply the rules for Area fire."
    fn check_grapeshot(
        &self,
        state: &GameState,
        g: &Figure,
        p: &ArtilleryParams,
    ) -> Result<GunPlan, RuleError> {
        let t = figure(state, p.target.as_deref().unwrap_or_default())?;
        let target = state
            .figures
            .iter()
            .filter(|e| {
                e.side == t.side
                    && e.side != g.side
                    && in_the_fight(e)
                    && !self.in_contact(state, e)
            })
            .min_by(|a, b| centre_gap_in(a, g).total_cmp(&centre_gap_in(b, g)))
            .ok_or_else(|| refuse(RefusalKind::NotAnEnemy, "no enemy to fire grapeshot at"))?;
        let range = self.in_cm(Length::centre_to_centre(&g.placement, &target.placement));
        let reach = self.data.artillery.grapeshot_range_cm;
        if range.value() > reach {
            return Err(refuse(
                RefusalKind::OutOfRange,
                format!(
                    "grapeshot reaches {reach} cm; {} is {range} away",
                    target.name
                ),
            ));
        }
        let rating = self.data.artillery.grapeshot_rating;
        let hits = self.hit_area(
            state,
            target,
            g.placement.center_in_table,
            rating,
            &p.remove,
        )?;
        Ok(GunPlan::Grape {
            gun: g.id,
            rating,
            range: range.reading(format!("grapeshot range to {}", target.name), &[reach]),
            hits,
        })
    }

    pub(super) fn resolve_artillery(
        &self,
        state: &GameState,
        p: &ArtilleryParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let plan = self.check_artillery(state, p)?;
        let mut work = Work::new(state);
        match plan {
            GunPlan::Grape {
                gun,
                rating,
                range,
                hits,
            } => {
                Self::mark_acted(&mut work, &[gun]);
                work.push(Event::Measured(range));
                let target = work.fig(hits.target)?.clone();
                // Every die hits: only the saves are rolled.
                self.push_area_odds(&mut work, &target, rating, 1, 0);
                work.note(format!(
                    "grapeshot hits automatically: {rating} hits on the {rating} cm half circle around {}",
                    target.name
                ));
                self.area_hits(&mut work, &hits, rating as usize, dice)?;
            }
            GunPlan::AtPoint {
                gun,
                ammo,
                aim,
                crew_mod,
                gunners,
                helpers,
            } => {
                let g = work.fig(gun)?.clone();
                Self::mark_acted(&mut work, &[gun]);
                work.note(format!(
                    "{} has {gunners} gunners and {helpers} helpers: {crew_mod:+} to hit",
                    g.name
                ));
                self.fire_at_point(&mut work, &g, ammo, aim, crew_mod, dice)?;
            }
        }
        Ok(work.into_events())
    }

    /// Roundshot or shrapnel at `aim`: the gun's die lands on the point or
    /// deviates; roundshot strikes its line and bounce, shrapnel bursts.
    fn fire_at_point(
        &self,
        work: &mut Work,
        g: &Figure,
        ammo: Ammo,
        aim: Point2<f64>,
        crew_mod: i32,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let from = g.placement.center_in_table;
        let die = self.data.fire.die;
        let shrapnel_p = f64::from(die + 1 - self.data.artillery.shrapnel_hit_on) / f64::from(die);
        work.push(Event::Odds {
            purpose: format!(
                "{} fires {} at ({:.1}, {:.1})",
                g.name,
                ammo.name(),
                aim.x,
                aim.y
            ),
            odds: named(&[
                ("p_on_point", gun_hit_p(&self.data, crew_mod)),
                (
                    "p_figure_in_line_killed",
                    struck_killed_p(&self.data, 1.0, false),
                ),
                (
                    "p_figure_under_shrapnel_killed",
                    struck_killed_p(&self.data, shrapnel_p, false),
                ),
            ]),
        });
        let face = work.roll1(dice, die, "gun to hit", Some(g.id))?;
        let impact =
            if i64::from(face) + i64::from(crew_mod) >= i64::from(self.data.artillery.to_hit) {
                aim
            } else {
                self.deviate(work, from, aim, dice, g.id)?
            };
        if ammo == Ammo::Roundshot {
            self.roundshot(work, g, impact, dice)
        } else {
            self.shrapnel(work, impact, dice)
        }
    }

    /// Every figure on the line from the bore to the impact point, and on
    /// the bounce beyond it, is struck (the gun's own crew aside).
    fn roundshot(
        &self,
        work: &mut Work,
        g: &Figure,
        impact: Point2<f64>,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let a = &self.data.artillery;
        let from = g.placement.center_in_table;
        let b = work.roll1(dice, a.bounce_die, "bounce", Some(g.id))?;
        let bounce_cm = f64::from(b) * a.bounce_cm_per_pip;
        let end = point_at(impact, bearing_deg(from, impact), self.inches(bounce_cm));
        work.note(format!(
            "the ball lands at ({:.1}, {:.1}) and bounces {bounce_cm:.0} cm on",
            impact.x, impact.y
        ));
        let state = work.now.clone();
        let mut inline: Vec<&Figure> = state
            .figures
            .iter()
            .filter(|f| {
                in_the_fight(f)
                    && f.id != g.id
                    && st(f).crew.as_deref() != Some(g.name.as_str())
                    && (line_hits_base(from, impact, &f.placement)
                        || line_hits_base(impact, end, &f.placement))
            })
            .collect();
        inline.sort_by(|x, y| centre_gap_in(x, g).total_cmp(&centre_gap_in(y, g)));
        let ids: Vec<FigureId> = inline.iter().map(|f| f.id).collect();
        work.note(format!("{} figures in the line", ids.len()));
        self.struck(work, &ids, dice)
    }

    /// Shrapnel bursts over the point: a die for every figure in the area
    /// of impact.
    fn shrapnel(
        &self,
        work: &mut Work,
        impact: Point2<f64>,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let a = &self.data.artillery;
        let radius_in = self.inches(a.shrapnel_radius_cm);
        let under: Vec<FigureId> = work
            .now
            .figures
            .iter()
            .filter(|f| in_the_fight(f) && disc_touches_base(impact, radius_in, &f.placement))
            .map(|f| f.id)
            .collect();
        let mut hit = Vec::new();
        for id in under {
            let d = work.roll1(dice, self.data.fire.die, "shrapnel", Some(id))?;
            if d >= a.shrapnel_hit_on {
                hit.push(id);
            }
        }
        work.note(format!("shrapnel bursts: {} figures hit", hit.len()));
        self.struck(work, &hit, dice)
    }

    /// A missed gun: the deviation die's distance and direction (1 = over,
    /// on along the line of fire; then clockwise).
    fn deviate(
        &self,
        work: &mut Work,
        from: Point2<f64>,
        aim: Point2<f64>,
        dice: &mut dyn Dice,
        gun: FigureId,
    ) -> Result<Point2<f64>, RuleError> {
        let a = &self.data.artillery;
        let d = work.roll1(dice, a.deviation_die, "deviation distance", Some(gun))?;
        let dir = work.roll1(
            dice,
            a.deviation_direction_faces,
            "deviation direction",
            Some(gun),
        )?;
        let step = 360.0 / f64::from(a.deviation_direction_faces.max(1));
        let bearing = bearing_deg(from, aim) - f64::from(dir - 1) * step;
        let cm = f64::from(d) * a.deviation_cm_per_pip;
        let landed = point_at(aim, bearing, self.inches(cm));
        work.note(format!(
            "off target: {cm} cm toward direction {dir}, at ({:.1}, {:.1})",
            landed.x, landed.y
        ));
        Ok(landed)
    }

    /// The guns the card's officer commands fire at the nearest enemy:
    /// grapeshot in its range, else roundshot (Napoleons) or shrapnel.
    pub(super) fn guns_fire(
        &self,
        work: &mut Work,
        officer: &Figure,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let now = work.now.clone();
        let guns: Vec<&Figure> = now
            .figures
            .iter()
            .filter(|g| {
                self.data
                    .weapons
                    .get(&g.weapon)
                    .is_some_and(|w| w.gun.is_some())
                    && g.side == officer.side
                    && self.commanded(&now, g, true).is_ok()
            })
            .collect();
        for g in guns {
            let Ok(kind) = self.gun_kind(g) else {
                continue;
            };
            let Some(enemy) = work
                .now
                .figures
                .iter()
                .filter(|e| e.side != g.side && in_the_fight(e))
                .min_by(|a, b| centre_gap_in(a, g).total_cmp(&centre_gap_in(b, g)))
            else {
                break;
            };
            let grape = self.cm(centre_gap_in(enemy, g)) <= self.data.artillery.grapeshot_range_cm;
            let ammo = match (grape, kind) {
                (true, _) => Ammo::Grapeshot,
                (false, GunKind::Napoleon) => Ammo::Roundshot,
                (false, GunKind::Rifled) => Ammo::Shrapnel,
            };
            let p = ArtilleryParams {
                gun: g.name.clone(),
                ammo,
                at_in: None,
                target: Some(enemy.name.clone()),
                remove: Vec::new(),
            };
            match self.resolve_artillery(&work.now, &p, dice) {
                Ok(ev) => {
                    for e in ev {
                        work.push(e);
                    }
                }
                Err(RuleError::Refused(why)) => {
                    work.note(format!("{} does not fire: {why}", g.name));
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}
