//! Melee (7) and a charging horse's impact on a footman (5.5).
//!
//! # Conventions
//! Contact is base edge to base edge within the adjacent distance (1 in),
//! table inches, with the positions' uncertainty.

use super::action::{ImpactAnswer, ImpactParams, MeleeParams};
use super::engine::{MELEE, SoldiersInTimeRules, edge_gap, in_play, refuse, routed, st, within};
use super::event::Event as SitEvent;
use super::status::HorseSize;
use super::{
    NAME, activation_odds, activation_passes, damage_odds, horse_impact_distribution, melee_base,
    melee_odds,
};
use crate::core::RefusalKind;
use crate::core::dice::Dice;
use crate::core::odds::named;
use crate::rules::common::{Work, figure, require_active_side};
use crate::rules::{Event, Figure, FigureId, GameState, Pace, RuleError};

/// A melee, decided but for the dice.
pub(super) struct MeleePlan {
    a: FigureId,
    b: FigureId,
    a_total: i32,
    b_total: i32,
    /// Who parries (7.2, house): a win on a parry only turns the blow.
    parry: (bool, bool),
}

impl SoldiersInTimeRules {
    /// The 7.2 modifiers of `f` fighting `foe`, each named: charging +2
    /// (the text's); house: a parry, one against many, a rider against a
    /// man on foot.
    fn melee_modifiers(
        &self,
        state: &GameState,
        f: &Figure,
        foe: &Figure,
        parries: bool,
    ) -> Vec<(&'static str, i32)> {
        let m = &self.data.melee;
        let mut mods = Vec::new();
        if st(f).charging {
            mods.push(("charging", m.charging_add));
        }
        if parries {
            mods.push(("parry", m.parry_add));
        }
        let foes = state
            .figures
            .iter()
            .filter(|e| {
                e.side != f.side
                    && in_play(e)
                    && !routed(e)
                    && within(edge_gap(e, f), self.data.fire.adjacent_in)
            })
            .count();
        if foes > 1 {
            let extra = i32::try_from(foes - 1).unwrap_or(i32::MAX);
            mods.push(("one against many", m.one_vs_many_add.saturating_mul(extra)));
        }
        if f.mounted() && !foe.mounted() {
            mods.push(("mounted against foot", m.mounted_vs_foot_add));
        }
        mods.retain(|(_, v)| *v != 0);
        mods
    }

    fn melee_total(
        &self,
        state: &GameState,
        f: &Figure,
        foe: &Figure,
        parries: bool,
    ) -> Result<i32, RuleError> {
        let base =
            melee_base(&self.data, &f.melee_weapon, f.experience).ok_or(RuleError::Unknown {
                what: "melee weapon",
                name: f.melee_weapon.clone(),
            })?;
        Ok(base
            + self
                .melee_modifiers(state, f, foe, parries)
                .iter()
                .map(|(_, v)| v)
                .sum::<i32>())
    }

    pub(super) fn plan_melee(
        &self,
        state: &GameState,
        p: &MeleeParams,
    ) -> Result<MeleePlan, RuleError> {
        self.phase(state, "melee", &[MELEE])?;
        let a = figure(state, &p.a)?;
        let b = figure(state, &p.b)?;
        if a.side == b.side || (a.side != state.active_side && b.side != state.active_side) {
            return Err(refuse(
                RefusalKind::NotAnEnemy,
                "a melee is between a figure of the side whose turn it is and an enemy",
            ));
        }
        if !in_play(a) || !in_play(b) {
            return Err(refuse(
                RefusalKind::OutOfTheFight,
                "both figures must be in the fight",
            ));
        }
        let starter = if a.side == state.active_side { a } else { b };
        if routed(starter) {
            return Err(refuse(
                RefusalKind::Morale,
                format!(
                    "{} is routed: a routing figure will not melee or shoot",
                    starter.name
                ),
            )
            .by(starter.id));
        }
        if st(starter).flag {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("{} bears the flag: he does not fight", starter.name),
            )
            .by(starter.id));
        }
        let adjacent = self.data.fire.adjacent_in;
        if !within(edge_gap(a, b), adjacent) {
            return Err(refuse(
                RefusalKind::NotInContact,
                format!(
                    "{} and {} are not in contact (over {adjacent} in apart)",
                    a.name, b.name
                ),
            )
            .by(a.id));
        }
        let parries = |f: &Figure| p.parry.contains(&f.name);
        if let Some(n) = p.parry.iter().find(|n| **n != a.name && **n != b.name) {
            return Err(refuse(
                RefusalKind::Malformed,
                format!(
                    "{n} is not in this melee: only {} or {} can parry",
                    a.name, b.name
                ),
            ));
        }
        Ok(MeleePlan {
            a: a.id,
            b: b.id,
            a_total: self.melee_total(state, a, b, parries(a))?,
            b_total: self.melee_total(state, b, a, parries(b))?,
            parry: (parries(a), parries(b)),
        })
    }

    /// 7: both roll a d10 on their base number; the higher strikes home for
    /// the difference; equal totals strike nobody (house: the text has no
    /// tie rule). The loser "retreats at least 1 inch in all cases" (4 in
    /// when he routs).
    pub(super) fn resolve_melee(
        &self,
        state: &GameState,
        p: &MeleeParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let plan = self.plan_melee(state, p)?;
        let mut work = Work::new(state);
        self.melee_round(
            &mut work,
            (plan.a, plan.b),
            (plan.a_total, plan.b_total),
            plan.parry,
            dice,
        )?;
        Ok(work.into_events())
    }

    /// One round of melee between `a` and `b` on their totals: the odds,
    /// a d10 each, the damage to the loser and his retreat.
    fn melee_round(
        &self,
        work: &mut Work,
        (a, b): (FigureId, FigureId),
        (ta, tb): (i32, i32),
        parry: (bool, bool),
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let a = work.fig(a)?.clone();
        let b = work.fig(b)?.clone();
        let o = melee_odds(&self.data, ta, tb, st(&b).armour);
        work.push(Event::Odds {
            purpose: format!("melee {} against {}", a.name, b.name),
            odds: named(&[
                ("p_a_wins", o.p_a_wins),
                ("p_b_wins", o.p_b_wins),
                ("p_tie", o.p_tie),
            ]),
        });
        work.push(super::engine::sit(SitEvent::Fought {
            a: a.id,
            b: b.id,
            turn: work.now.turn,
        }));
        let rolls = work.roll(
            dice,
            2,
            self.data.melee.die,
            format!("melee {} ({ta:+}) against {} ({tb:+})", a.name, b.name),
            Some(a.id),
        )?;
        let face = |i: usize| i32::try_from(rolls[i].face).unwrap_or(i32::MAX);
        let (sa, sb) = (ta + face(0), tb + face(1));
        if sa == sb {
            work.note("equal totals: nobody strikes home (house rule)");
            return Ok(());
        }
        let (winner, loser, parried) = if sa > sb {
            (&a, &b, parry.0)
        } else {
            (&b, &a, parry.1)
        };
        if parried {
            work.note(format!(
                "{} wins on a parry: he turns {}'s blow (house rule)",
                winner.name, loser.name
            ));
            return Ok(());
        }
        self.apply_damage(work, loser.id, sa.abs_diff(sb), dice)?;
        let after = work.fig(loser.id)?.clone();
        if in_play(&after) && !routed(&after) {
            let retreat = if self.horse_panics(work, &after, dice)? {
                self.data.melee.rout_in
            } else {
                self.data.melee.retreat_in
            };
            work.note(format!(
                "{} lost the round: he retreats {retreat} in",
                after.name
            ));
            let from = work.fig(winner.id)?.placement.center_in_table;
            let e = Self::away_event(&work.now, &after, Some(from), retreat, Pace::Walk);
            work.push(e);
        }
        Ok(())
    }

    /// 7.2 Horse Panic (house): a rider who lost a round flips a card
    /// against his horsemanship; failed, the horse panics (he goes back the
    /// rout move, and the horse halts).
    fn horse_panics(
        &self,
        work: &mut Work,
        r: &Figure,
        dice: &mut dyn Dice,
    ) -> Result<bool, RuleError> {
        if !r.mounted() {
            return Ok(false);
        }
        let number = st(r)
            .horsemanship
            .filter(|n| *n > 0)
            .unwrap_or(r.experience);
        let pile = Self::deck_pile(&work.now, r.side);
        work.push(Event::Odds {
            purpose: format!("{}'s horse after the lost round", r.name),
            odds: named(&[(
                "p_horse_steady",
                activation_odds(&self.data, &pile, number, r.leader),
            )]),
        });
        let card = Self::draw(work, r.side, dice)?;
        if activation_passes(&self.data, card, number, r.leader) {
            return Ok(false);
        }
        work.note(format!("{}'s horse panics (house rule)", r.name));
        work.push(Event::MountSpeed {
            figure: r.id,
            level: 0,
        });
        Ok(true)
    }

    /// Has the rider, or a man of his unit, engaged `t` in melee this turn?
    fn engaged_by(state: &GameState, t: &Figure, r: &Figure) -> bool {
        let same_unit = |id: FigureId| {
            id == r.id
                || state
                    .units
                    .iter()
                    .any(|u| u.figures.contains(&id) && u.figures.contains(&r.id))
        };
        st(t).fought_turn == Some(state.turn) && st(t).fought_with.iter().any(|id| same_unit(*id))
    }

    /// 5.5: "If the figure struck was not engaged in melee by the active
    /// rider or another member of the rider's unit, he can make an Action
    /// check immediately and use it to dodge out of the way if there is
    /// space to the side, or to attack the rider or horse." His card
    /// against his own experience; passed, he dodges (the player sees the
    /// space) or fights a round of melee with the rider first (house: the
    /// horse still hits him unless that round puts the rider out of the
    /// fight or routs him). Returns whether the horse still hits him.
    fn impact_answer(
        &self,
        work: &mut Work,
        r: &Figure,
        t: &Figure,
        answer: ImpactAnswer,
        dice: &mut dyn Dice,
    ) -> Result<bool, RuleError> {
        let pile = Self::deck_pile(&work.now, t.side);
        work.push(Event::Odds {
            purpose: format!("{} answers {}'s horse", t.name, r.name),
            odds: named(&[(
                "p_answers",
                activation_odds(&self.data, &pile, t.experience, t.leader),
            )]),
        });
        let card = Self::draw(work, t.side, dice)?;
        if !activation_passes(&self.data, card, t.experience, t.leader) {
            work.note(format!(
                "{} fails his action check: the horse is on him",
                t.name
            ));
            return Ok(true);
        }
        match answer {
            ImpactAnswer::Dodge => {
                work.note(format!(
                    "{} dodges out of the way of {}'s horse",
                    t.name, r.name
                ));
                Ok(false)
            }
            ImpactAnswer::Attack => {
                work.note(format!("{} attacks {} before the impact", t.name, r.name));
                let totals = (
                    self.melee_total(&work.now, t, r, false)?,
                    self.melee_total(&work.now, r, t, false)?,
                );
                self.melee_round(work, (t.id, r.id), totals, (false, false), dice)?;
                let rider = work.fig(r.id)?;
                Ok(in_play(rider) && !routed(rider))
            }
        }
    }

    pub(super) fn plan_impact<'a>(
        &self,
        state: &'a GameState,
        p: &ImpactParams,
    ) -> Result<(&'a Figure, &'a Figure), RuleError> {
        self.phase(state, "horse-impact", &[MELEE])?;
        let r = figure(state, &p.rider)?;
        let t = figure(state, &p.footman)?;
        require_active_side(NAME, state, r)?;
        if !r.mounted() || t.mounted() || r.side == t.side {
            return Err(refuse(
                RefusalKind::CannotDo,
                "a rider's horse hits an enemy on foot",
            ));
        }
        if !in_play(r) || !in_play(t) {
            return Err(refuse(
                RefusalKind::OutOfTheFight,
                "both figures must be in the fight",
            ));
        }
        if !within(edge_gap(r, t), self.data.fire.adjacent_in) {
            return Err(refuse(
                RefusalKind::NotInContact,
                format!("{}'s horse does not reach {}", r.name, t.name),
            )
            .by(r.id));
        }
        if p.answer.is_some() && Self::engaged_by(state, t, r) {
            return Err(refuse(
                RefusalKind::Engaged,
                format!(
                    "{} is engaged in melee by {} or his unit: he cannot dodge or attack first",
                    t.name, r.name
                ),
            )
            .by(t.id));
        }
        Ok((r, t))
    }

    /// 5.5: the rider's horsemanship check to go in, then the impact's
    /// damage (1-5, +2 over 10 in, size of the horse).
    pub(super) fn resolve_impact(
        &self,
        state: &GameState,
        p: &ImpactParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let (r, t) = self.plan_impact(state, p)?;
        let speed = self.data.horse_speed_in(r.mount_level.unwrap_or(0));
        let size = match st(r).horse {
            Some(HorseSize::Small) => self.data.horse_impact.small_add,
            Some(HorseSize::Big) => self.data.horse_impact.big_add,
            None => 0,
        };
        let mut work = Work::new(state);
        let dist = horse_impact_distribution(&self.data, speed, size);
        if dist.is_empty() {
            work.note(format!(
                "{}'s horse is under {} in: it just stops",
                r.name, self.data.horse_impact.stops_under_in
            ));
            return Ok(work.into_events());
        }
        let number = st(r)
            .horsemanship
            .filter(|n| *n > 0)
            .unwrap_or(r.experience);
        let pile = Self::deck_pile(state, r.side);
        let p_in = activation_odds(&self.data, &pile, number, r.leader);
        let (_, _, k) = damage_odds(
            &dist,
            &self.shot_for(state, t, 0, 0),
            &Self::deck_pile(state, t.side),
        );
        work.push(Event::Odds {
            purpose: format!("{}'s horse at {}", r.name, t.name),
            odds: named(&[("p_goes_in", p_in), ("p_footman_killed", p_in * k)]),
        });
        let card = Self::draw(&mut work, r.side, dice)?;
        if !activation_passes(&self.data, card, number, r.leader) {
            work.note(format!("{}'s horse sheers off", r.name));
            return Ok(work.into_events());
        }
        if let Some(answer) = p.answer
            && !self.impact_answer(&mut work, r, t, answer, dice)?
        {
            return Ok(work.into_events());
        }
        let face = work.roll1(dice, self.data.horse_impact.die, "horse impact", Some(r.id))?;
        let damage = self
            .data
            .horse_impact_damage(face, speed, size)
            .unwrap_or(0);
        work.note(format!("{}'s horse knocks {} down", r.name, t.name));
        self.apply_damage(&mut work, t.id, damage, dice)?;
        Ok(work.into_events())
    }
}
