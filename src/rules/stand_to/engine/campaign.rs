//! Before and after the battle: starting experience, advancement, recovery.

use super::*;

/// A wounded figure's recovery roll: the bonus and the wound it starts from.
pub(super) struct RecoveryPlan {
    bonus: u32,
    wound: Wound,
}

/// A starting-experience roll: the figure and the green penalty.
pub(super) struct ExperiencePlan {
    figure: FigureId,
    penalty: u32,
}

impl StandToRules {
    /// Can the figure roll to advance? He must have survived.
    pub(super) fn check_advance(&self, state: &GameState, id: FigureId) -> Result<(), RuleError> {
        let f = figure(state, id)?;
        if !f.alive() {
            return Err(
                refuse(RefusalKind::CannotDo, format!("{} did not survive", f.name)).by(f.id),
            );
        }
        Ok(())
    }

    /// The odds of advancing: a die above his experience number.
    pub(super) fn advance_odds(&self, state: &GameState, id: FigureId) -> Vec<NamedOdds> {
        let n = state.figure(id).map_or(0, |f| f.experience);
        named(&[("p_advance", p_advance(n, self.data.experience.max_number))])
    }

    /// The `Advance` command (see [`Action::Advance`]).
    pub(super) fn resolve_advance(
        &self,
        state: &GameState,
        sc: &mut Scratch,
        id: FigureId,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        self.check_advance(state, id)?;
        let n = figure(state, id)?.experience;
        sc.push(Event::Odds {
            purpose: "advance".into(),
            odds: self.advance_odds(state, id),
        });
        let r = sc.roll(dice, "advancement", Some(id), self.data.experience.dice)?;
        if total(&r) > u32::from(n) && n < self.data.experience.max_number {
            sc.push(Event::StandTo(StandToEvent::Experience {
                figure: id,
                number: n + 1,
            }));
        }
        Ok(())
    }

    /// Can the figure roll for recovery (he has a wound to recover from)?
    /// "Add one to the roll if the figure is recovering in a military
    /// hospital or under a European doctor's care, or is a hero or
    /// fanatic."
    pub(super) fn recovery_plan(
        &self,
        state: &GameState,
        id: FigureId,
        cared_for: bool,
    ) -> Result<RecoveryPlan, RuleError> {
        let f = figure(state, id)?;
        let bonus = if cared_for || self.level(state, f).is_ok_and(|l| l.light_wounds_ignored) {
            self.data.recovery.bonus
        } else {
            0
        };
        let wound = match f.wound {
            Some(w @ (Wound::Light | Wound::Serious)) => w,
            _ => {
                return Err(refuse(
                    RefusalKind::CannotDo,
                    format!("{} has no wound to recover from", f.name),
                )
                .by(f.id));
            }
        };
        Ok(RecoveryPlan { bonus, wound })
    }

    /// The wound left after a recovery roll of `roll` (None: healed).
    fn recovery_outcome(&self, plan: &RecoveryPlan, roll: u32) -> Option<Wound> {
        let rec = &self.data.recovery;
        let t = roll + plan.bonus;
        match plan.wound {
            Wound::Light if t >= rec.light_heals => None,
            Wound::Light => Some(Wound::Light),
            _ if t <= rec.serious_dies => Some(Wound::Killed),
            _ if t >= rec.serious_heals => None,
            _ => Some(Wound::Light),
        }
    }

    /// The odds of a recovery roll.
    pub(super) fn recovery_odds(&self, plan: &RecoveryPlan) -> Vec<NamedOdds> {
        named(&[
            (
                "p_healed",
                probability(&[D6], |f| self.recovery_outcome(plan, f[0]).is_none()),
            ),
            (
                "p_dies",
                probability(&[D6], |f| {
                    self.recovery_outcome(plan, f[0]) == Some(Wound::Killed)
                }),
            ),
        ])
    }

    /// The `Recover` command (see [`Action::Recover`]).
    pub(super) fn resolve_recover(
        &self,
        state: &GameState,
        sc: &mut Scratch,
        (id, cared_for): (FigureId, bool),
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let plan = self.recovery_plan(state, id, cared_for)?;
        sc.push(Event::Odds {
            purpose: "recovery".into(),
            odds: self.recovery_odds(&plan),
        });
        let r = sc.roll(dice, "recovery", Some(id), self.data.recovery.dice)?;
        match self.recovery_outcome(&plan, total(&r)) {
            Some(Wound::Killed) => sc.push(Event::Wounded {
                figure: id,
                wound: Wound::Killed,
                mount: false,
            }),
            w => sc.push(Event::StandTo(StandToEvent::Healed {
                figure: id,
                wound: w,
            })),
        }
        Ok(())
    }

    /// The figure (by name) whose starting experience is rolled, and his
    /// side's green penalty (the referee's `green_sides`).
    pub(super) fn experience_plan(
        &self,
        state: &GameState,
        name: &str,
    ) -> Result<ExperiencePlan, RuleError> {
        let f = state.figure_named(name).ok_or_else(|| RuleError::Unknown {
            what: "figure",
            name: name.to_owned(),
        })?;
        let green = state
            .sides
            .get(f.side)
            .is_some_and(|s| status::side_st(s).green);
        let penalty = if green {
            u32::from(self.data.experience.green_penalty)
        } else {
            0
        };
        Ok(ExperiencePlan {
            figure: f.id,
            penalty,
        })
    }

    /// The odds of each experience level from one die less the penalty.
    pub(super) fn experience_odds(
        &self,
        state: &GameState,
        plan: &ExperiencePlan,
    ) -> Vec<NamedOdds> {
        let kind = state
            .figure(plan.figure)
            .map_or(SideKind::Native, |f| Self::side_kind(state, f));
        let number = |face: u32| face.saturating_sub(plan.penalty).max(1);
        let mut odds = Vec::new();
        for level in self
            .data
            .experience
            .level
            .iter()
            .filter(|l| l.side.is_none_or(|k| k == kind))
        {
            odds.extend(named(&[(
                &format!("p_{}", level.name),
                probability(&[D6], |d| {
                    u8::try_from(number(d[0])).is_ok_and(|n| level.numbers.contains(&n))
                }),
            )]));
        }
        odds
    }

    /// The `RollExperience` command (see [`Action::RollExperience`]).
    pub(super) fn resolve_roll_experience(
        &self,
        state: &GameState,
        sc: &mut Scratch,
        name: &str,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let plan = self.experience_plan(state, name)?;
        let f = figure(state, plan.figure)?;
        sc.push(Event::Odds {
            purpose: "starting experience".into(),
            odds: self.experience_odds(state, &plan),
        });
        if plan.penalty > 0 {
            sc.note(format!(
                "{}'s side is green: {} off the roll",
                f.name, plan.penalty
            ));
        }
        let r = sc.roll(dice, "starting experience", Some(f.id), 1)?;
        let number = total(&r).saturating_sub(plan.penalty).max(1);
        sc.push(Event::StandTo(StandToEvent::Experience {
            figure: f.id,
            number: u8::try_from(number).unwrap_or(u8::MAX),
        }));
        Ok(())
    }
}

/// P(a d6 rolls above `number`), the chance to advance.
pub(super) fn p_advance(number: u8, max: u8) -> f64 {
    if number >= max {
        0.0
    } else {
        probability(&[D6], |f| f[0] > u32::from(number))
    }
}
