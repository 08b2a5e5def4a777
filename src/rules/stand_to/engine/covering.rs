//! Aiming at a location: "A soldier can also aim at a location. If
//! anything appears there, he can immediately fire at it. He gets no aiming
//! bonus for this shot, no matter how long he waited for the target to
//! appear." The area is the data's `fire.covered_area_in` about the point
//! (a house value); an enemy appears there when he comes into it (by a move
//! ending in it or passing through it, or by being sighted in it) where the
//! aiming man sees him. The shot is taken at once: in the same phase of the
//! same turn, whoever's turn it is.
//!
//! # Conventions
//! The point is in table inches; the area's radius is in rule inches,
//! measured to the centre of the enemy's base.

use super::*;

/// A point on the table as a base of no size (for ranges and sight).
fn point_placement(center_in: Point2<f64>) -> Placement {
    Placement {
        center_in_table: center_in,
        facing_deg: 0.0,
        shape: geometry::BaseShape::Round { diameter_in: 0.0 },
        sigma_in: 0.0,
    }
}

impl StandToRules {
    /// Is the centre of `t` within the covered area about `center_in`?
    fn in_area(&self, state: &GameState, center_in: Point2<f64>, t: &Figure) -> bool {
        state
            .scale
            .rule_from_table(geometry::range_in(
                &point_placement(center_in),
                &t.placement,
                RangeMethod::CentreToCentre,
            ))
            .at_most(self.data.fire.covered_area_in)
            .value
    }

    /// Is `t` in the area that `s` covers (the location he aims at)?
    pub fn in_covered_area(&self, state: &GameState, s: &Figure, t: &Figure) -> bool {
        status::st(s)
            .covering
            .as_ref()
            .is_some_and(|c| self.in_area(state, c.center_in, t))
    }

    /// Can `s` see `t` where he stands: a living enemy, not concealed, with
    /// a clear line of sight.
    fn sees_enemy(&self, state: &GameState, s: &Figure, t: &Figure) -> bool {
        t.side != s.side
            && t.alive()
            && !t.concealed
            && self.sight(state, &s.placement, &t.placement).clear.value
    }

    /// Can the figure spend this turn aiming at the location `center_in`?
    /// As aiming at a man: in his fire phase, a turn without firing or
    /// loading; the place must be in his sight and in his weapon's aimed
    /// range, and his weapon ready to fire at once.
    pub(super) fn check_aim_at_location(
        &self,
        state: &GameState,
        id: FigureId,
        center_in: Point2<f64>,
    ) -> Result<(), RuleError> {
        self.require_phase(state, "fire")?;
        let f = figure(state, id)?;
        Self::require_own_turn(state, f)?;
        Self::require_able(state, f)?;
        let w = self.weapon(&f.weapon)?;
        if w.gun {
            return Err(refuse(
                RefusalKind::CannotDo,
                "a gun fires its cone (fire-gun); it does not aim at a location",
            ));
        }
        let busy = if status::now(state, f).shots_this_turn() > 0 {
            Some("has fired this turn")
        } else if status::st(f).loaded_turn == Some(state.turn) {
            Some("spent this turn loading")
        } else {
            None
        };
        if let Some(busy) = busy {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!("{} {busy}: aiming takes a turn without firing", f.name),
            )
            .by(f.id));
        }
        if Self::load_turns(w, false) > 0 && !f.loaded {
            return Err(refuse(
                RefusalKind::NotLoaded,
                format!(
                    "{}'s {} must be loaded to fire at once at what appears there",
                    f.name, w.name
                ),
            )
            .by(f.id));
        }
        let point = point_placement(center_in);
        if !self.sight(state, &f.placement, &point).clear.value {
            return Err(refuse(
                RefusalKind::OutOfSight,
                format!("{} cannot see that place", f.name),
            )
            .by(f.id));
        }
        let range = state.scale.rule_from_table(geometry::range_in(
            &f.placement,
            &point,
            self.data.measure.fire,
        ));
        if !range.at_most(w.range_in[2]).value {
            return Err(refuse(
                RefusalKind::OutOfRange,
                format!(
                    "that place is out of range of {}'s {} ({:.1} in)",
                    f.name, w.name, range.value_in
                ),
            )
            .by(f.id));
        }
        Ok(())
    }

    /// The shot at an enemy who has just appeared in the area the shooter
    /// covers: checked, and planned as an aimed shot with no aiming bonus.
    pub(super) fn location_fire_plan(
        &self,
        state: &GameState,
        shooter: FigureId,
        target: FigureId,
    ) -> Result<FirePlan, RuleError> {
        let s = figure(state, shooter)?;
        let t = figure(state, target)?;
        Self::require_able(state, s)?;
        let Some(covering) = status::st(s).covering.as_ref() else {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("{} is not aiming at a location", s.name),
            )
            .by(s.id));
        };
        if t.side == s.side || !t.alive() {
            return Err(refuse(
                RefusalKind::NotAnEnemy,
                format!("{} is not an enemy target", t.name),
            )
            .by(t.id));
        }
        if !covering
            .appeared
            .iter()
            .any(|a| a.target == target && a.is_now(state))
        {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!(
                    "{} has not just appeared in the area {} covers: he fires at once or not at all",
                    t.name, s.name
                ),
            )
            .by(t.id));
        }
        if !self.sees_enemy(state, s, t) {
            return Err(refuse(
                RefusalKind::OutOfSight,
                format!("{} cannot see {}", s.name, t.name),
            )
            .by(s.id));
        }
        let w = self.weapon(&s.weapon)?;
        if Self::load_turns(w, false) > 0 && !s.loaded {
            return Err(refuse(
                RefusalKind::NotLoaded,
                format!("{}'s {} is not loaded", s.name, w.name),
            )
            .by(s.id));
        }
        let mut plan =
            self.fire_plan(state, shooter, target, FireMode::Aimed, AimUse::Best, false)?;
        // "He gets no aiming bonus for this shot."
        plan.situation.aim_bonus = false;
        Ok(plan)
    }

    /// The enemies who appeared in an area a figure covers with this
    /// command: each one's event and a note telling the player he may fire.
    pub(super) fn appearances(
        &self,
        before: &GameState,
        after: &GameState,
        command: &Command,
    ) -> Vec<Event> {
        let mut out = Vec::new();
        for w in after.figures.iter().filter(|w| w.active()) {
            let Some(c) = status::st(w).covering.as_ref() else {
                continue;
            };
            for t in after
                .figures
                .iter()
                .filter(|t| self.sees_enemy(after, w, t))
            {
                let was_there = before.figure(t.id).is_some_and(|old| {
                    self.in_area(before, c.center_in, old) && self.sees_enemy(before, w, old)
                });
                if was_there {
                    continue;
                }
                if !self.in_area(after, c.center_in, t)
                    && !self.passed_through(before, c.center_in, t.id, command)
                {
                    continue;
                }
                out.push(Event::StandTo(StandToEvent::AppearedInCoveredArea {
                    figure: w.id,
                    target: t.id,
                    turn: after.turn,
                    active_side: after.active_side,
                    phase: after.phase,
                }));
                out.push(Event::Note {
                    text: format!(
                        "{} appears in the area {} aims at: he may fire at him at once (fire-at-location), with no aiming bonus",
                        t.name, w.name
                    ),
                });
            }
        }
        out
    }

    /// Did the command move figure `id` through the area about `center_in`
    /// (his path from where he stood passes within the area's radius)?
    fn passed_through(
        &self,
        before: &GameState,
        center_in: Point2<f64>,
        id: FigureId,
        command: &Command,
    ) -> bool {
        let Command::StandTo(Action::Move {
            figure: moved,
            path_in,
            ..
        }) = command
        else {
            return false;
        };
        let Some(start) = before.figure(id).filter(|_| *moved == id) else {
            return false;
        };
        let radius = self.table_in(before, self.data.fire.covered_area_in);
        let point = point_placement(center_in);
        std::iter::once(start.placement.center_in_table)
            .chain(path_in.iter().copied())
            .collect::<Vec<_>>()
            .windows(2)
            .any(|leg| geometry::segment_base_distance_in(leg[0], leg[1], &point) <= radius)
    }
}
