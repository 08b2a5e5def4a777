//! Orders (1.2, 4, 5.2): a leader's activation card for the men within his
//! command range, and the out of command range chart for a figure outside
//! every leader's range.
//!
//! # Conventions
//! Command range is base edge to base edge, table inches, with the
//! positions' uncertainty: a man too close to call is counted in range and
//! the reading says so.
//!
//! The out of command range chart is lost from our copy of the text; the
//! house chart (data file `[command.house]`): the figure flips a card
//! against his own experience as an activation check. Passed: he acts on
//! his own for the turn (walks up to his allowance, not running, which
//! needs a leader; an aimed shot if he has not moved, else a snap shot).
//! Failed: he stays where he is and may only snap fire (turning to face the
//! enemy, 5: "Any figure that fails the Activation Check may still turn and
//! face the enemy"). Out of every enemy's line of sight he needs no card
//! (4: "A player does not have to flip cards for orders for figures when
//! out of the enemies line of sight").

use super::action::{ActivateParams, IndividualParams};
use super::engine::{
    COMMAND, MOVEMENT, SoldiersInTimeRules, edge_gap, in_play, refuse, routed, sit, st, within,
};
use super::event::Event as SitEvent;
use super::status::Order;
use super::{NAME, activation_odds, activation_passes};
use crate::core::dice::Dice;
use crate::core::odds::named;
use crate::core::{Reading, RefusalKind};
use crate::geometry::line_of_sight;
use crate::rules::common::{Work, figure, require_active_side};
use crate::rules::{Event, Figure, FigureId, GameState, RuleError};

/// How far past a target the line of sight looks for cover, table inches
/// (only whether the line is clear matters here).
const SIGHT_COVER_REACH_IN: f64 = 1.0;

/// An activation, decided but for the card.
pub(super) struct ActivatePlan {
    leader: FigureId,
    order: Order,
    away: bool,
    /// The men within command range, who obey; the leader last.
    obey: Vec<FigureId>,
    number: u8,
    readings: Vec<Reading>,
}

/// An individual action, decided but for the card.
pub(super) struct IndividualPlan {
    figure: FigureId,
    /// No enemy can see him: no card.
    unseen: bool,
    readings: Vec<Reading>,
}

impl SoldiersInTimeRules {
    fn order_phases() -> [&'static str; 4] {
        [COMMAND, MOVEMENT[0], MOVEMENT[1], MOVEMENT[2]]
    }

    pub(super) fn plan_activate(
        &self,
        state: &GameState,
        p: &ActivateParams,
    ) -> Result<ActivatePlan, RuleError> {
        self.phase(state, "activate", &Self::order_phases())?;
        let leader = figure(state, &p.leader)?;
        require_active_side(NAME, state, leader)?;
        if !leader.leader || !in_play(leader) || routed(leader) {
            return Err(refuse(
                RefusalKind::NoOrder,
                format!("{} cannot give orders", leader.name),
            )
            .by(leader.id));
        }
        if p.order == Order::Individual {
            return Err(refuse(
                RefusalKind::NoOrder,
                "an individual action is a lone figure's own (`individual`)",
            ));
        }
        let range = self.data.command.range_in;
        let mut obey = Vec::new();
        let mut readings = Vec::new();
        let mut exps = Vec::new();
        for name in &p.men {
            let m = figure(state, name)?;
            if m.side != leader.side {
                return Err(refuse(
                    RefusalKind::CannotDo,
                    format!(
                        "{} is on the other side: {} orders only his own side's men; take {} off the list",
                        m.name, leader.name, m.name
                    ),
                )
                .by(m.id));
            }
            if m.id == leader.id || !in_play(m) || routed(m) {
                continue;
            }
            let gap = edge_gap(m, leader);
            readings.push(gap.reading(format!("{} to {}", m.name, leader.name), &[range]));
            if within(gap, range) {
                obey.push(m.id);
                exps.push(m.experience);
            }
        }
        let away = p.away && p.order == Order::FollowHim;
        if p.away && !away {
            return Err(refuse(
                RefusalKind::Malformed,
                "only a Follow Him order is declared moving away from the enemy",
            ));
        }
        // 5.2, Follow Him: "use the worst experience rating instead of the
        // leader's, unless they are moving away from known or suspected
        // enemy positions".
        let number = if away {
            Some(leader.experience)
        } else {
            self.data
                .order_number(p.order.name(), leader.experience, &exps)
        };
        let number = number.ok_or_else(|| {
            refuse(
                RefusalKind::NotInTables,
                format!("the data file has no order `{}`", p.order.name()),
            )
        })?;
        obey.push(leader.id);
        Ok(ActivatePlan {
            leader: leader.id,
            order: p.order,
            away,
            obey,
            number,
            readings,
        })
    }

    /// 5.2: the leader flips a card for the order against the number the
    /// order is checked against; the men within his command range are under
    /// it for the turn, passed or failed (a failed Forward March may still
    /// snap fire, a failed Formed Charge may not).
    pub(super) fn resolve_activate(
        &self,
        state: &GameState,
        p: &ActivateParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let plan = self.plan_activate(state, p)?;
        let leader = state
            .figure(plan.leader)
            .ok_or_else(|| refuse(RefusalKind::OutOfTheFight, "the leader is gone"))?;
        let mut work = Work::new(state);
        for r in plan.readings {
            work.push(Event::Measured(r));
        }
        let name = plan.order.name();
        work.push(Event::Odds {
            purpose: format!("{} orders {name}", leader.name),
            odds: named(&[(
                "p_activates",
                activation_odds(
                    &self.data,
                    &Self::deck_pile(state, leader.side),
                    plan.number,
                    true,
                ),
            )]),
        });
        let card = Self::draw(&mut work, leader.side, dice)?;
        let passed = activation_passes(&self.data, card, plan.number, true);
        work.note(format!(
            "{} {} the {name} order against {}",
            leader.name,
            if passed { "passes" } else { "fails" },
            plan.number
        ));
        work.push(sit(SitEvent::Ordered {
            figures: plan.obey,
            order: plan.order,
            passed,
            by: Some(leader.id),
            away: plan.away,
        }));
        Ok(work.into_events())
    }

    /// Can any enemy in the fight see `f`?
    fn seen_by_enemy(state: &GameState, f: &Figure) -> bool {
        state
            .figures
            .iter()
            .filter(|e| e.side != f.side && in_play(e))
            .any(|e| {
                let sight = line_of_sight(
                    &e.placement,
                    &f.placement,
                    &state.terrain,
                    SIGHT_COVER_REACH_IN,
                );
                sight.clear.value || sight.clear.too_close_to_call
            })
    }

    pub(super) fn plan_individual(
        &self,
        state: &GameState,
        p: &IndividualParams,
    ) -> Result<IndividualPlan, RuleError> {
        self.phase(state, "individual", &Self::order_phases())?;
        let f = figure(state, &p.figure)?;
        require_active_side(NAME, state, f)?;
        if !in_play(f) || routed(f) {
            return Err(
                refuse(RefusalKind::OutOfTheFight, format!("{} cannot act", f.name)).by(f.id),
            );
        }
        if f.leader {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("{} is a leader: he orders himself with `activate`", f.name),
            )
            .by(f.id));
        }
        if st(f).order.is_some() {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!("{} has his orders for this turn", f.name),
            )
            .by(f.id));
        }
        let range = self.data.command.range_in;
        let mut readings = Vec::new();
        for l in state
            .figures
            .iter()
            .filter(|l| l.leader && l.side == f.side && in_play(l) && !routed(l))
        {
            let gap = edge_gap(f, l);
            readings.push(gap.reading(format!("{} to {}", f.name, l.name), &[range]));
            if gap.value() <= range && !gap.near(range) {
                return Err(refuse(
                    RefusalKind::NoOrder,
                    format!(
                        "{} is {:.1} in from {}, within his {range} in command range: \
                         his orders come from his leader (`activate`)",
                        f.name,
                        gap.value(),
                        l.name
                    ),
                )
                .by(f.id));
            }
        }
        Ok(IndividualPlan {
            figure: f.id,
            unseen: !Self::seen_by_enemy(state, f),
            readings,
        })
    }

    /// The out of command range chart (house): a card against his own
    /// experience; no card out of the enemy's sight.
    pub(super) fn resolve_individual(
        &self,
        state: &GameState,
        p: &IndividualParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let plan = self.plan_individual(state, p)?;
        let f = state
            .figure(plan.figure)
            .ok_or_else(|| refuse(RefusalKind::OutOfTheFight, "the figure is gone"))?;
        let mut work = Work::new(state);
        for r in plan.readings {
            work.push(Event::Measured(r));
        }
        let passed = if plan.unseen {
            work.note(format!(
                "{} is out of every enemy's sight: he acts without a card",
                f.name
            ));
            true
        } else {
            work.push(Event::Odds {
                purpose: format!("{} acts on his own (out of command range)", f.name),
                odds: named(&[(
                    "p_acts",
                    activation_odds(
                        &self.data,
                        &Self::deck_pile(state, f.side),
                        f.experience,
                        false,
                    ),
                )]),
            });
            let card = Self::draw(&mut work, f.side, dice)?;
            let passed = activation_passes(&self.data, card, f.experience, false);
            work.note(format!(
                "{} {} (out of command range) against {}",
                f.name,
                if passed {
                    "acts on his own: he may walk and fire"
                } else {
                    "holds where he is: snap fire only"
                },
                f.experience
            ));
            passed
        };
        work.push(sit(SitEvent::Ordered {
            figures: vec![f.id],
            order: Order::Individual,
            passed,
            by: None,
            away: false,
        }));
        Ok(work.into_events())
    }
}
