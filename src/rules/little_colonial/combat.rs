//! Close combat: contact within 2.5 cm base edge to base edge, the
//! formation modifiers (a single rank wins ties, second rank +1, third
//! rank against cavalry from the front +1, +1 for each friend to the flank
//! not in close combat), and the paired d6 until one wins.
//!
//! # Conventions
//! Angles are degrees off the fighter's facing; the front and flank
//! angles and the flank distance are data (`[close_combat]`).

use super::action::CombatParams;
use super::close_combat_p;
use super::engine::{LittleColonialRules, in_the_fight, refuse};
use crate::core::dice::Dice;
use crate::core::odds::named;
use crate::core::{Length, Reading, RefusalKind};
use crate::geometry::{RangeMethod, angle_off_facing_deg, range_in};
use crate::rules::RuleError;
use crate::rules::common::{Work, figure};
use crate::rules::{Event, Figure, FigureId, GameState};

/// Re-rolls of a tied close combat before it is left undecided.
const MAX_TIE_ROLLS: usize = 50;

/// A fighter's formation modifiers.
#[derive(Debug, Clone, Default)]
pub(super) struct Support {
    pub add: i32,
    /// A single rank in formation: he wins ties.
    pub single_rank: bool,
    pub why: Vec<String>,
}

impl LittleColonialRules {
    /// The formation modifiers of a fighter against `enemy`. In a formed
    /// unit (not `loose`): +1 with a second rank man directly behind, +1
    /// more against cavalry in front with a third; anyone: +1 for each
    /// friend at his flank who is not in close combat himself.
    pub(super) fn formation_add(&self, state: &GameState, f: &Figure, enemy: &Figure) -> Support {
        let cc = &self.data.close_combat;
        let mut s = Support::default();
        let unit = state
            .units
            .iter()
            .find(|u| u.formation != "loose" && u.figures.contains(&f.id));
        if let Some(u) = unit {
            let alive = |i: usize| {
                u.figures
                    .get(i)
                    .and_then(|id| state.figure(*id))
                    .is_some_and(in_the_fight)
            };
            let fr = u.frontage as usize;
            let k = u.figures.iter().position(|id| *id == f.id).unwrap_or(0);
            if fr == 0 || !(fr..u.figures.len()).any(alive) {
                s.single_rank = true;
                s.why.push("a single rank: wins ties".to_owned());
            } else if k < fr {
                if alive(k + fr) {
                    s.add += cc.second_rank_add;
                    s.why.push(format!("second rank {:+}", cc.second_rank_add));
                }
                let in_front = angle_off_facing_deg(
                    f.placement.center_in_table,
                    f.placement.facing_deg,
                    enemy.placement.center_in_table,
                ) <= cc.front_half_arc_deg;
                if enemy.mounted() && in_front && alive(k + 2 * fr) {
                    s.add += cc.third_rank_vs_cavalry_add;
                    s.why.push(format!(
                        "third rank against cavalry {:+}",
                        cc.third_rank_vs_cavalry_add
                    ));
                }
            }
        }
        let flank_in = self.inches(cc.flank_gap_cm);
        for g in state.figures.iter().filter(|g| {
            g.side == f.side
                && g.id != f.id
                && in_the_fight(g)
                && range_in(&g.placement, &f.placement, RangeMethod::EdgeToEdge).value_in
                    <= flank_in
        }) {
            let off = angle_off_facing_deg(
                f.placement.center_in_table,
                f.placement.facing_deg,
                g.placement.center_in_table,
            );
            let at_flank = (off - 90.0).abs() <= cc.flank_spread_deg;
            if at_flank && !self.in_contact(state, g) {
                s.add += cc.flank_add;
                s.why
                    .push(format!("{} at his flank {:+}", g.name, cc.flank_add));
            }
        }
        s
    }

    /// Are the two in contact? The gap base edge to base edge, in cm.
    pub(super) fn check_combat(
        &self,
        state: &GameState,
        p: &CombatParams,
    ) -> Result<(FigureId, FigureId, Reading), RuleError> {
        let a = figure(state, &p.a)?;
        let b = figure(state, &p.b)?;
        self.card_and_owner(state)?;
        if a.side == b.side || !in_the_fight(a) || !in_the_fight(b) {
            return Err(refuse(
                RefusalKind::CannotDo,
                "close combat is between enemies in the fight",
            ));
        }
        let gap = self.in_cm(Length::between(
            &a.placement,
            &b.placement,
            RangeMethod::EdgeToEdge,
        ));
        let contact = self.data.close_combat.contact_cm;
        if gap.value() > contact {
            return Err(refuse(
                RefusalKind::NotInContact,
                format!(
                    "{} and {} are not in contact: {gap} between their bases, contact is {contact} cm",
                    a.name, b.name
                ),
            )
            .by(a.id));
        }
        let reading = gap.reading(
            format!("{} to {}, base to base", a.name, b.name),
            &[contact],
        );
        Ok((a.id, b.id, reading))
    }

    pub(super) fn resolve_combat(
        &self,
        state: &GameState,
        p: &CombatParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let (a, b, reading) = self.check_combat(state, p)?;
        let (a, b) = (
            state.figure(a).cloned().ok_or(RuleError::Unknown {
                what: "figure",
                name: p.a.clone(),
            })?,
            state.figure(b).cloned().ok_or(RuleError::Unknown {
                what: "figure",
                name: p.b.clone(),
            })?,
        );
        let wins_ties = self.data.close_combat.single_rank_wins_ties;
        let sa = self.formation_add(state, &a, &b);
        let sb = self.formation_add(state, &b, &a);
        let (a_add, b_add) = (p.a_add + sa.add, p.b_add + sb.add);
        let a_ties = wins_ties && (p.a_single_rank || sa.single_rank);
        let b_ties = wins_ties && (p.b_single_rank || sb.single_rank);
        let mut work = Work::new(state);
        work.push(Event::Measured(reading));
        for (f, why) in [(&a, &sa.why), (&b, &sb.why)] {
            if !why.is_empty() {
                work.note(format!("{}: {}", f.name, why.join(", ")));
            }
        }
        work.push(Event::Odds {
            purpose: format!(
                "close combat {} ({a_add:+}) against {} ({b_add:+})",
                a.name, b.name
            ),
            odds: named(&[(
                "p_a_wins",
                close_combat_p(&self.data, a_add, a_ties, b_add, b_ties),
            )]),
        });
        for _ in 0..MAX_TIE_ROLLS {
            let r = work.roll(
                dice,
                2,
                self.data.close_combat.die,
                format!("close combat {} against {}", a.name, b.name),
                Some(a.id),
            )?;
            let (ta, tb) = (r[0].face as i32 + a_add, r[1].face as i32 + b_add);
            let a_wins = ta > tb || (ta == tb && a_ties && !b_ties);
            let b_wins = tb > ta || (ta == tb && b_ties && !a_ties);
            if a_wins || b_wins {
                let loser = if a_wins { b.id } else { a.id };
                self.casualty(&mut work, loser, dice)?;
                return Ok(work.into_events());
            }
        }
        work.note("the combat stays tied");
        Ok(work.into_events())
    }
}
