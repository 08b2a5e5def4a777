//! The optional wounded rule's own actions: seriously wounded men
//! gathered behind the lines (`gather`), and the one challenge of the
//! other side's written-down treatment of its wounded (`challenge`).
//!
//! # Conventions
//! Table inches in the state; the written choice is each side's
//! `wounded` status, which the engine holds as the "neutral bystander"
//! and shows only when challenged.

use super::action::{ChallengeParams, GatherParams};
use super::engine::{
    Holder, LittleColonialRules, card_in_play, fig_event, fights_on, gathered, in_the_fight,
    policy, refuse, side_st, st,
};
use super::event::Event as LcEvent;
use super::status::WoundedPolicy;
use crate::core::RefusalKind;
use crate::core::dice::Dice;
use crate::geometry::line_hits_base;
use crate::rules::common::{Work, figure};
use crate::rules::stand_to::Wound;
use crate::rules::{Event, Figure, FigureId, GameState, RuleError};

/// What `challenge` checked: who challenges whom, and what was written.
pub(super) struct ChallengePlan {
    pub by: usize,
    pub side: usize,
    pub wrote: WoundedPolicy,
}

impl LittleColonialRules {
    /// "Seriously wounded (die rolls of 4 or 5) figures behind the lines
    /// may be gathered at a central location and/or used to defend a
    /// position": each is seriously wounded, of the card's side, activated
    /// by its holder, and behind the lines.
    pub(super) fn check_gather(
        &self,
        state: &GameState,
        p: &GatherParams,
    ) -> Result<Vec<FigureId>, RuleError> {
        let (_, holder) = self.card_holder(state)?;
        if p.wounded.is_empty() {
            return Err(refuse(RefusalKind::Malformed, "name the wounded men"));
        }
        self.one_soldier(state, p.wounded.len())?;
        let mut ids = Vec::new();
        for name in &p.wounded {
            let w = figure(state, name)?;
            let serious =
                w.wound == Some(Wound::Serious) && st(w).wound.is_some_and(|k| k.serious());
            if !serious {
                return Err(refuse(
                    RefusalKind::CannotDo,
                    format!(
                        "{} is not seriously wounded: only they are gathered",
                        w.name
                    ),
                )
                .by(w.id));
            }
            if gathered(w) || ids.contains(&w.id) {
                return Err(refuse(
                    RefusalKind::AlreadyActed,
                    format!("{} is gathered already", w.name),
                )
                .by(w.id));
            }
            if w.side != holder.side() {
                return Err(refuse(
                    RefusalKind::NotAnEnemy,
                    format!("{} is not of the card's side", w.name),
                )
                .by(w.id));
            }
            if let Holder::Figure(owner) = holder
                && owner.id != w.id
            {
                self.may_activate(state, owner, w, true)?;
            }
            if let Some(why) = Self::not_behind_the_lines(state, w) {
                return Err(refuse(RefusalKind::CannotDo, why).by(w.id));
            }
            ids.push(w.id);
        }
        Ok(ids)
    }

    /// Why `w` is not behind his side's lines (None: he is): the straight
    /// line from him to the nearest enemy in the fight must pass over the
    /// base of a healthy man of his side.
    fn not_behind_the_lines(state: &GameState, w: &Figure) -> Option<String> {
        let here = w.placement.center_in_table;
        // No enemy in the fight: nobody to be behind the lines from.
        let enemy = state
            .figures
            .iter()
            .filter(|e| e.side != w.side && fights_on(e))
            .min_by(|a, b| {
                let da = (a.placement.center_in_table - here).norm();
                let db = (b.placement.center_in_table - here).norm();
                da.total_cmp(&db)
            })?;
        let there = enemy.placement.center_in_table;
        let covered = state.figures.iter().any(|g| {
            g.side == w.side
                && g.id != w.id
                && in_the_fight(g)
                && line_hits_base(here, there, &g.placement)
        });
        (!covered).then(|| {
            format!(
                "{} is not behind the lines: no man of his side stands between him and {}",
                w.name, enemy.name
            )
        })
    }

    pub(super) fn resolve_gather(
        &self,
        state: &GameState,
        p: &GatherParams,
    ) -> Result<Vec<Event>, RuleError> {
        let ids = self.check_gather(state, p)?;
        let mut work = Work::new(state);
        Self::mark_acted(&mut work, &ids);
        work.note(format!(
            "{} seriously wounded men are gathered behind the lines: they fire with doubled ranges and do not move",
            ids.len()
        ));
        work.push(fig_event(LcEvent::Gathered { figures: ids }));
        Ok(work.into_events())
    }

    /// "At any time during the game, each side may challenge the other
    /// side to see what they decided to do in regards to their wounded.
    /// This may only be done ONCE and it may only be done when an opponent
    /// is attempting to give aid to his wounded."
    pub(super) fn check_challenge(
        &self,
        state: &GameState,
        p: &ChallengeParams,
    ) -> Result<ChallengePlan, RuleError> {
        let by = state
            .sides
            .iter()
            .position(|s| s.name == p.side)
            .ok_or_else(|| RuleError::Unknown {
                what: "side",
                name: p.side.clone(),
            })?;
        if side_st(state, by).challenged {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!(
                    "{} has made its challenge: it may only be done ONCE",
                    p.side
                ),
            ));
        }
        let aid = state.rules.little_colonial().and_then(|g| g.aid.as_ref());
        let now = aid.filter(|a| {
            a.side != by && a.turn == state.turn && card_in_play(state) == Some(a.card.as_str())
        });
        let Some(aid) = now else {
            return Err(refuse(
                RefusalKind::CannotDo,
                "a challenge may only be made when an opponent is attempting to give aid to his wounded (on the card of his `drag`)",
            ));
        };
        let wrote = policy(state, aid.side).ok_or_else(|| {
            refuse(
                RefusalKind::CannotDo,
                "the side wrote nothing down: the wounded rule is not in play",
            )
        })?;
        Ok(ChallengePlan {
            by,
            side: aid.side,
            wrote,
        })
    }

    /// "If a player is found to be doing the opposite of what he wrote
    /// down, he immediately suffers ten percent (10%) casualties to his
    /// healthy forces (roll to see how many are wounded and killed using
    /// the above procedure) and all pre-existing wounded are now
    /// considered killed (regardless as to whether they were rescued or
    /// not)."
    pub(super) fn resolve_challenge(
        &self,
        state: &GameState,
        p: &ChallengeParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let plan = self.check_challenge(state, p)?;
        let mut work = Work::new(state);
        // Giving aid is the opposite only of Ruthless.
        let caught = plan.wrote == WoundedPolicy::Ruthless;
        let (by, side) = (&state.sides[plan.by].name, &state.sides[plan.side].name);
        work.push(fig_event(LcEvent::Challenged {
            by: plan.by,
            side: plan.side,
            wrote: plan.wrote,
            caught,
        }));
        if !caught {
            work.note(format!(
                "{by} challenges {side}, who wrote down Compassionate and aids his wounded: no penalty"
            ));
            return Ok(work.into_events());
        }
        let earlier: Vec<FigureId> = state
            .figures
            .iter()
            .filter(|f| f.side == plan.side && f.wound == Some(Wound::Serious))
            .map(|f| f.id)
            .collect();
        let mut healthy: Vec<FigureId> = state
            .figures
            .iter()
            .filter(|f| f.side == plan.side && in_the_fight(f) && f.wound.is_none())
            .map(|f| f.id)
            .collect();
        let pct = u64::from(self.data.wounded.challenge_casualty_percent);
        let n = (healthy.len() as u64 * pct + 50) / 100;
        work.note(format!(
            "{by} challenges {side}, who wrote down Ruthless and aids his wounded: {n} casualties ({pct}% of {} healthy men) and every earlier wounded man is killed",
            healthy.len()
        ));
        for _ in 0..n {
            if healthy.is_empty() {
                break;
            }
            let faces = u32::try_from(healthy.len()).unwrap_or(u32::MAX);
            let k = work.roll1(dice, faces, "challenge: which healthy man", None)?;
            let id = healthy.remove((k as usize).saturating_sub(1).min(healthy.len() - 1));
            self.casualty(&mut work, id, dice)?;
        }
        for id in earlier {
            work.push(Event::Wounded {
                figure: id,
                wound: Wound::Killed,
                mount: false,
            });
        }
        Ok(work.into_events())
    }
}
