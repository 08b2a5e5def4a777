//! Morale (8), damage and saves (6.2), routs and the rally phase (3): the
//! checks a result triggers, one after another.
//!
//! # Conventions
//! Table inches, base edge to base edge. A morale card is drawn from the
//! checking figure's side's deck.

use nalgebra::Point2;

use super::action::{MoraleParams, RallyParams};
use super::engine::{
    SoldiersInTimeRules, edge_gap, in_play, is_red, refuse, routed, sit, st, within,
};
use super::event::Event as SitEvent;
use super::status::Order;
use super::{Damage, NAME, Shot, damage_result, morale_odds, morale_passes, save_passes};
use crate::core::RefusalKind;
use crate::core::dice::Dice;
use crate::core::odds::named;
use crate::geometry::{bearing_deg, point_at};
use crate::rules::common::{Work, figure, require_active_side};
use crate::rules::stand_to::Wound;
use crate::rules::{Event, Figure, FigureId, GameState, Pace, RuleError};

/// The figures a rally phase rallies.
pub(super) struct RallyPlan {
    figures: Vec<FigureId>,
}

impl SoldiersInTimeRules {
    /// A shot's (or blow's) situation against `t`.
    pub(super) fn shot_for(&self, state: &GameState, t: &Figure, skill: u8, modifier: i32) -> Shot {
        Shot {
            fire_skill: skill,
            modifier,
            already_loaded: true,
            target_armour: st(t).armour,
            target_experience: t.experience,
            target_red: is_red(state, t.side),
            leader_in_range: self.leader_in_range(state, t),
        }
    }

    /// Where a figure moving `dist_in` away from `from` ends, kept on the
    /// table; `from` on him: behind his facing.
    pub(super) fn away_event(
        state: &GameState,
        f: &Figure,
        from: Option<Point2<f64>>,
        dist_in: f64,
        pace: Pace,
    ) -> Event {
        let at = f.placement.center_in_table;
        let away = match from {
            Some(e) if (at - e).norm() > f64::EPSILON => bearing_deg(e, at),
            _ => f.placement.facing_deg + 180.0,
        };
        let to = point_at(at, away, dist_in);
        let to = Point2::new(
            to.x.clamp(0.0, state.table.width_in),
            to.y.clamp(0.0, state.table.depth_in),
        );
        Event::Moved {
            figure: f.id,
            to_in: to,
            facing_deg: crate::geometry::normalize_deg(away),
            pace,
            distance_in: (to - at).norm(),
            through_rough: false,
        }
    }

    /// The rear for a routing figure: away from the nearest enemy (or
    /// behind its facing), 4 in.
    fn rout_event(&self, state: &GameState, f: &Figure) -> Event {
        let enemy = state
            .figures
            .iter()
            .filter(|e| e.side != f.side && in_play(e))
            .min_by(|a, b| {
                super::engine::centre_gap(a, f)
                    .value()
                    .total_cmp(&super::engine::centre_gap(b, f).value())
            })
            .map(|e| e.placement.center_in_table);
        Self::away_event(state, f, enemy, self.data.fire.rout_in, Pace::Evade)
    }

    /// A morale card for `f`: logs the odds of passing (under `odds_key`),
    /// draws from his side's deck and says whether he passes.
    pub(super) fn morale_draw(
        &self,
        work: &mut Work,
        f: &Figure,
        purpose: String,
        odds_key: &str,
        dice: &mut dyn Dice,
    ) -> Result<bool, RuleError> {
        let influenced = self.influenced(&work.now, f);
        let p = morale_odds(
            &self.data,
            &Self::deck_pile(&work.now, f.side),
            f.experience,
            f.leader,
            influenced,
        );
        work.push(Event::Odds {
            purpose,
            odds: named(&[(odds_key, p)]),
        });
        let card = Self::draw(work, f.side, dice)?;
        Ok(morale_passes(
            &self.data,
            card,
            f.experience,
            f.leader,
            influenced,
        ))
    }

    /// The friends within 1 in of `f` as he stands now (before he moves).
    fn beside(&self, state: &GameState, f: &Figure) -> Vec<FigureId> {
        state
            .figures
            .iter()
            .filter(|n| {
                n.side == f.side
                    && n.id != f.id
                    && in_play(n)
                    && !routed(n)
                    && within(edge_gap(n, f), self.data.fire.adjacent_in)
            })
            .map(|n| n.id)
            .collect()
    }

    /// 8: "If surrounded and with no gap between enemy figures, the figure
    /// will surrender to the nearest opponent." The nearest enemy's name
    /// when every way out is shut: each enemy within his rout move (base
    /// edge to base edge) closes the bearings along which his base would
    /// touch the enemy's (the two bases' widths, house reading of "no
    /// gap"), and those bearings go all the way round.
    pub(super) fn surrounded_by(&self, state: &GameState, f: &Figure) -> Option<String> {
        let at = f.placement.center_in_table;
        let mut shut: Vec<(f64, f64)> = Vec::new();
        let mut nearest: Option<(f64, &Figure)> = None;
        for e in state
            .figures
            .iter()
            .filter(|e| e.side != f.side && in_play(e) && !routed(e))
        {
            let gap = edge_gap(e, f).value();
            if gap > self.data.fire.rout_in {
                continue;
            }
            let d = (e.placement.center_in_table - at).norm();
            if d <= f64::EPSILON {
                return Some(e.name.clone());
            }
            let half = ((d - gap) / d).clamp(0.0, 1.0).asin().to_degrees();
            shut.push((bearing_deg(at, e.placement.center_in_table), half));
            if nearest.is_none_or(|(g, _)| gap < g) {
                nearest = Some((gap, e));
            }
        }
        let (_, captor) = nearest?;
        all_round(&shut).then(|| captor.name.clone())
    }

    /// Morale checks, one after another; a rout queues checks for the
    /// figures within 1 in of the routing figure (8: "Friendly Figure within
    /// one inch (adjacent or in front) is routed/killed"), found where he
    /// stood before his rout move.
    pub(super) fn morale_checks(
        &self,
        work: &mut Work,
        mut queue: Vec<(FigureId, String)>,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let mut checked: Vec<FigureId> = Vec::new();
        while !queue.is_empty() {
            let (id, reason) = queue.remove(0);
            let f = work.fig(id)?.clone();
            if checked.contains(&id) || !in_play(&f) || routed(&f) {
                continue;
            }
            checked.push(id);
            let purpose = format!("{} checks morale ({reason})", f.name);
            let passed = self.morale_draw(work, &f, purpose, "p_holds", dice)?;
            work.note(format!(
                "{} {} morale ({reason}) against {}",
                f.name,
                if passed { "holds" } else { "fails: routs 4 in" },
                f.experience
            ));
            if !passed {
                if let Some(captor) = self.surrounded_by(&work.now, &f) {
                    work.note(format!(
                        "{} is surrounded with no gap between the enemy: he surrenders to {captor}",
                        f.name
                    ));
                    work.push(sit(SitEvent::Removed {
                        figure: id,
                        reason: format!("surrendered to {captor}"),
                    }));
                    continue;
                }
                let neighbours = self.beside(&work.now, &f);
                work.push(sit(SitEvent::Routed { figure: id }));
                let e = self.rout_event(&work.now, &f);
                work.push(e);
                for n in neighbours {
                    queue.push((n, format!("{} routed beside him", f.name)));
                }
            }
        }
        Ok(())
    }

    /// A figure dies: the morale checks it triggers follow, and a leader's
    /// independent fire order ends with him (5.2: "until the leader either
    /// dies or gives different orders").
    pub(super) fn kill(
        &self,
        work: &mut Work,
        id: FigureId,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let f = work.fig(id)?.clone();
        // Who was influenced by him, before he fell.
        let mut queue = Vec::new();
        let mut orders_end = Vec::new();
        for n in work
            .now
            .figures
            .iter()
            .filter(|n| n.side == f.side && n.id != id)
        {
            if f.leader
                && st(n).order.is_some_and(|o| {
                    o.by == Some(id) && o.order == Order::IndependentFire && o.passed
                })
            {
                orders_end.push(n.id);
            }
            if !in_play(n) || routed(n) {
                continue;
            }
            let gap = edge_gap(n, &f);
            if within(gap, self.data.fire.adjacent_in) {
                queue.push((n.id, format!("{} fell beside him", f.name)));
            } else if f.leader && within(gap, self.data.command.range_in) {
                queue.push((n.id, format!("his leader {} fell", f.name)));
            } else if st(&f).flag && within(gap, self.data.special.flag_bearer_radius_in) {
                queue.push((n.id, format!("the flag bearer {} fell", f.name)));
            }
        }
        work.push(Event::Wounded {
            figure: id,
            wound: Wound::Killed,
            mount: false,
        });
        if !orders_end.is_empty() {
            work.note(format!(
                "{} fell: the independent fire he ordered ends with him",
                f.name
            ));
        }
        for n in orders_end {
            work.push(sit(SitEvent::OrderEnded { figure: n }));
        }
        self.morale_checks(work, queue, dice)
    }

    /// 9: "HP=hit points/experience points for the weapon. This is the
    /// damage the weapon can sustain before becoming unusable." A gun's
    /// stand hit takes the damage on the weapon too (adding up, house).
    fn damage_weapon(&self, work: &mut Work, t: &Figure, damage: u32) {
        let Some(hp) = self.weapon(t).ok().and_then(|w| w.hit_points) else {
            return;
        };
        if damage == 0 {
            return;
        }
        work.push(sit(SitEvent::WeaponDamaged {
            figure: t.id,
            damage,
        }));
        let total = st(t).weapon_damage.saturating_add(damage);
        work.note(if total >= hp {
            format!(
                "{}'s {} takes {damage} damage ({total} of {hp} hit points): it is unusable",
                t.name, t.weapon
            )
        } else {
            format!(
                "{}'s {} takes {damage} damage ({total} of {hp} hit points): it still works",
                t.name, t.weapon
            )
        });
    }

    /// Damage against a figure: morale check or save card. Returns what
    /// became of him (None: he was out of the fight already).
    pub(super) fn apply_damage(
        &self,
        work: &mut Work,
        id: FigureId,
        damage: u32,
        dice: &mut dyn Dice,
    ) -> Result<Option<Damage>, RuleError> {
        let t = work.fig(id)?.clone();
        if !in_play(&t) {
            return Ok(None);
        }
        self.damage_weapon(work, &t, damage);
        let leader = self.leader_in_range(&work.now, &t);
        let result = damage_result(damage, st(&t).armour, t.experience);
        match result {
            Damage::MoraleCheck => {
                work.note(format!(
                    "damage {damage} does not pass {}'s armour: a morale check",
                    t.name
                ));
                self.morale_checks(work, vec![(id, "hit, armour held".into())], dice)?;
            }
            Damage::Save(n) => {
                let card = Self::draw(work, t.side, dice)?;
                let saved = save_passes(card, n, is_red(&work.now, t.side), leader);
                work.note(format!(
                    "damage {damage}: {} saves on {n} or under: {}",
                    t.name,
                    if saved { "saved" } else { "killed" }
                ));
                if !saved {
                    self.kill(work, id, dice)?;
                }
            }
        }
        Ok(Some(result))
    }

    pub(super) fn plan_rally(
        &self,
        state: &GameState,
        p: &RallyParams,
    ) -> Result<RallyPlan, RuleError> {
        self.phase(state, "rally", &[super::engine::RALLY])?;
        if p.figures.is_empty() {
            let figures = state
                .figures
                .iter()
                .filter(|f| f.side == state.active_side && in_play(f) && routed(f))
                .map(|f| f.id)
                .collect();
            return Ok(RallyPlan { figures });
        }
        let mut figures = Vec::new();
        for n in &p.figures {
            let f = figure(state, n)?;
            require_active_side(NAME, state, f)?;
            if !routed(f) || !in_play(f) {
                return Err(
                    refuse(RefusalKind::Morale, format!("{} is not routed", f.name)).by(f.id),
                );
            }
            figures.push(f.id);
        }
        Ok(RallyPlan { figures })
    }

    /// 3: a routed figure rallies on a card at or under his experience, or a
    /// face card with a leader in command range; otherwise he leaves the
    /// battle.
    pub(super) fn resolve_rally(
        &self,
        state: &GameState,
        p: &RallyParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let plan = self.plan_rally(state, p)?;
        let mut work = Work::new(state);
        if plan.figures.is_empty() {
            work.note("nobody needs to rally");
        }
        for id in plan.figures {
            let f = work.fig(id)?.clone();
            let purpose = format!("{} rallies", f.name);
            // A leader rallies only near another leader of at least his
            // experience.
            let rallies = self.morale_draw(&mut work, &f, purpose, "p_rallies", dice)?
                && (!f.leader || self.leader_in_range(&work.now, &f));
            if rallies {
                work.push(sit(SitEvent::Rallied { figure: id }));
                work.note(format!("{} rallies", f.name));
            } else {
                work.push(sit(SitEvent::Removed {
                    figure: id,
                    reason: "failed to rally".into(),
                }));
                work.note(format!("{} fails to rally and leaves the battle", f.name));
            }
        }
        Ok(work.into_events())
    }

    pub(super) fn plan_morale<'a>(
        &self,
        state: &'a GameState,
        p: &MoraleParams,
    ) -> Result<&'a Figure, RuleError> {
        let f = figure(state, &p.figure)?;
        if !in_play(f) || routed(f) {
            return Err(refuse(
                RefusalKind::OutOfTheFight,
                format!("{} is not there to check", f.name),
            )
            .by(f.id));
        }
        Ok(f)
    }

    pub(super) fn resolve_morale(
        &self,
        state: &GameState,
        p: &MoraleParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let f = self.plan_morale(state, p)?;
        let mut work = Work::new(state);
        self.morale_checks(&mut work, vec![(f.id, p.reason.clone())], dice)?;
        Ok(work.into_events())
    }
}

/// Do the arcs (centre bearing, half width, degrees; open at their ends)
/// cover every bearing? A bearing left open is the end of some arc, or
/// lies just past one, so looking at the ends is enough.
fn all_round(arcs: &[(f64, f64)]) -> bool {
    let inside = |b: f64| {
        arcs.iter().any(|(c, h)| {
            let off = crate::geometry::normalize_deg(b - c);
            off.min(360.0 - off) < *h
        })
    };
    !arcs.is_empty() && arcs.iter().all(|(c, h)| inside(c + h) && inside(c - h))
}

#[cfg(test)]
mod tests {
    use super::all_round;

    #[test]
    fn arcs_all_round_or_with_a_gap() {
        assert!(all_round(&[(0.0, 90.0), (120.0, 90.0), (240.0, 90.0)]));
        // Two opposite halves touch at the sides: he slips out there.
        assert!(!all_round(&[(0.0, 90.0), (180.0, 90.0)]));
        assert!(!all_round(&[(0.0, 60.0), (120.0, 50.0), (240.0, 60.0)]));
        assert!(!all_round(&[]));
    }
}
