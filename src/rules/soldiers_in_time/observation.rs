//! Observation (11): spotting a hidden enemy. Our copy keeps the section's
//! headings ("Hidden Placement", "Spotting Hidden Enemies") and the note on
//! the hidden +2; the spotting rule is a house rule of the data file's
//! `[fire.house] spotting`.
//!
//! # Conventions
//! Range centre to centre, table inches, with the positions' uncertainty
//! (too close to call counts as within).

use super::action::SpotParams;
use super::engine::{
    SHOOTING, SoldiersInTimeRules, centre_gap, in_play, refuse, routed, sit, st, within,
};
use super::event::Event as SitEvent;
use super::shooting::COVER_REACH_IN;
use super::{NAME, activation_odds, activation_passes};
use crate::core::RefusalKind;
use crate::core::dice::Dice;
use crate::core::odds::named;
use crate::geometry::line_of_sight;
use crate::rules::common::{Work, figure, require_active_side};
use crate::rules::{Event, Figure, GameState, RuleError};

impl SoldiersInTimeRules {
    /// Is `t` hidden now (concealed, and not exposed by a hit or a spot)?
    pub(super) fn hidden(state: &GameState, t: &Figure) -> bool {
        t.concealed && st(t).exposed_until.is_none_or(|u| state.turn > u)
    }

    pub(super) fn plan_spot<'a>(
        &self,
        state: &'a GameState,
        p: &SpotParams,
    ) -> Result<(&'a Figure, &'a Figure), RuleError> {
        self.phase(state, "spot", &[SHOOTING])?;
        let o = figure(state, &p.observer)?;
        let t = figure(state, &p.target)?;
        require_active_side(NAME, state, o)?;
        if !in_play(o) || routed(o) {
            return Err(refuse(
                RefusalKind::OutOfTheFight,
                format!("{} cannot look out", o.name),
            )
            .by(o.id));
        }
        if o.side == t.side || !in_play(t) {
            return Err(refuse(RefusalKind::NotAnEnemy, "spot an enemy in the fight").by(t.id));
        }
        if !Self::hidden(state, t) {
            return Err(
                refuse(RefusalKind::CannotDo, format!("{} is not hidden", t.name)).by(t.id),
            );
        }
        if st(o).spot_turn == Some(state.turn) {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!("{} has looked out this turn", o.name),
            )
            .by(o.id));
        }
        let range = self.data.fire.spot_range_in;
        let gap = centre_gap(o, t);
        if !within(gap, range) {
            return Err(refuse(
                RefusalKind::OutOfRange,
                format!(
                    "{} is {:.1} in from {}: spotting reaches {range} in",
                    t.name,
                    gap.value(),
                    o.name
                ),
            )
            .by(t.id));
        }
        let sight = line_of_sight(&o.placement, &t.placement, &state.terrain, COVER_REACH_IN);
        if !sight.clear.value && !sight.clear.too_close_to_call {
            return Err(refuse(
                RefusalKind::OutOfSight,
                format!(
                    "{} cannot see where {} is: {}",
                    o.name,
                    t.name,
                    sight.areas.join(", ")
                ),
            )
            .by(t.id));
        }
        Ok((o, t))
    }

    /// 11, Spotting Hidden Enemies (house): a card against the observer's
    /// experience; passed, the hidden man loses his +2 to the end of the
    /// next turn.
    pub(super) fn resolve_spot(
        &self,
        state: &GameState,
        p: &SpotParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let (o, t) = self.plan_spot(state, p)?;
        let mut work = Work::new(state);
        let pile = Self::deck_pile(state, o.side);
        work.push(Event::Odds {
            purpose: format!("{} looks for {}", o.name, t.name),
            odds: named(&[(
                "p_spots",
                activation_odds(&self.data, &pile, o.experience, o.leader),
            )]),
        });
        let card = Self::draw(&mut work, o.side, dice)?;
        work.push(sit(SitEvent::SpotChecked {
            figure: o.id,
            turn: state.turn,
        }));
        if !activation_passes(&self.data, card, o.experience, o.leader) {
            work.note(format!("{} does not spot {}", o.name, t.name));
            return Ok(work.into_events());
        }
        let until_turn = state.turn + 1;
        work.push(sit(SitEvent::Exposed {
            figures: vec![t.id],
            until_turn,
        }));
        work.note(format!(
            "{} spots {}: no hidden +2 until turn {until_turn} ends (house rule)",
            o.name, t.name
        ));
        Ok(work.into_events())
    }
}
